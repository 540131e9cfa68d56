// A recorded run's steps as the items of a script (recorder/RecordedScript.h): eacu script.
#pragma once
#include <cstdint>
#include <vector>

#include "runlog/RunReader.h"
#include "recorder/RecordedScript.h"

namespace eacu {

/// The inputs run `run_id` made, in order, as script items: its launches, taps, double taps,
/// long presses, drags, scrolls, typed text and keys that succeeded, whoever made them (the
/// script, the model, the person), at any depth (the autopilot's taps are children of its step).
/// Pointer steps carry the frame from before them (decoded from the run log, with its scale;
/// no accessibility tree: the log does not keep one). A script's own step whose target was
/// found by an image, OCR or the tree keeps the target the script gave (`target`); the model's
/// and the person's steps (method model, model-element, model-box, person, ...) and points get
/// none, so writeScript proves one on the frame. Throws std::runtime_error when the run does
/// not exist.
std::vector<ScriptItem> itemsFromRun(const RunReader& log, int64_t run_id);

}  // namespace eacu
