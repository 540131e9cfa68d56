// ScreenHistory (recorder/ScreenHistory.h) keeps capturing through failures: a device that fails
// for a while (a page between two documents, a phone that rebooted) is tried again, with a
// growing wait, until stop().
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "NullDevice.h"
#include "base/Clock.h"
#include "recorder/ScreenHistory.h"

using namespace eacu;

namespace {

// A 64x48 screen whose first `failures` captures throw DeviceError.
class FlakyDevice : public NullDevice {
public:
    explicit FlakyDevice(int failures) : failures_(failures) {}
    std::string describe() const override { return "flaky"; }
    Frame capture() override {
        ++calls;
        if (failures_-- > 0) throw DeviceError("flaky: no screen just now");
        return stamped(cv::Mat(48, 64, CV_8UC3, cv::Scalar(10, 20, 30)));
    }

    std::atomic<int> calls{0};

private:
    std::atomic<int> failures_;
};

}  // namespace

TEST_CASE("a screen history tries a failing capture again until it succeeds", "[recorder]") {
    FlakyDevice device(4);  // waits 0.01 + 0.02 + 0.04 + 0.08 s
    ScreenHistory history(device, false, 0.01);
    REQUIRE(history.waitFirst(10));
    CHECK(device.calls >= 5);
    CHECK(history.error().empty());
    CHECK(history.failingFor() == 0);
    CHECK(history.latest()->frame.width() == 64);
}

TEST_CASE("a screen history whose capture keeps failing says why and stops at once", "[recorder]") {
    FlakyDevice device(1 << 30);
    ScreenHistory history(device, false, 0.01);
    CHECK_FALSE(history.waitFirst(1.5));
    CHECK(history.error() == "flaky: no screen just now");
    CHECK(history.failingFor() > 1);
    // Backoff: 0.01 doubling to 1 s leaves ~8 tries in 1.5 s, not 150.
    CHECK(device.calls < 15);
    const double t0 = monotonicSeconds();
    history.stop();  // cuts the backoff's wait short
    CHECK(monotonicSeconds() - t0 < 0.5);
}
