#include "base/Cancel.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>

#include "base/Clock.h"

namespace eacu {
namespace {

volatile std::sig_atomic_t g_signal = 0;

}  // namespace

void CancelToken::cancel(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!cancelled_.load()) reason_ = reason;
    cancelled_.store(true);
}

void CancelToken::setDeadline(double at, const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    deadline_message_ = message;
    deadline_.store(at > 0 ? at : 0);
}

bool CancelToken::timedOut() const {
    double d = deadline_.load();
    return !cancelled_.load() && d > 0 && monotonicSeconds() >= d;
}

bool CancelToken::cancelled() const { return cancelled_.load() || g_signal != 0 || timedOut(); }

std::string CancelToken::reason() const {
    if (cancelled_.load()) {
        std::lock_guard<std::mutex> lock(mu_);
        return reason_;
    }
    if (g_signal != 0) return "signal " + std::to_string(int(g_signal));
    if (timedOut()) {
        std::lock_guard<std::mutex> lock(mu_);
        return deadline_message_;
    }
    return "";
}

void CancelToken::check() const {
    if (cancelled_.load() || g_signal != 0) throw Cancelled("cancelled", false);
    if (timedOut()) {
        std::lock_guard<std::mutex> lock(mu_);
        throw Cancelled(deadline_message_.empty() ? "timeout" : deadline_message_, true);
    }
}

void CancelToken::sleep(double seconds) const {
    double end = monotonicSeconds() + seconds;
    for (;;) {
        check();
        double left = end - monotonicSeconds();
        if (left <= 0) return;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
    }
}

CancelToken& processToken() {
    static CancelToken token;
    return token;
}

void cancelAllFromSignal(int signo) { g_signal = signo; }
int pendingSignal() { return int(g_signal); }
void clearPendingSignal() { g_signal = 0; }

}  // namespace eacu
