// Playback of a recorded run's inputs against a live device (eacu replay --mode actions).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "device/Device.h"
#include "record/RunLog.h"
#include "vision/Matcher.h"

namespace eacu {

class Session;

/// Settings of an actions replay.
/// - `timeout`: seconds to wait for the live screen to match the recorded one around a target.
/// - `threshold`: the raw score (grey and colour) the recorded crop needs on the live screen.
/// - `margin`: pixels of context kept around the recorded box in the crop.
/// - `near`: how far (pixels) from the recorded place the crop is first looked for; when it is
///   not there the whole screen is searched (the target moved) before giving up.
/// - `point_radius`: half size of the crop around an input point that has no box.
/// - `on_step`: called after each replayed step with a one-line description (for progress).
struct ReplayOptions {
    double timeout = 5.0;
    double threshold = 0.9;
    int margin = 4;
    int near = 40;
    int point_radius = 16;
    std::function<void(const std::string&)> on_step;
};

/// The outcome: `ok` when every step was replayed; otherwise `failed_idx` is the original
/// step index where it stopped and `error` says why (what was expected, the best score and
/// where, the threshold, the frames to look at).
struct ReplayResult {
    bool ok = true;
    int failed_idx = 0;
    std::string error;
    int replayed = 0, relocated = 0, skipped = 0;
};

/// Re-executes the inputs of run `original` (taps, double taps, long presses, drags, scrolls,
/// typed text, key combos, launched programs) in order on `device`, recording each as a step
/// of run `replay` (same index as the original step) in `log`. Before an input at a place, the
/// recorded before-frame around the target (its box plus a margin, or a square around the
/// input point) must be found on the live screen within `timeout`: near the recorded place, or
/// anywhere on the screen (the input point then moves with it, and the step's method is
/// "relocate"). wait/verify steps are checked the same way; locate and find_all steps
/// (observations without a frame) are recorded as skipped. Stops at the first mismatch, which
/// is recorded as a failed step with the live frame. `helper` is a Session on the same device
/// (without a run log) used to launch programs and wait for the screen to settle; programs it
/// launched are stopped when it is destroyed. Throws std::runtime_error when the original run
/// does not exist, and rethrows Cancelled when the helper's cancel token is cancelled.
ReplayResult replayActions(RunLog& log, int64_t original, int64_t replay, Device& device,
                           const Matcher& matcher, Session& helper, const ReplayOptions& options = {});

}  // namespace eacu
