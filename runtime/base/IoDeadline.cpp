#include "base/IoDeadline.h"

#include "base/Clock.h"

#include <algorithm>

namespace eacu {

namespace {

thread_local IoBound t_bound;

}  // namespace

IoDeadlineScope::IoDeadlineScope(double at, const CancelToken* token, std::string what) : saved_(t_bound) {
    if (at > 0 && (t_bound.at <= 0 || at < t_bound.at)) {
        t_bound.at = at;
        t_bound.what = std::move(what);
    }
    if (token) t_bound.token = token;
}

IoDeadlineScope IoDeadlineScope::in(double seconds, const CancelToken* token, const std::string& what) {
    return IoDeadlineScope(monotonicSeconds() + std::max(0.0, seconds), token, what);
}

IoDeadlineScope IoDeadlineScope::cleanup(double seconds, const std::string& what) {
    IoDeadlineScope s(0, nullptr, "");  // saves the outer bound
    t_bound = {monotonicSeconds() + std::max(0.0, seconds), nullptr, what, true};
    return s;
}

IoDeadlineScope::IoDeadlineScope(IoDeadlineScope&& other) noexcept : saved_(std::move(other.saved_)) {
    other.active_ = false;
}

IoDeadlineScope::~IoDeadlineScope() {
    if (active_) t_bound = std::move(saved_);
}

const IoBound& currentIoBound() { return t_bound; }

double ioWaitEnd(double own_timeout, std::string* limited_by, double least) {
    const double now = monotonicSeconds();
    double end = now + std::max(0.0, own_timeout);
    std::string by;
    const double bound = std::max(t_bound.at, now + std::max(kIoWaitFloor, least));
    if (t_bound.at > 0 && bound < end) {
        end = bound;
        by = t_bound.what;
    }
    if (t_bound.token) {
        double d = t_bound.token->deadline();
        if (d > 0 && d < end) {
            end = d;
            by = "the run's time limit";
        }
    }
    if (limited_by) *limited_by = by;
    return end;
}

void ioCheckCancel() {
    if (t_bound.token) t_bound.token->check();
    else if (!t_bound.cleanup && pendingSignal() != 0) throw Cancelled("cancelled", false);
}

}  // namespace eacu
