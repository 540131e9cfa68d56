#include "task/Cancel.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "device/Frame.h"

namespace eacu {

static std::atomic<bool> g_cancel{false};

void requestCancel() { g_cancel.store(true); }
void clearCancel() { g_cancel.store(false); }
bool cancelRequested() { return g_cancel.load(); }

void sleepCancellable(double seconds) {
    double end = monotonicSeconds() + seconds;
    for (;;) {
        if (cancelRequested()) throw std::runtime_error("cancelled");
        double left = end - monotonicSeconds();
        if (left <= 0) return;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
    }
}

}  // namespace eacu
