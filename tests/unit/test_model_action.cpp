#include <catch2/catch.hpp>

#include "model/Action.h"

using namespace eacu;
using namespace eacu::model;

namespace {
ActionContext ctx() {
    ActionContext c;
    c.elements = {{0, Rect{10, 10, 40, 20}}, {1, Rect{100, 50, 60, 30}}, {2, Rect{300, 560, 80, 30}}};
    c.screen = {800, 600};
    return c;
}
}  // namespace

TEST_CASE("actions: every kind of seed 000 §3.1 parses", "[model]") {
    auto c = ctx();
    Action a = parseAction(R"({"thought": "需要点击搜索按钮", "element_id": 1, "action": "click"})", c);
    CHECK(a.type == ActionType::Click);
    CHECK(a.thought == "需要点击搜索按钮");
    CHECK(a.element_id == 1);
    CHECK(a.point == Point{130, 65});  // the box centre
    CHECK(a.box == Rect{100, 50, 60, 30});
    CHECK(parseAction(R"({"element_id": 0, "action": "double_click"})", c).type == ActionType::DoubleClick);
    CHECK(parseAction(R"({"element_id": 2, "action": "right_click"})", c).point == Point{340, 575});
    Action t = parseAction(R"({"element_id": 1, "action": "type", "text": "你好世界"})", c);
    CHECK(t.text == "你好世界");
    CHECK(t.point == Point{130, 65});
    CHECK(parseAction(R"({"action": "type", "text": "abc"})", c).point == std::nullopt);
    CHECK(parseAction(R"({"action": "hotkey", "keys": ["ctrl", "s"]})", c).keys == std::vector<std::string>{"ctrl", "s"});
    CHECK(parseAction(R"({"action": "hotkey", "keys": "ctrl+shift+t"})", c).keys ==
          std::vector<std::string>{"ctrl", "shift", "t"});
    CHECK(parseAction(R"({"action": "press", "key": "enter"})", c).key == "enter");
    Action s = parseAction(R"({"action": "scroll", "direction": "down", "amount": 3})", c);
    CHECK(s.direction == "down");
    CHECK(s.amount == 3);
    CHECK(parseAction(R"({"action": "wait"})", c).seconds == 1.0);
    CHECK(parseAction(R"({"action": "wait", "seconds": 2.5})", c).seconds == 2.5);
    CHECK(parseAction(R"({"thought": "文件已成功保存", "action": "done"})", c).type == ActionType::Done);
    CHECK(parseAction(R"({"action": "fail", "reason": "找不到目标按钮"})", c).text == "找不到目标按钮");
    Action n = parseAction(R"({"action": "needs_user", "text": "Please log in"})", c);
    CHECK(n.type == ActionType::NeedsUser);
    CHECK(n.text == "Please log in");
    CHECK(n.toJson()["action"] == "needs_user");
    CHECK(a.toJson()["x"] == 130);
}

TEST_CASE("actions: markdown fences are stripped, anything else is rejected with the raw text", "[model]") {
    auto c = ctx();
    CHECK(parseAction("```json\n{\"action\": \"done\"}\n```", c).type == ActionType::Done);
    CHECK(parseAction("  ```\n{\"action\": \"done\"}\n```  \n", c).type == ActionType::Done);
    CHECK(stripCodeFence("```python\nprint(1)\n```") == "```python\nprint(1)\n```");

    auto rejects = [&](const std::string& raw, const std::string& why) {
        INFO(raw);
        try {
            parseAction(raw, c);
            FAIL("accepted: " << raw);
        } catch (const ActionParseError& e) {
            CHECK_THAT(std::string(e.what()), Catch::Contains(why));
            CHECK_THAT(std::string(e.what()), Catch::Contains("raw answer: " + raw.substr(0, 40)));
            CHECK(e.raw() == raw);
        }
    };
    rejects("Sure! {\"action\": \"done\"}", "not JSON");
    rejects("{\"action\": \"done\"} and then more", "not JSON");
    rejects("```json\n{\"action\": \"done\"}\n```\n```json\n{\"action\": \"fail\"}\n```", "not JSON");
    rejects("[{\"action\": \"done\"}]", "expected one JSON object, got an array");
    rejects("{\"element_id\": 1}", "expected a string field \"action\", got none");
    rejects("{\"action\": \"exec\", \"code\": \"import os; os.system('rm -rf /')\"}",
            "expected action click|double_click|right_click|type|hotkey|press|scroll|wait|done|fail|needs_user, got \"exec\"");
    rejects("{\"action\": \"click\", \"element_id\": 1, \"code\": \"pyautogui.click()\"}", "unexpected field \"code\"");
    rejects("{\"action\": \"click\"}", "needs an element_id");
    rejects("{\"action\": \"click\", \"element_id\": \"1\"}", "expected \"element_id\" to be an integer, got a string");
    rejects("{\"action\": \"click\", \"element_id\": 1.5}", "to be an integer");
    rejects("{\"action\": \"click\", \"element_id\": 57}", "element_id 57 is not in the element list (IDs 0..2)");
    rejects("{\"action\": \"type\", \"element_id\": 1}", "needs a string field \"text\"");
    rejects("{\"action\": \"hotkey\", \"keys\": []}", "non-empty array");
    rejects("{\"action\": \"scroll\", \"direction\": \"sideways\"}", "expected \"direction\" up|down|left|right");
    rejects("{\"action\": \"scroll\", \"direction\": \"up\", \"amount\": 1000}", "expected \"amount\" in 1..50");
    // Integers beyond int are refused, not wrapped (4294967297 would become 1, 4294967299 3).
    rejects("{\"action\": \"click\", \"element_id\": 4294967297}", "element_id 4294967297 is not in the element list");
    rejects("{\"action\": \"click\", \"element_id\": 18446744073709551615}", "is not in the element list");
    rejects("{\"action\": \"scroll\", \"direction\": \"up\", \"amount\": 4294967299}", "expected \"amount\" in 1..50, got 4294967299");
    rejects("{\"action\": \"wait\", \"seconds\": 3600}", "expected \"seconds\" in 0..60");
    rejects("{\"action\": \"click\", \"coordinate\": [10, 10]}", "coordinates are not accepted here");
    rejects("", "not JSON");
}

