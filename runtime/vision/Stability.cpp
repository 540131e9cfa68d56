#include "vision/Stability.h"

#include <algorithm>
#include <stdexcept>

#include "vision/ScreenDiff.h"

namespace eacu {

double frameChange(const Frame& a, const Frame& b, const StabilityOptions& o) {
    if (a.bgr.size() != b.bgr.size()) return 1.0;
    return changeRatio(a.bgr, b.bgr, o.tolerance, o.region);
}

namespace {

// The shared loop: `threshold` is what counts as a change against `before`; `effect_timeout`
// how long to wait for it (negative: do not wait for a change, only for stillness).
Settle watch(const CaptureFn& capture, const Frame& before, double threshold, double effect_timeout,
             double total_timeout, const StabilityOptions& o) {
    Settle r;
    const double t0 = monotonicSeconds();
    double last_unrest = t0;     // last time consecutive captures differed beyond the noise
    Frame prev = before;
    for (;;) {
        const CancelToken& token = o.cancel ? *o.cancel : processToken();
        token.check();
        Frame f = capture();
        ++r.frames;
        const double now = monotonicSeconds();
        double vs_before = frameChange(before, f, o);
        r.change_ratio = std::max(r.change_ratio, vs_before);
        if (vs_before > threshold) r.changed = true;
        if (frameChange(prev, f, o) > o.noise_ratio) last_unrest = now;
        prev = std::move(f);
        const bool still = now - last_unrest >= o.settle_interval;
        if (effect_timeout < 0) {
            if (still) break;
        } else if (r.changed) {
            if (still) break;
        } else if (now - t0 >= effect_timeout) {
            break;  // no effect: nothing to settle
        }
        if (now - t0 >= total_timeout) {
            r.settled = false;
            break;
        }
        token.sleep(o.poll_interval);
    }
    r.ms = (monotonicSeconds() - t0) * 1000.0;
    r.frame = std::move(prev);
    return r;
}

}  // namespace

Settle waitEffectAndSettle(const CaptureFn& capture, const Frame& before, const StabilityOptions& o) {
    return watch(capture, before, o.noise_ratio, std::max(0.0, o.effect_timeout), o.settle_timeout, o);
}

Settle waitStable(const CaptureFn& capture, double timeout, const StabilityOptions& o) {
    Frame first = capture();
    return watch(capture, first, o.noise_ratio, -1, timeout, o);
}

Settle waitChange(const CaptureFn& capture, const Frame& before, double threshold, double timeout,
                  const StabilityOptions& o) {
    if (threshold < 0 || threshold > 1)
        throw std::invalid_argument("wait_change: expected a threshold in 0..1, got " + std::to_string(threshold));
    // Wait up to `timeout` for the change, then give the settle its own budget.
    return watch(capture, before, threshold, timeout, timeout + o.settle_timeout, o);
}

}  // namespace eacu
