// Screen stability (vision/Stability): waitEffectAndSettle, waitStable and waitChange on a
// scripted screen, a CaptureFn that plays a sequence of frames, one per capture.
#include <catch2/catch.hpp>

#include <functional>

#include <opencv2/core.hpp>

#include "base/Cancel.h"
#include "vision/Stability.h"

using namespace eacu;

namespace {

constexpr int kW = 200, kH = 100;  // 20 000 pixels

// A grey screen; `changed` pixels of it (from the top-left, row by row) set to white.
cv::Mat screen(int changed = 0) {
    cv::Mat m(kH, kW, CV_8UC3, cv::Scalar(100, 100, 100));
    for (int i = 0; i < changed; ++i) m.at<cv::Vec3b>(i / kW, i % kW) = {255, 255, 255};
    return m;
}

Frame frame(const cv::Mat& m) {
    Frame f;
    f.bgr = m;
    f.monotonic = monotonicSeconds();
    return f;
}

// Plays `at(n)` for the n-th capture (0-based) and counts the captures.
struct ScriptedScreen {
    std::function<cv::Mat(int)> at;
    int captures = 0;
    CaptureFn fn() {
        return [this] { return frame(at(captures++)); };
    }
};

StabilityOptions fast() {
    StabilityOptions o;
    o.poll_interval = 0.01;
    o.settle_interval = 0.1;
    o.effect_timeout = 0.3;
    o.settle_timeout = 3.0;
    o.noise_ratio = 0.001;  // 20 pixels of the 20 000
    return o;
}

const cv::Mat kBefore = screen();
const cv::Mat kHalf = [] {  // the left half white: a change ratio of 0.5
    cv::Mat m = screen();
    m(cv::Rect(0, 0, kW / 2, kH)).setTo(cv::Scalar(255, 255, 255));
    return m;
}();

}  // namespace

TEST_CASE("frameChange: ratio of changed pixels, tolerance, region, size", "[stability]") {
    StabilityOptions o;
    CHECK(frameChange(frame(kBefore), frame(kBefore), o) == 0);
    CHECK(frameChange(frame(kBefore), frame(kHalf), o) == Approx(0.5));
    CHECK(frameChange(frame(kBefore), frame(screen(200)), o) == Approx(0.01));
    // Within the tolerance (15 grey levels) nothing changed; beyond it everything did.
    cv::Mat slight = kBefore + cv::Scalar(10, 10, 10), clear = kBefore + cv::Scalar(30, 30, 30);
    CHECK(frameChange(frame(kBefore), frame(slight), o) == 0);
    CHECK(frameChange(frame(kBefore), frame(clear), o) == Approx(1.0));
    // Only the region counts: the right half did not change.
    o.region = Rect{kW / 2, 0, kW / 2, kH};
    CHECK(frameChange(frame(kBefore), frame(kHalf), o) == 0);
    o.region = Rect{0, 0, kW / 4, kH};
    CHECK(frameChange(frame(kBefore), frame(kHalf), o) == Approx(1.0));
    // Another size is a full change.
    CHECK(frameChange(frame(kBefore), frame(cv::Mat(kH, kW + 1, CV_8UC3, cv::Scalar::all(100))), {}) == 1.0);
}

TEST_CASE("waitEffectAndSettle: no change ends after effect_timeout, unchanged and settled", "[stability]") {
    ScriptedScreen s{[](int) { return kBefore; }};
    StabilityOptions o = fast();
    Settle r = waitEffectAndSettle(s.fn(), frame(kBefore), o);
    CHECK_FALSE(r.changed);
    CHECK(r.settled);
    CHECK(r.change_ratio == 0);
    CHECK(r.ms >= o.effect_timeout * 1000);
    CHECK(r.ms < o.settle_timeout * 1000);
    CHECK(r.frames == s.captures);
    CHECK(r.frames >= 2);
    CHECK(cv::norm(r.frame.bgr, kBefore, cv::NORM_INF) == 0);
}

