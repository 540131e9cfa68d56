// Screen change and stability: has an action had an effect, and has the screen settled since?
// Seed 000 §2.5 (change ratio: grey, 15 levels, 2 %) and seed 001 (no fixed sleeps).
#pragma once
#include <functional>
#include <optional>

#include "base/Cancel.h"
#include "base/Frame.h"
#include "geometry/Rect.h"

namespace eacu {

/// How changes are measured and how long to wait, in seconds.
/// - `tolerance`: grey levels a pixel must move to count as changed (seed 000: 15).
/// - `noise_ratio`: a change ratio at or below this is noise (a blinking caret, ~40 px of a
///   1280x800 screen), neither an effect nor unrest. Default 0.00005 (51 px at 1280x800).
/// - `effect_timeout`: how long to wait for a first change after an action.
/// - `settle_interval`: how long consecutive captures must stay within `noise_ratio` of each
///   other for the screen to count as settled.
/// - `settle_timeout`: the most a wait lasts in all (then it returns with `settled` false).
/// - `poll_interval`: pause between captures.
/// - `region`: only this part of the screen is compared (physical pixels), if set.
/// - `cancel`: the run's token, checked between captures (null: only signals cancel).
struct StabilityOptions {
    int tolerance = 15;
    double noise_ratio = 0.00005;
    double effect_timeout = 0.5;
    double settle_interval = 0.1;
    double settle_timeout = 5.0;
    double poll_interval = 0.03;
    std::optional<Rect> region;
    const CancelToken* cancel = nullptr;
};

/// What the screen did: `change_ratio`, the largest change seen against the before frame;
/// `changed`, whether that exceeded the noise; `settled`, whether the screen then stayed
/// still for the settle interval before the deadline; `ms` spent; `frames` captured;
/// `frame`, the last capture.
struct Settle {
    double change_ratio = 0;
    bool changed = false;
    bool settled = true;
    double ms = 0;
    int frames = 0;
    Frame frame;
};

/// Captures a frame (the device's capture, or a test's sequence of frames).
using CaptureFn = std::function<Frame()>;

/// After an action: captures until the screen has changed against `before` and then stayed
/// still for `settle_interval` (changed, settled), or `effect_timeout` passed with no change
/// (not changed, settled), or `settle_timeout` passed (settled false). A resized screen counts
/// as a full change. Checks `cancel` between captures (throws Cancelled). No fixed sleep: it returns as soon as the screen is known to be still.
Settle waitEffectAndSettle(const CaptureFn& capture, const Frame& before, const StabilityOptions& o);

/// Waits until consecutive captures stay within the noise for `settle_interval`, up to
/// `timeout` seconds (then `settled` is false). `change_ratio` is the largest change between
/// the first capture and any later one.
Settle waitStable(const CaptureFn& capture, double timeout, const StabilityOptions& o);

/// Waits up to `timeout` seconds for the screen (or `o.region`) to differ from `before` by
/// more than `threshold` (a fraction of the compared pixels; seed 000 uses 0.02), then for it
/// to settle. `changed` says whether it did.
Settle waitChange(const CaptureFn& capture, const Frame& before, double threshold, double timeout,
                  const StabilityOptions& o);

/// The change ratio between two frames under `o` (tolerance, region); 1.0 when their sizes
/// differ.
double frameChange(const Frame& a, const Frame& b, const StabilityOptions& o);

}  // namespace eacu
