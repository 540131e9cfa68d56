// The one action path (runtime/step/ActionExecutor) on a scripted device whose screen redraws
// a set time after each click: a redraw slower than the effect wait is a late effect, recorded
// as such, and the tap is not pressed again; a tap that never changes anything is pressed again
// a few pixels off, inside the target's box; the run's action limit refuses an input before it
// is sent.
#include <catch2/catch.hpp>

#include <memory>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "NullDevice.h"
#include "TempDir.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "runlog/RunLog.h"
#include "step/ActionExecutor.h"
#include "step/Session.h"
#include "step/StepError.h"
#include "vision/Locator.h"

using namespace eacu;

namespace {

// A grey screen that draws a white block `redraw_delay` seconds after each click (never, when
// negative). Clicks and where they landed are counted.
class SlowRedrawDevice : public NullDevice {
public:
    explicit SlowRedrawDevice(double redraw_delay) : delay_(redraw_delay) {}
    std::string describe() const override { return "slow-redraw"; }
    Size screenSize() const override { return {320, 240}; }
    Frame capture() override {
        cv::Mat bgr(240, 320, CV_8UC3, cv::Scalar(90, 90, 90));
        if (delay_ >= 0 && clicked_at_ > 0 && monotonicSeconds() >= clicked_at_ + delay_)
            cv::rectangle(bgr, cv::Rect(100, 80, 120, 80), cv::Scalar(255, 255, 255), cv::FILLED);
        return stamped(bgr);
    }
    void click(MouseButton, int) override {
        ++clicks;
        points.push_back(cursor_);
        if (clicked_at_ <= 0) clicked_at_ = monotonicSeconds();
    }

    int clicks = 0;
    std::vector<Point> points;

private:
    double delay_;
    double clicked_at_ = 0;
};

struct Fixture {
    test::TempDir dir;
    SlowRedrawDevice device;
    AssetLibrary assets;
    Locator locator;
    std::unique_ptr<RunLog> log;
    int64_t run_id = 0;
    std::unique_ptr<Session> session;

    // The effect wait is 0.1 s; a redraw after that and within late_effect_timeout is late.
    explicit Fixture(double redraw_delay, RunLimits limits = {}) : device(redraw_delay) {
        log = std::make_unique<RunLog>(dir / "runs.db");
        RunRecord rec;
        rec.script = "test_action_executor";
        run_id = log->beginRun(rec);
        SessionOptions o;
        o.effect_timeout = 0.1;
        o.settle_interval = 0.05;
        o.settle_timeout = 1.0;
        o.late_effect_timeout = 1.5;
        o.tap_retries = 2;
        o.jitter = 3;
        o.limits = limits;
        session = std::make_unique<Session>(device, assets, locator, log.get(), run_id, o);
    }

    InputAction tap() const {
        InputAction a;
        a.action = "tap";
        a.target = "\"block\"";
        a.at = Point{160, 120};
        a.box = Rect{150, 110, 20, 20};
        return a;
    }
    nlohmann::json params(int64_t step_id) const {
        for (const StepRecord& r : log->steps(run_id))
            if (r.id == step_id) return nlohmann::json::parse(r.params_json);
        return nullptr;
    }
};

}  // namespace

TEST_CASE("ActionExecutor: a redraw slower than the effect wait is a late effect, never pressed twice",
          "[executor]") {
    Fixture f(0.5);  // five times the effect wait, within late_effect_timeout
    InputResult r = f.session->executor().perform(f.tap());
    CHECK(f.device.clicks == 1);
    CHECK(r.late_effect);
    CHECK(r.retries == 0);
    CHECK(r.settle.changed);
    nlohmann::json p = f.params(r.step_id);
    REQUIRE(p.is_object());
    CHECK(p.value("late_effect", false));
    CHECK(p.value("effect", "") == "changed");
    CHECK(p.value("retries", -1) == 0);
}