TEST_CASE("actions: coordinates are mapped from their space and bounds-checked", "[model]") {
    auto c = ctx();
    c.elements[3] = Rect{790, 590, 40, 40};  // sticks out of the 800x600 screen
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "element_id": 3})", c), Catch::Contains("outside the screen 800x600"));

    c.coords = CoordSpace::Physical;
    CHECK(parseAction(R"({"action": "click", "coordinate": [400, 300]})", c).point == Point{400, 300});
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "coordinate": [800, 10]})", c), Catch::Contains("(800,10) is outside"));
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "x": -1, "y": 10})", c), Catch::Contains("outside"));
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "element_id": 1, "coordinate": [1, 1]})", c), Catch::Contains("got both"));

    c.coords = CoordSpace::PerMille;
    CHECK(parseAction(R"({"action": "click", "coordinate": [500, 500]})", c).point == Point{400, 300});
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "coordinate": [500, 1001]})", c), Catch::Contains("out of bounds"));

    c.coords = CoordSpace::Fraction;
    CHECK(parseAction(R"({"action": "click", "x": 0.25, "y": 0.5})", c).point == Point{200, 300});

    c.coords = CoordSpace::ModelImage;
    c.screen = {2560, 1600};
    c.transform = ModelImageTransform{{2560, 1600}, {1280, 800}};
    CHECK(parseAction(R"({"action": "click", "coordinate": [640, 400]})", c).point == Point{1280, 800});
    CHECK_THROWS_WITH(parseAction(R"({"action": "click", "coordinate": [1281, 400]})", c), Catch::Contains("out of bounds"));
}

#include "model/Http.h"
#include "model/Prompts.h"

TEST_CASE("prompts in seed 000 §3.2's form; Retry-After values", "[model]") {
    std::string u = somUserPrompt("给张三发消息", 3, "  [0] 🔘 button | \"发送\" | 屏幕下右",
                                  {historyLine(1, "点击了 [1] text_field", true),
                                   historyLine(2, "点击了 [2] button \"发送\"", false, true)});
    CHECK_THAT(u, Catch::StartsWith("# 任务：给张三发消息\n\n# 当前屏幕 UI 元素（Step 3）：\n  [0] 🔘 button"));
    CHECK_THAT(u, Catch::Contains("Step 1: 点击了 [1] text_field → 界面变化 ✓\nStep 2: 点击了 [2] button \"发送\" → 界面未变化 ✗（已重试）"));
    CHECK_THAT(somUserPrompt("t", 1, "", {}), Catch::Contains("# 历史操作：\n(无)"));
    CHECK_THAT(somSystemPrompt(), Catch::Contains("needs_user"));
    CHECK(model::parseRetryAfter("2") == 2.0);
    CHECK(model::parseRetryAfter("0.5") == 0.5);
    CHECK(model::parseRetryAfter("soon") < 0);
    CHECK(model::parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0);  // in the past
    CHECK(model::retryableStatus(429));
    CHECK(model::retryableStatus(529));
    CHECK_FALSE(model::retryableStatus(401));
}

TEST_CASE("only the last 3 screenshots stay in the context", "[model]") {
    std::vector<model::Message> msgs;
    for (int i = 1; i <= 5; ++i) {
        msgs.push_back(model::Message::user({model::Part::image("png" + std::to_string(i), "image/png", i),
                                             model::Part::textPart("step " + std::to_string(i))}));
        msgs.push_back(model::Message::assistant(R"({"action":"wait"})"));
    }
    CHECK(model::keepRecentImages(msgs, 3) == 2);
    CHECK(msgs[0].parts[0].kind == model::Part::Kind::Text);
    CHECK(msgs[0].parts[0].text == "[earlier screenshot omitted: frame 1]");
    CHECK(msgs[2].parts[0].text == "[earlier screenshot omitted: frame 2]");
    CHECK(msgs[4].parts[0].kind == model::Part::Kind::Image);
    CHECK(msgs[8].parts[0].data == "png5");
    CHECK(model::keepRecentImages(msgs, 3) == 0);
}
