// ScreenHistory (recorder/ScreenHistory.h) keeps capturing through failures: a device that fails
// for a while (a page between two documents, a phone that rebooted) is tried again, with a
// growing wait, until stop(). A tree is kept as a screen's only when the screen as it is after
// the read (Device::captureCurrent) still shows it, not a video stream's older picture.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "NullDevice.h"
#include "base/Clock.h"
#include "device/Accessibility.h"
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

namespace {

// A phone whose video stream lags: the screen turns from the list (grey 40) to the chat (grey
// 200) at `switch_at`; capture() gives the stream's picture, the list until `stream_at` (1 s
// later) unless a raw frame showed the chat (as AdbDevice's); captureCurrent() and the tree
// give the screen as it is.
class LaggingStream : public NullDevice, public Accessibility {
public:
    LaggingStream() : switch_at(monotonicSeconds() + 0.3), stream_at(switch_at + 1.0) {}
    std::string describe() const override { return "lagging"; }
    Frame capture() override {
        const double now = monotonicSeconds();
        if (now >= stream_at + 0.2) {
            std::lock_guard<std::mutex> lock(mu_);
            caught_up_ = true;
            cv_.notify_all();
        }
        return screen(raw_chat_ || now >= stream_at);
    }
    /// Waits up to `timeout` seconds for a capture 0.2 s after the stream caught up.
    bool waitCaughtUp(double timeout) {
        std::unique_lock<std::mutex> lock(mu_);
        return cv_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return caught_up_; });
    }
    Frame captureCurrent() override {
        raw_chat_ = chat();
        return screen(raw_chat_);
    }
    Accessibility& accessibility() override { return *this; }
    A11yElement snapshot(const A11yScope&) override {
        A11yElement root;
        root.role = "frame";
        root.name = chat() ? "chat" : "list";
        return root;
    }
    void doAction(const A11yElement&, const std::string&) override {}
    void setText(const A11yElement&, const std::string&) override {}
    bool chat() const { return monotonicSeconds() >= switch_at; }

    const double switch_at, stream_at;

private:
    std::atomic<bool> raw_chat_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    bool caught_up_ = false;
    static Frame screen(bool chat) { return stamped(cv::Mat(48, 64, CV_8UC3, cv::Scalar::all(chat ? 200 : 40))); }
};

}  // namespace

TEST_CASE("a screen history never pairs a stream's older picture with a newer screen's tree", "[recorder]") {
    LaggingStream device;
    ScreenHistory history(device, true, 0.01, 1000);  // every screen kept: they are looked at after
    REQUIRE(history.waitFirst(10));
    REQUIRE(device.waitCaughtUp(10));
    history.stop();
    // Every state kept, newest to oldest: a screen's tree is its own (or not claimed).
    std::shared_ptr<const ScreenState> chat_on_frame;
    int states = 0;
    for (std::shared_ptr<const ScreenState> s = history.latest(); s; ++states) {
        REQUIRE(s->tree);
        const bool chat_frame = s->frame.bgr.at<cv::Vec3b>(0, 0)[0] == 200;
        if (s->tree_on_frame) {
            INFO("frame " << (chat_frame ? "chat" : "list") << ", tree " << s->tree->name);
            CHECK(s->tree->name == (chat_frame ? "chat" : "list"));
            if (chat_frame && (!chat_on_frame || s->seen < chat_on_frame->seen)) chat_on_frame = s;
        }
        std::shared_ptr<const ScreenState> older = history.before(s->seen);
        s = older && older->seen < s->seen ? older : nullptr;
    }
    CHECK(states >= 2);  // the list, then the chat
    // The chat was kept with its tree before the stream showed it (from the raw frame).
    REQUIRE(chat_on_frame);
    CHECK(chat_on_frame->seen < device.stream_at);
}