TEST_CASE("waitEffectAndSettle: a late change is seen, then waited out until still", "[stability]") {
    // The effect starts at the 6th capture and takes three captures to draw (a page loading).
    ScriptedScreen s{[](int n) {
        if (n < 5) return kBefore;
        if (n == 5) return screen(3000);
        if (n == 6) return screen(6000);
        return kHalf;
    }};
    StabilityOptions o = fast();
    o.effect_timeout = 10;  // long enough for any machine to reach the 6th capture
    Settle r = waitEffectAndSettle(s.fn(), frame(kBefore), o);
    CHECK(r.changed);
    CHECK(r.settled);
    CHECK(r.change_ratio == Approx(0.5));
    CHECK(cv::norm(r.frame.bgr, kHalf, cv::NORM_INF) == 0);  // the settled screen, not a step on the way
    CHECK(r.frames >= 8 + 1);  // the last change, then at least one more capture to see it still
    CHECK(r.ms >= o.settle_interval * 1000);
    CHECK(r.ms < o.effect_timeout * 1000);  // returned once still, not at a timeout
}

TEST_CASE("waitEffectAndSettle: a change after effect_timeout is not waited for", "[stability]") {
    ScriptedScreen s{[](int n) { return n < 100000 ? kBefore : kHalf; }};
    StabilityOptions o = fast();
    o.effect_timeout = 0.1;
    Settle r = waitEffectAndSettle(s.fn(), frame(kBefore), o);
    CHECK_FALSE(r.changed);
    CHECK(r.settled);
    CHECK(r.frames < 100000);
}

TEST_CASE("waitEffectAndSettle: noise at or below noise_ratio is neither effect nor unrest", "[stability]") {
    // A caret of 10 pixels blinking every capture (0.0005 of the screen; noise_ratio 0.001).
    ScriptedScreen caret{[](int n) { return n % 2 ? screen(10) : kBefore; }};
    StabilityOptions o = fast();
    Settle r = waitEffectAndSettle(caret.fn(), frame(kBefore), o);
    CHECK_FALSE(r.changed);
    CHECK(r.settled);
    CHECK(r.change_ratio == Approx(0.0005));
    CHECK(r.ms < o.settle_timeout * 1000);

    // Exactly at the ratio: still noise.
    ScriptedScreen edge{[](int n) { return n % 2 ? screen(20) : kBefore; }};
    r = waitEffectAndSettle(edge.fn(), frame(kBefore), o);
    CHECK_FALSE(r.changed);
    CHECK(r.settled);

    // A flicker of 30 pixels is more than noise: an effect that never settles.
    ScriptedScreen flicker{[](int n) { return n % 2 ? screen(30) : kBefore; }};
    o.settle_timeout = 0.5;
    r = waitEffectAndSettle(flicker.fn(), frame(kBefore), o);
    CHECK(r.changed);
    CHECK_FALSE(r.settled);
    CHECK(r.change_ratio == Approx(0.0015));
}

TEST_CASE("waitEffectAndSettle: a screen that never settles ends at settle_timeout", "[stability]") {
    // Every capture differs from the one before (an animation).
    ScriptedScreen anim{[](int n) { return screen(1000 + (n % 2) * 1000); }};
    StabilityOptions o = fast();
    o.settle_timeout = 0.4;
    Settle r = waitEffectAndSettle(anim.fn(), frame(kBefore), o);
    CHECK(r.changed);
    CHECK_FALSE(r.settled);
    CHECK(r.ms >= o.settle_timeout * 1000);
    CHECK(r.change_ratio == Approx(0.1));
    CHECK(r.frames == anim.captures);
}

TEST_CASE("waitEffectAndSettle: a resized screen is a full change", "[stability]") {
    cv::Mat bigger(kH * 2, kW * 2, CV_8UC3, cv::Scalar::all(100));
    ScriptedScreen s{[&](int) { return bigger; }};
    Settle r = waitEffectAndSettle(s.fn(), frame(kBefore), fast());
    CHECK(r.changed);
    CHECK(r.settled);
    CHECK(r.change_ratio == 1.0);
    CHECK(r.frame.width() == kW * 2);
}

