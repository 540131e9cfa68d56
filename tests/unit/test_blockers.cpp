// Blockers: the registered set (step/Blockers) and how a session handles them on a real
// screenshot (an ImageDevice over tests/fixtures/xcalc.png: input is logged, not sent).
#include <catch2/catch.hpp>

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "TempDir.h"
#include "assets/AssetLibrary.h"
#include "device/image/ImageDevice.h"
#include "step/Blockers.h"
#include "step/Session.h"
#include "step/StepError.h"
#include "vision/Locator.h"

using namespace eacu;
using eacu::test::TempDir;

namespace {

TargetSpec image(const std::string& name) {
    TargetSpec t;
    t.label = "\"" + name + "\"";
    t.image = name;
    return t;
}

Blocker blocker(const std::string& name, const TargetSpec& target) {
    Blocker b;
    b.name = name;
    b.target = target;
    return b;
}

std::vector<std::string> names(const BlockerSet& s) {
    std::vector<std::string> out;
    for (const auto& b : s.list()) out.push_back(b.name);
    return out;
}

// A session on the xcalc screenshot with short waits (nothing on it ever changes).
struct Screen {
    ImageDevice device{EACU_FIXTURES "/xcalc.png"};
    AssetLibrary assets = AssetLibrary::loadFrom(EACU_SOURCE_DIR);
    Locator locator;
    TempDir dir;
    std::string absent;  // an image that is not on the screen (noise)
    Session session;

    static SessionOptions options() {
        SessionOptions o;
        o.find_timeout = 0;
        o.effect_timeout = 0.05;
        o.settle_timeout = 0.3;
        o.tap_retries = 0;
        o.blocker_interval = 0.05;
        o.limits = {};
        return o;
    }
    Screen() : session(device, assets, locator, nullptr, 0, options()) {
        cv::Mat noise(30, 30, CV_8UC3);
        cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(255));
        absent = dir / "absent.png";
        REQUIRE(cv::imwrite(absent, noise));
    }
    // The absent image, looked for in a corner only (a quick look, as often as a wait likes).
    TargetSpec absentTarget() const {
        TargetSpec t = image(absent);
        t.region = std::array<double, 4>{0, 0, 120, 120};
        return t;
    }
    size_t count(const std::string& event) const {
        const auto& e = device.events();
        return size_t(std::count(e.begin(), e.end(), event));
    }
};

constexpr const char* kEscape = "key Escape";  // the image device logs device-neutral key names
constexpr const char* kReturn = "key Return";

}  // namespace

TEST_CASE("BlockerSet: add in order, replace by name, remove", "[blockers]") {
    BlockerSet s;
    CHECK(s.empty());
    s.add(blocker("update", image("update_dialog")));
    s.add(blocker("ad", image("ad_banner")));
    CHECK(names(s) == std::vector<std::string>{"update", "ad"});

    // The same name replaces the blocker in its place (and its count starts again).
    s.list()[0].handled = 3;
    Blocker again = blocker("update", image("update_v2"));
    again.kind = "dialog";
    again.key = "Return";
    s.add(again);
    CHECK(names(s) == std::vector<std::string>{"update", "ad"});
    CHECK(*s.list()[0].target.image == "update_v2");
    CHECK(s.list()[0].kind == "dialog");
    CHECK(s.list()[0].key == "Return");
    CHECK(s.list()[0].handled == 0);

    CHECK(s.remove("update"));
    CHECK_FALSE(s.remove("update"));
    CHECK(names(s) == std::vector<std::string>{"ad"});
    CHECK(s.remove("ad"));
    CHECK(s.empty());
}

TEST_CASE("BlockerSet: names and kinds are checked", "[blockers]") {
    for (const char* kind : {"popup", "dialog", "permission", "ad", "error", "loading", "keyboard", "unknown"})
        CHECK_NOTHROW(checkBlockerKind(kind));
    CHECK_THROWS_WITH(checkBlockerKind("banner"),
                      "blocker kind: expected popup|dialog|permission|ad|error|loading|keyboard|unknown, got \"banner\"");
    CHECK_THROWS_AS(checkBlockerKind(""), std::invalid_argument);
    CHECK_THROWS_AS(checkBlockerKind("Popup"), std::invalid_argument);

    BlockerSet s;
    CHECK(blocker("x", image("y")).kind == "popup");  // the default kind
    CHECK_THROWS_WITH(s.add(blocker("", image("y"))), "on_blocker: expected a blocker name, got an empty string");
    Blocker bad = blocker("x", image("y"));
    bad.kind = "toast";
    CHECK_THROWS_AS(s.add(bad), std::invalid_argument);
    CHECK(s.empty());  // nothing added by a refused blocker
    // A refused replacement leaves the registered blocker as it was.
    s.add(blocker("x", image("y")));
    CHECK_THROWS_AS(s.add(bad), std::invalid_argument);
    CHECK(s.list()[0].kind == "popup");
}

