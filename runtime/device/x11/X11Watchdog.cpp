#include "device/x11/X11Watchdog.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>

#include "base/Clock.h"

namespace eacu {

DeviceWait x11Wait(const std::string& display, const std::string& operation) {
    constexpr double kOwnTimeout = 30;
    return DeviceWait(display, operation, kOwnTimeout);
}

X11Watchdog::X11Watchdog(int fd) : fd_(fd), thread_([this] { loop(); }) {}

X11Watchdog::~X11Watchdog() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void X11Watchdog::arm(const DeviceWait& wait) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        armed_.push_back(wait);
    }
    cv_.notify_all();
}

void X11Watchdog::disarm() {
    std::lock_guard<std::mutex> lk(mu_);
    if (!armed_.empty()) armed_.pop_back();
}

std::optional<DeviceStalled> X11Watchdog::stalled() const {
    std::lock_guard<std::mutex> lk(mu_);
    return fired_;
}

void X11Watchdog::throwIfFired() const {
    std::optional<DeviceStalled> fired = stalled();
    if (!fired) return;
    ioCheckCancel();
    throw *fired;
}

void X11Watchdog::loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!stop_) {
        if (armed_.empty() || fired_) {
            cv_.wait(lk);
            continue;
        }
        const DeviceWait& first = *std::min_element(
            armed_.begin(), armed_.end(), [](const DeviceWait& a, const DeviceWait& b) { return a.end() < b.end(); });
        const double left = first.end() - monotonicSeconds();
        if (left > 0) {
            // Woken early by arm/disarm/stop, or every 50 ms (the run's token is not seen here:
            // a stop waits for the call's bound, which the step engine keeps short).
            cv_.wait_for(lk, std::chrono::duration<double>(std::min(left, 0.05)));
            continue;
        }
        fired_ = first.expired();
        ::shutdown(fd_, SHUT_RDWR);
    }
}

}  // namespace eacu