TEST_CASE("Stability waits stop when their cancel token is cancelled", "[stability]") {
    StabilityOptions o = fast();
    o.settle_timeout = 30;
    CancelToken token;
    o.cancel = &token;

    // Cancelled during the wait (by the 3rd capture) on a screen that never settles: Cancelled,
    // and no capture after it.
    ScriptedScreen anim{[&](int n) {
        if (n == 2) token.cancel("stopped by the test");
        return screen(1000 + (n % 2) * 1000);
    }};
    const double t0 = monotonicSeconds();
    try {
        waitEffectAndSettle(anim.fn(), frame(kBefore), o);
        FAIL("waitEffectAndSettle was not cancelled");
    } catch (const Cancelled& e) {
        CHECK(std::string(e.what()) == "cancelled");
        CHECK_FALSE(e.timeout);
        CHECK(token.reason() == "stopped by the test");
    }
    CHECK(anim.captures == 3);
    CHECK(monotonicSeconds() - t0 < 10);

    // Already cancelled: nothing is captured.
    ScriptedScreen still{[](int) { return kBefore; }};
    CHECK_THROWS_AS(waitEffectAndSettle(still.fn(), frame(kBefore), o), Cancelled);
    CHECK_THROWS_AS(waitChange(still.fn(), frame(kBefore), 0.02, 5, o), Cancelled);
    CHECK(still.captures == 0);

    // A deadline on the token ends a wait that would last longer, as a timeout.
    CancelToken limited;
    limited.setDeadline(monotonicSeconds() + 0.3, "the run's time limit is reached");
    o.cancel = &limited;
    ScriptedScreen anim2{[](int n) { return screen(1000 + (n % 2) * 1000); }};
    try {
        waitStable(anim2.fn(), 30, o);
        FAIL("waitStable was not stopped by the deadline");
    } catch (const Cancelled& e) {
        CHECK(e.timeout);
        CHECK(std::string(e.what()) == "the run's time limit is reached");
    }
}

TEST_CASE("waitStable: waits out a change, or gives up at its timeout", "[stability]") {
    StabilityOptions o = fast();
    // Still from the start: returns after settle_interval.
    ScriptedScreen still{[](int) { return kBefore; }};
    Settle r = waitStable(still.fn(), 5, o);
    CHECK(r.settled);
    CHECK_FALSE(r.changed);
    CHECK(r.change_ratio == 0);
    CHECK(r.ms >= o.settle_interval * 1000);
    CHECK(r.ms < 5000);

    // Moving for the first five captures, then still on a screen half changed against the first.
    ScriptedScreen moving{[](int n) { return n < 5 ? screen(n * 1000) : kHalf; }};
    r = waitStable(moving.fn(), 10, o);
    CHECK(r.settled);
    CHECK(r.changed);
    CHECK(r.change_ratio == Approx(0.5));
    CHECK(cv::norm(r.frame.bgr, kHalf, cv::NORM_INF) == 0);
    CHECK(moving.captures >= 7);

    // Never still: settled false once the timeout passed.
    ScriptedScreen anim{[](int n) { return screen(1000 + (n % 2) * 1000); }};
    r = waitStable(anim.fn(), 0.3, o);
    CHECK_FALSE(r.settled);
    CHECK(r.ms >= 300);
}

TEST_CASE("waitChange: only a change beyond the threshold counts, inside the region", "[stability]") {
    StabilityOptions o = fast();
    // 1 % changed: more than noise, less than the 2 % asked for.
    ScriptedScreen small{[](int n) { return n < 3 ? kBefore : screen(200); }};
    Settle r = waitChange(small.fn(), frame(kBefore), 0.02, 0.3, o);
    CHECK_FALSE(r.changed);
    CHECK(r.change_ratio == Approx(0.01));
    CHECK(r.ms >= 300);

    // Half the screen, from the 4th capture on: changed, then settled.
    ScriptedScreen big{[](int n) { return n < 3 ? kBefore : kHalf; }};
    r = waitChange(big.fn(), frame(kBefore), 0.02, 10, o);
    CHECK(r.changed);
    CHECK(r.settled);
    CHECK(r.change_ratio == Approx(0.5));
    CHECK(r.ms < 10000);

    // The same change outside the region is none.
    o.region = Rect{kW / 2, 0, kW / 2, kH};
    ScriptedScreen outside{[](int n) { return n < 3 ? kBefore : kHalf; }};
    r = waitChange(outside.fn(), frame(kBefore), 0.02, 0.3, o);
    CHECK_FALSE(r.changed);
    CHECK(r.change_ratio == 0);

    // Threshold 0 takes any change beyond the tolerance, even noise-sized.
    o.region.reset();
    ScriptedScreen caret{[](int n) { return n < 3 ? kBefore : screen(5); }};
    r = waitChange(caret.fn(), frame(kBefore), 0, 10, o);
    CHECK(r.changed);

    CHECK_THROWS_WITH(waitChange(small.fn(), frame(kBefore), -0.1, 1, o),
                      Catch::StartsWith("wait_change: expected a threshold in 0..1, got -0.1"));
    CHECK_THROWS_AS(waitChange(small.fn(), frame(kBefore), 1.5, 1, o), std::invalid_argument);
}