TEST_CASE("ActionExecutor: a prompt redraw is no late effect", "[executor]") {
    Fixture f(0.0);
    InputResult r = f.session->executor().perform(f.tap());
    CHECK(f.device.clicks == 1);
    CHECK_FALSE(r.late_effect);
    CHECK(r.settle.changed);
    CHECK_FALSE(f.params(r.step_id).contains("late_effect"));
}

TEST_CASE("ActionExecutor: a tap that changes nothing is pressed again a few pixels off, inside its box",
          "[executor]") {
    Fixture f(-1);  // never redraws
    InputResult r = f.session->executor().perform(f.tap());
    CHECK(f.device.clicks == 3);  // the tap and tap_retries = 2 more
    CHECK(r.retries == 2);
    CHECK_FALSE(r.settle.changed);
    REQUIRE(f.device.points.size() == 3);
    CHECK(f.device.points[0] == Point{160, 120});
    for (size_t i = 1; i < f.device.points.size(); ++i) {
        INFO("press " << i << " at " << f.device.points[i].x << "," << f.device.points[i].y);
        CHECK(f.device.points[i] != Point{160, 120});
        CHECK(Rect{150, 110, 20, 20}.contains(f.device.points[i]));
    }
    nlohmann::json p = f.params(r.step_id);
    CHECK(p.value("effect", "") == "none");
    CHECK(p["retried_at"].size() == 2);
}

namespace {

// A 640x480 grey screen with a check box: each click toggles a 3x3 mark inside the box at
// 158,118 (9 px: under the screen's noise ratio, 0.00005 of 307,200 px = 15 px).
class CheckBoxDevice : public NullDevice {
public:
    std::string describe() const override { return "check-box"; }
    Size screenSize() const override { return {640, 480}; }
    Frame capture() override {
        cv::Mat bgr(480, 640, CV_8UC3, cv::Scalar(90, 90, 90));
        if (clicks % 2) cv::rectangle(bgr, cv::Rect(158, 118, 3, 3), cv::Scalar(0, 0, 0), cv::FILLED);
        return stamped(bgr);
    }
    void click(MouseButton, int) override { ++clicks; }
    int clicks = 0;
};

}  // namespace

TEST_CASE("ActionExecutor: a tap whose small effect is drawn inside its target is not pressed again (a check box)",
          "[executor]") {
    test::TempDir dir;
    CheckBoxDevice device;
    AssetLibrary assets;
    Locator locator;
    RunLog log(dir / "runs.db");
    RunRecord rec;
    rec.script = "test_action_executor";
    const int64_t run = log.beginRun(rec);
    SessionOptions o;
    o.effect_timeout = 0.1;
    o.settle_interval = 0.05;
    o.settle_timeout = 1.0;
    o.late_effect_timeout = 0.2;
    o.tap_retries = 2;
    Session session(device, assets, locator, &log, run, o);
    InputAction a;
    a.action = "tap";
    a.target = "\"check box\"";
    a.at = Point{160, 120};
    a.box = Rect{150, 110, 20, 20};
    InputResult r = session.executor().perform(a);
    CHECK(device.clicks == 1);  // ticked once, not ticked and unticked
    CHECK(r.retries == 0);
    CHECK(r.settle.changed);
    for (const StepRecord& s : log.steps(run))
        if (s.id == r.step_id) CHECK(nlohmann::json::parse(s.params_json).value("effect_in_target", 0) == 9);
}

TEST_CASE("ActionExecutor: the run's action limit refuses an input before it is sent", "[executor]") {
    Fixture f(0.0, RunLimits{1, 0});
    f.session->executor().perform(f.tap());
    CHECK(f.device.clicks == 1);
    try {
        f.session->executor().perform(f.tap());
        FAIL("the second input passed a limit of 1 action");
    } catch (const StepError& e) {
        CHECK(e.code == "limit");
        CHECK_THAT(std::string(e.what()), Catch::Contains("the run's limit of 1 actions is reached"));
    }
    CHECK(f.device.clicks == 1);
}
