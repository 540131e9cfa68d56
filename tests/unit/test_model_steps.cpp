// Strict parsing of grounding answers and planner answers (runtime/planner/Grounding, Planner).
#include <catch2/catch.hpp>

#include <functional>

#include "planner/Grounding.h"
#include "planner/Planner.h"

using namespace eacu;
using Catch::Matchers::Contains;

namespace {

model::ActionContext screen() {
    model::ActionContext c;
    c.screen = {1280, 800};
    c.elements = {{0, Rect{10, 10, 20, 10}}, {5, Rect{186, 368, 32, 18}}};
    return c;
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("grounding answers: element id, 0-1000 box, seed 002 xmin form, not found", "[model][grounding]") {
    Grounding g = parseGrounding("```json\n{\"thought\": \"=\", \"element_id\": 5}\n```", screen());
    CHECK(g.found);
    CHECK(g.element_id == 5);
    CHECK(g.point.x == 202);
    CHECK(g.point.y == 377);
    CHECK(g.method == "model-element");

    g = parseGrounding(R"({"box": [500, 500, 510, 520]})", screen());
    CHECK(g.method == "model-box");
    CHECK(g.box.x == 640);
    CHECK(g.box.y == 400);
    CHECK(g.point.x == 640 + g.box.w / 2);

    g = parseGrounding(R"({"found": true, "xmin": 0, "ymin": 0, "xmax": 100, "ymax": 100, "confidence": 0.9})", screen());
    CHECK(g.found);
    CHECK(g.box.w == 128);

    g = parseGrounding(R"({"found": false, "reason": "no such key"})", screen());
    CHECK_FALSE(g.found);
    CHECK(g.reason == "no such key");
}

TEST_CASE("grounding answers that are not groundings are rejected with the raw text", "[model][grounding]") {
    auto ctx = screen();
    CHECK_THAT(errorOf([&] { parseGrounding("the equals key is at the bottom", ctx); }),
               Contains("expected one JSON object (a grounding), got text that is not JSON") &&
                   Contains("raw answer: the equals key"));
    CHECK_THAT(errorOf([&] { parseGrounding(R"({"element_id": 9})", ctx); }),
               Contains("element_id 9 is not in the element list (IDs 0..5)"));
    CHECK_THAT(errorOf([&] { parseGrounding(R"({"box": [0, 0, 1200, 10]})", ctx); }),
               Contains("expected box values in 0..1000"));
    CHECK_THAT(errorOf([&] { parseGrounding(R"({"box": [50, 50, 10, 10]})", ctx); }),
               Contains("x1 <= x2"));
    CHECK_THAT(errorOf([&] { parseGrounding(R"({"element_id": "5"})", ctx); }),
               Contains("expected \"element_id\" to be an integer, got a string"));
    CHECK_THAT(errorOf([&] { parseGrounding(R"({"command": "rm -rf /"})", ctx); }),
               Contains("unexpected field \"command\""));
}

TEST_CASE("plans in seed 002's form are parsed strictly", "[model][plan]") {
    Plan p = parsePlan(R"({"analysis": {"estimated_steps": 3}, "steps": [
        {"step": 1, "action": "tap", "target_ref": "wechat", "verify_ref": "wechat_main",
         "fallback": {"action": "swipe", "params": {"direction": "left"}}, "timeout": 3000, "retry": 2},
        {"step": 2, "action": "input_text", "target_ref": "dynamic:底部消息输入框", "params": {"text": "你好"}},
        {"step": 3, "action": "press_key", "params": {"key": "enter"}}],
        "success_criteria": "sent", "potential_issues": []})");
    REQUIRE(p.steps.size() == 3);
    CHECK(p.steps[0].retry == 2);
    CHECK(p.steps[0].verify_ref == "wechat_main");
    REQUIRE(p.steps[0].fallback);
    CHECK(p.steps[0].fallback->action == "swipe");
    CHECK(p.steps[0].fallback->retry == 0);
    CHECK(p.steps[1].target_ref == "dynamic:底部消息输入框");
    CHECK(p.steps[2].params["key"] == "enter");
    CHECK(p.success_criteria == "sent");

    CHECK_THAT(errorOf([] { parsePlan("Sure! First open WeChat."); }), Contains("got text that is not JSON"));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": []})"); }), Contains("non-empty array \"steps\""));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": [{"action": "launch_missiles"}]})"); }),
               Contains("step 1: expected action tap|double_tap"));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": [{"action": "tap"}]})"); }),
               Contains("step 1: action tap needs a \"target_ref\""));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": [{"action": "input_text", "params": {"text": 5}}]})"); }),
               Contains("input_text needs params.text"));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": [{"action": "wait", "exec": "sh"}]})"); }),
               Contains("unexpected field \"exec\""));
    CHECK_THAT(errorOf([] { parsePlan(R"({"steps": [{"action": "tap", "target_ref": "a", "retry": 99}]})"); }),
               Contains("expected \"retry\" in 0..5"));
}
