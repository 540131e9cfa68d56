// Session: the screen waits (effect and settle, change, stability), recorded as steps.
#include "step/Session.h"

#include <nlohmann/json.hpp>

#include "base/Format.h"

namespace eacu {

StabilityOptions Session::stability() const {
    StabilityOptions o;
    o.tolerance = options_.change_tolerance;
    o.noise_ratio = options_.noise_ratio;
    o.effect_timeout = options_.effect_timeout;
    o.settle_interval = options_.settle_interval;
    o.settle_timeout = options_.settle_timeout;
    o.poll_interval = options_.poll_interval;
    o.cancel = options_.cancel.get();
    return o;
}

Settle Session::waitSettled(const Frame& before) {
    return waitEffectAndSettle([this] { return device_.capture(); }, before, stability());
}

Settle Session::waitChange(std::optional<Rect> region, double threshold, double timeout) {
    if (timeout < 0) timeout = options_.find_timeout;
    StepRecord s = newStep("wait_change", nullptr);
    StabilityOptions o = stability();
    o.region = region;
    s.target = region ? region->str() : "screen";
    s.method = "diff";
    s.threshold = threshold;
    Frame before = device_.capture();
    Settle st = eacu::waitChange([this] { return device_.capture(); }, before, threshold, timeout, o);
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    s.params_json = nlohmann::json{{"changed", st.changed}, {"settled", st.settled}, {"frames", st.frames},
                                   {"timeout", timeout}}.dump();
    if (auto id = saveFrame(before)) s.frame_before = id;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    if (!st.changed) {
        s.status = "failed";
        s.error = "wait_change " + s.target + ": no change above " + fixed(threshold, 4) + " within " +
                  fixed(timeout, 1) + " s: the largest change was " + fixed(st.change_ratio, 4);
        int64_t id = commit(s);
        throw StepError(failure::kNoEffect, s.error, id, s.frame_after.value_or(0));
    }
    commit(s);
    return st;
}

Settle Session::waitStable(double timeout) {
    if (timeout < 0) timeout = options_.settle_timeout;
    StepRecord s = newStep("wait_stable", nullptr);
    s.target = "screen";
    s.method = "diff";
    Settle st = eacu::waitStable([this] { return device_.capture(); }, timeout, stability());
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    if (!st.settled) {
        s.status = "failed";
        s.error = "wait_stable: the screen kept changing for " + fixed(timeout, 1) + " s (largest change " +
                  fixed(st.change_ratio, 4) + ")";
        int64_t id = commit(s);
        throw StepError(failure::kFailed, s.error, id, s.frame_after.value_or(0));
    }
    commit(s);
    return st;
}

}  // namespace eacu
