// The person's input from eacu serve's page (runtime/run/UserInput): events become InputActions
// with actor "user" (or a message saying what was expected and what came), and are performed
// through the session's one executor: recorded as steps with actor "user", frames before and
// after and params.sent_at, outside the run's action limit, passing no step boundary.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ImageSession.h"
#include "step/StepError.h"
#include "run/UserInput.h"

using namespace eacu;
using json = nlohmann::json;

TEST_CASE("userInputAction: each kind of event", "[serve][input]") {
    const Size screen{800, 600};
    InputAction a = userInputAction(json{{"kind", "click"}, {"x", 10}, {"y", 20}}, screen);
    CHECK(a.action == "tap");
    CHECK(a.actor == "user");
    CHECK(a.at == Point{10, 20});
    CHECK(a.count == 1);
    a = userInputAction(json{{"kind", "double_click"}, {"x", 10.4}, {"y", 20.6}}, screen);
    CHECK(a.action == "double_tap");
    CHECK(a.count == 2);
    CHECK(a.at == Point{10, 21});
    a = userInputAction(json{{"kind", "right_click"}, {"x", 1}, {"y", 2}}, screen);
    CHECK(a.button == MouseButton::Right);
    a = userInputAction(json{{"kind", "drag"}, {"x", 1}, {"y", 2}, {"to_x", 300}, {"to_y", 400}}, screen);
    CHECK(a.action == "drag");
    CHECK(a.to == Point{300, 400});
    a = userInputAction(json{{"kind", "wheel"}, {"x", 5}, {"y", 6}, {"dy", -3}}, screen);
    CHECK(a.action == "scroll");
    CHECK(a.dy == -3);
    a = userInputAction(json{{"kind", "key"}, {"keys", "ctrl+s"}}, screen);
    CHECK(a.action == "key");
    CHECK(a.combo == "ctrl+s");
    a = userInputAction(json{{"kind", "text"}, {"text", "张三"}}, screen);
    CHECK(a.action == "input");
    CHECK(a.text == "张三");
    a = userInputAction(json{{"kind", "move"}, {"x", 799}, {"y", 599}}, screen);
    CHECK(a.action == "move");

    CHECK_THROWS_WITH(userInputAction(json{{"kind", "tap"}}, screen), Catch::Contains("got \"tap\""));
    CHECK_THROWS_WITH(userInputAction(json{{"x", 1}}, screen), Catch::Contains("expected \"kind\""));
    CHECK_THROWS_WITH(userInputAction(json{{"kind", "click"}, {"x", 1}}, screen),
                      Catch::Contains("expected \"y\" (a number of pixels), got nothing"));
    CHECK_THROWS_WITH(userInputAction(json{{"kind", "click"}, {"x", 800}, {"y", 1}}, screen),
                      Catch::Contains("on the 800x600 screen, got (800,1)"));
    CHECK_THROWS_WITH(userInputAction(json{{"kind", "text"}, {"text", ""}}, screen), Catch::Contains("non-empty"));
    CHECK_THROWS_WITH(userInputAction(json{{"kind", "wheel"}, {"x", 1}, {"y", 1}}, screen),
                      Catch::Contains("\"dx\" or \"dy\""));
}

TEST_CASE("performUserInput: a step with actor user, frames, sent_at; no limit, no step boundary",
          "[serve][input]") {
    SessionOptions o = test::ImageSession::quick();
    o.limits = RunLimits{1, 0};  // one action for the run: the person's input does not count
    test::ImageSession is("user input", o);
    Session& s = *is.session;
    int boundaries = 0;
    s.setCheckpoint([&] {
        ++boundaries;
        return false;
    });
    const double t0 = wallSeconds();
    StepRecord st = performUserInput(s, json{{"kind", "click"}, {"x", 70}, {"y", 347}});
    StepRecord typed = performUserInput(s, json{{"kind", "text"}, {"text", "张三"}});
    CHECK(boundaries == 0);
    CHECK(st.actor == "user");
    CHECK(st.action == "tap");
    CHECK(st.status == "ok");
    CHECK(st.frame_before.has_value());
    CHECK(st.frame_after.has_value());
    json p = json::parse(st.params_json);
    CHECK(p["event"] == "click");
    CHECK(p["sent_at"].get<double>() >= t0);
    CHECK(typed.action == "input");
    auto steps = is.steps();
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].actor == "user");
    CHECK(steps[1].actor == "user");
    REQUIRE(is.device.events().size() >= 2);
    // The script's own action passes a step boundary, counts, and is the script's.
    s.key("Return");
    CHECK(boundaries >= 1);
    CHECK(is.steps("key").at(0).actor == "script");
    CHECK_THROWS_AS(s.key("Return"), StepError);  // the run's one action is used
    // A model's steps (the autopilot's loop sets the actor).
    {
        ActorScope model(s, "model");
        CHECK(s.beginStep("autopilot", "x").actor == "model");
    }
    CHECK(s.actor() == "script");
}
