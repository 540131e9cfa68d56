// Playback of a recorded run's inputs against a live device (eacu replay --mode actions).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include <opencv2/core.hpp>

#include "base/Cancel.h"
#include "device/Device.h"
#include "runlog/RunLog.h"
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

/// Where the recorded crop was found on the live screen: `found`; `relocated` (found away from
/// its recorded place); `match` (the best candidate, live pixels); `shift` (live - recorded
/// position); `crop` (the crop's rectangle in the recorded frame); `live` (the frame it was
/// found in, or the last one looked at); `elsewhere` (how many places away from the recorded
/// one matched on the last frame looked at).
struct ReplayGate {
    bool found = false;
    bool relocated = false;
    int elsewhere = 0;
    Match match;
    Point shift;
    Rect crop;
    Frame live;
};

/// The replay gate: waits up to `o.timeout` seconds for the rectangle `crop` of the recorded
/// frame `recorded` to show on `device` with a raw score of at least `o.threshold`, first within
/// `o.near` pixels of its recorded place (away from the exact place only with the recorded
/// surroundings, below), then anywhere on the screen: there only on a settled
/// screen (a frame equal to the one looked at before it, ~50 ms earlier), at exactly one place,
/// and with the recorded surroundings (the crop grown by `o.near`; at least `o.threshold` of
/// their pixels the same) at the same shift. So a
/// look-alike, such as the next empty text field of a form, is not taken for the target (a
/// window still drawing its controls may show one before the target). `name` labels the
/// template in messages. Throws Cancelled when `cancel` is cancelled.
ReplayGate findRecordedCrop(Device& device, const Matcher& matcher, const cv::Mat& recorded, const Rect& crop,
                            const ReplayOptions& o, const CancelToken& cancel, const std::string& name = "crop");

/// Re-executes the inputs of run `original` of `log` (taps, double taps, long presses, drags,
/// scrolls, typed text, key combos, launched programs) in order through `session`'s
/// ActionExecutor, as steps of the session's run (same index as the original step): the
/// replay run's limits and confirm policy hold as for any input. Before an input at a place,
/// the recorded before-frame around the target (its box plus a margin, or a square around the
/// input point) must pass the gate (findRecordedCrop): near the recorded place (method
/// "replay"), or anywhere (the input moves with it, method "relocate"). wait/verify steps are
/// checked the same way; locate and find_all steps (observations without a frame) are
/// recorded as skipped. Stops at the first mismatch, recorded as a failed step with the live
/// frame. Throws std::runtime_error when the original run does not exist, StepError from the
/// executor (limit, timeout, refused), and Cancelled when the session's token is cancelled.
ReplayResult replayActions(RunLog& log, int64_t original, Session& session, const Matcher& matcher,
                           const ReplayOptions& options = {});

}  // namespace eacu