TEST_CASE("Session: a blocker on screen is handled, one absent is not", "[blockers]") {
    Screen scr;
    Session& s = scr.session;
    CHECK(s.handleBlockers("nothing registered").empty());

    s.blockers().add(blocker("absent", scr.absentTarget()));
    CHECK(s.handleBlockers("ctx").empty());
    CHECK(s.blockers().list()[0].handled == 0);
    CHECK(scr.device.events().empty());

    // With no dismiss, key or handler: Escape. The first registered blocker on screen wins.
    s.blockers().add(blocker("clear_key", image("calculator.btn_clear")));
    Blocker second = blocker("one_key", image("calculator.btn_1"));
    second.key = "Return";
    s.blockers().add(second);
    CHECK(s.handleBlockers("ctx") == "clear_key");
    CHECK(scr.count(kEscape) == 1);
    CHECK(scr.count(kReturn) == 0);
    CHECK(s.blockers().list()[1].handled == 1);
    CHECK(s.blockers().list()[2].handled == 0);

    // Its own key, once the first may not be handled any more.
    s.blockers().list()[1].max_handled = 1;
    CHECK(s.handleBlockers("ctx") == "one_key");
    CHECK(scr.count(kReturn) == 1);
    CHECK(scr.count(kEscape) == 1);
}

TEST_CASE("Session: a blocker's dismiss target is tapped; max_handled bounds a blocker that stays", "[blockers]") {
    Screen scr;
    Session& s = scr.session;
    Blocker b = blocker("stays", image("calculator.btn_clear"));
    b.dismiss = image("calculator.btn_1");
    b.max_handled = 2;
    s.blockers().add(b);
    Match one = s.locate(image("calculator.btn_1"));
    REQUIRE(one.found);
    const std::string click = "click 1 x1 at " + std::to_string(one.target.x) + "," + std::to_string(one.target.y);

    CHECK(s.handleBlockers("a") == "stays");
    CHECK(s.handleBlockers("b") == "stays");
    CHECK(s.handleBlockers("c").empty());  // handled twice: left alone from now on
    CHECK(s.blockers().list()[0].handled == 2);
    CHECK(scr.count(click) == 2);
    CHECK(scr.count(kEscape) == 0);
}

TEST_CASE("Session: a blocker's handler gets the match, cannot recurse, and may fail", "[blockers]") {
    Screen scr;
    Session& s = scr.session;
    Match clear = s.locate(image("calculator.btn_clear"));
    REQUIRE(clear.found);

    Match seen;
    std::string inner = "not called";
    bool fail = false;
    Blocker b = blocker("handled", image("calculator.btn_clear"));
    b.handler = [&](const Match& m) {
        seen = m;
        inner = s.handleBlockers("inside a handler");  // blockers are off while one is handled
        if (fail) throw std::runtime_error("handler failed");
    };
    s.blockers().add(b);
    CHECK(s.handleBlockers("ctx") == "handled");
    CHECK(seen.found);
    CHECK(seen.box.x == clear.box.x);
    CHECK(seen.box.y == clear.box.y);
    CHECK(seen.box.w == clear.box.w);
    CHECK(inner.empty());
    CHECK(scr.count(kEscape) == 0);  // the handler replaces the key

    fail = true;
    CHECK_THROWS_WITH(s.handleBlockers("ctx"), "handler failed");
    CHECK(s.blockers().list()[0].handled == 1);  // a failed handling is not counted
    fail = false;
    inner = "not called";
    CHECK(s.handleBlockers("ctx") == "handled");  // blockers are on again after the failure
    CHECK(inner.empty());
    CHECK(s.blockers().list()[0].handled == 2);
}

TEST_CASE("Session: a wait handles a blocker while its target is missing, up to max_handled", "[blockers]") {
    Screen scr;
    Session& s = scr.session;
    Blocker b = blocker("stays", image("calculator.btn_clear"));
    b.max_handled = 1;
    s.blockers().add(b);
    CHECK_THROWS_AS(s.wait(scr.absentTarget(), 0.5), StepError);
    CHECK(s.blockers().list()[0].handled == 1);
    CHECK(scr.count(kEscape) == 1);

    // With no max_handled a blocker that never goes away is handled a bounded number of
    // times per wait, and the wait still ends when its time is up.
    s.blockers().list()[0].max_handled = 0;
    const int before = s.blockers().list()[0].handled;
    CHECK_THROWS_AS(s.wait(scr.absentTarget(), 0.5), StepError);
    const int during = s.blockers().list()[0].handled - before;
    CHECK(during >= 1);
    CHECK(during <= 10);

    // A target that is on screen is found without handling anything.
    const int handled = s.blockers().list()[0].handled;
    CHECK(s.wait(image("calculator.btn_1"), 0.5).found);
    CHECK(s.blockers().list()[0].handled == handled);
}
