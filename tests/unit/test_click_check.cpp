// The click check of seed 001 §4.1: the model's answer {"on_target", "dx", "dy"} parsed
// strictly (model/ClickCheck), and the aiming loop (planner/ClickAim) on a static screenshot with a
// scripted model: a correction moves the pointer by the model's dx/dy, an answer within r
// clicks, N corrections that never land hand the click to the person and press nothing.
#include <catch2/catch.hpp>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ImageSession.h"
#include "model/ClickCheck.h"
#include "planner/ClickAim.h"
#include "planner/ComputerUse.h"
#include "planner/ModelContext.h"
#include "step/StepError.h"

using namespace eacu;
using json = nlohmann::json;

TEST_CASE("parseClickCheck: exactly {on_target, dx, dy}, else what was expected and what came", "[click]") {
    auto a = model::parseClickCheck(R"({"on_target": false, "dx": -12, "dy": 30})");
    CHECK_FALSE(a.on_target);
    CHECK(a.dx == -12);
    CHECK(a.dy == 30);
    a = model::parseClickCheck("```json\n{\"on_target\": true, \"dx\": 0, \"dy\": 0, \"reason\": \"on the key\"}\n```");
    CHECK(a.on_target);
    CHECK(model::parseClickCheck(R"({"on_target": false, "dx": 4.0, "dy": -2})").dx == 4);
    CHECK_THROWS_WITH(model::parseClickCheck("yes, it is on the button"),
                      Catch::Contains("expected one JSON object {\"on_target\": bool, \"dx\": int, \"dy\": int}") &&
                          Catch::Contains("got: yes, it is on the button"));
    CHECK_THROWS_WITH(model::parseClickCheck(R"({"on_target": true, "dx": 0})"), Catch::Contains("without \"dy\""));
    CHECK_THROWS_WITH(model::parseClickCheck(R"({"on_target": "yes", "dx": 0, "dy": 0})"),
                      Catch::Contains("\"on_target\" to be true or false, got \"yes\""));
    CHECK_THROWS_WITH(model::parseClickCheck(R"({"on_target": false, "dx": 2.5, "dy": 0})"),
                      Catch::Contains("\"dx\" to be an integer (pixels), got 2.5"));
    CHECK_THROWS_WITH(model::parseClickCheck(R"([true, 1, 2])"), Catch::Contains("got: [true, 1, 2]"));
}

TEST_CASE("clickCheckPrompt: the intent, the target and the pointer as fields", "[click]") {
    model::ClickCheckQuestion q;
    q.task = "compute 12*34";
    q.intent = "点击 7 键";
    q.label = "[5] asset \"7\"";
    q.target = {70, 287};
    q.box = Rect{50, 270, 40, 30};
    q.pointer = {71, 290};
    std::string p = model::clickCheckPrompt(q);
    CHECK_THAT(p, Catch::Contains("Task: compute 12*34"));
    CHECK_THAT(p, Catch::Contains("Intent: 点击 7 键"));
    CHECK_THAT(p, Catch::Contains("Target: [5] asset \"7\" at x=70, y=287, box x1=50, y1=270, x2=90, y2=300"));
    CHECK_THAT(p, Catch::Contains("Pointer: x=71, y=290"));
    CHECK_THAT(model::clickCheckSystemPrompt(), Catch::Contains("\"on_target\""));
}

namespace {

// A model that answers from a script and keeps the requests it got.
class ScriptedModel : public model::ModelClient {
public:
    std::deque<std::string> answers;
    std::vector<model::Request> requests;
    model::Response complete(const model::Request& req) override {
        requests.push_back(req);
        if (answers.empty()) throw model::ModelError("scripted", 0, "no scripted answer left");
        model::Response r;
        r.text = answers.front();
        if (answers.size() > 1) answers.pop_front();
        r.provider = "scripted";
        r.model = "script";
        r.http_status = 200;
        return r;
    }
    json buildBody(const model::Request&) const override { return json::object(); }
    json redactedRequest(const model::Request&) const override { return {{"provider", "scripted"}}; }
    std::string provider() const override { return "scripted"; }
    std::string model() const override { return "script"; }
};

// The person: says they clicked, and remembers what they were asked.
class Person : public UserChannel {
public:
    std::vector<std::string> asked;
    std::string confirm(const std::string&, const CancelToken&) override { return ""; }
    std::string ask(const std::string& text, const CancelToken&) override {
        asked.push_back("ask " + text);
        return "ok";
    }
    std::string awaitAction(const std::string& kind, const std::string& text, const CancelToken&) override {
        asked.push_back(kind + " " + text);
        return "点好了";
    }
};

struct Fixture : test::ImageSession {
    std::unique_ptr<ModelContext> ctx;
    ScriptedModel* model = nullptr;
    std::shared_ptr<Person> person = std::make_shared<Person>();

    explicit Fixture(std::vector<std::string> answers) : ImageSession("test_click_check", quick()) {
        session->setUserChannel(person);
        auto m = std::make_unique<ScriptedModel>();
        model = m.get();
        model->answers.assign(answers.begin(), answers.end());
        ctx = std::make_unique<ModelContext>(*session, std::move(m), model::CacheMode::Off);
    }
    std::vector<std::string> moves() const {
        std::vector<std::string> out;
        for (const auto& e : device.events())
            if (e.rfind("move ", 0) == 0) out.push_back(e);
        return out;
    }
    int presses() const {
        int n = 0;
        for (const auto& e : device.events()) n += e.rfind("click", 0) == 0 || e.rfind("press", 0) == 0;
        return n;
    }
};

}  // namespace

TEST_CASE("ClickAimer: a correction moves the pointer by dx/dy; on_target then aims there", "[click]") {
    Fixture f({R"({"on_target": false, "dx": 30, "dy": -20})", R"({"on_target": true, "dx": 0, "dy": 0})"});
    ClickAimer aimer(*f.ctx, "compute 12*34");
    AimedClick a = aimer.aim("点击 7 键", "[5] asset \"7\"", {400, 300}, Rect{380, 280, 40, 40});
    CHECK_FALSE(a.by_person);
    CHECK(a.checks == 2);
    CHECK(a.point == Point{430, 280});
    CHECK(f.moves() == std::vector<std::string>{"move 400,300", "move 430,280"});
    CHECK(f.presses() == 0);  // aiming never presses
    // Each check: a "move" step through the action path, then a "click_check" step.
    auto checks = f.steps("click_check");
    REQUIRE(checks.size() == 2);
    json p0 = json::parse(checks[0].params_json);
    CHECK(p0["on_target"] == false);
    CHECK(p0["dx"] == 30);
    CHECK(p0["pointer"] == json{400, 300});
    CHECK(f.steps("move").size() == 2);
    CHECK(f.session->limits().actions() == 2);  // the moves count against the run's limits
    // The model was told the intent, the target and the pointer, with the pointer marked.
    REQUIRE(f.model->requests.size() == 2);
    std::string text;
    for (const auto& part : f.model->requests[1].messages.back().parts) text += part.text + "\n";
    CHECK_THAT(text, Catch::Contains("Intent: 点击 7 键"));
    CHECK_THAT(text, Catch::Contains("Target: [5] asset \"7\" at x=400, y=300"));
    CHECK_THAT(text, Catch::Contains("Pointer: x=430, y=280"));
    CHECK_THAT(text, Catch::Contains("Mouse pointer (marked 鼠标指针 on the screenshot): x=430, y=280"));
}

TEST_CASE("ClickAimer: a correction within r counts as on target", "[click]") {
    Fixture f({R"({"on_target": false, "dx": 10, "dy": -9})"});  // |(10, -9)| = 13.5 <= 14
    ClickAimer aimer(*f.ctx, "compute 12*34");
    AimedClick a = aimer.aim("", "(400,300)", {400, 300}, std::nullopt);
    CHECK_FALSE(a.by_person);
    CHECK(a.checks == 1);
    CHECK(a.point == Point{400, 300});
}

TEST_CASE("ClickAimer: still off after N corrections: no click, the person is asked", "[click]") {
    Fixture f({R"({"on_target": false, "dx": 40, "dy": 0})"});
    ClickAimer aimer(*f.ctx, "compute 12*34 with a misaligned pointer", ClickCheckOptions{4, 14});
    AimedClick a = aimer.aim("点击 AC 键", "[1] asset \"AC\"", {200, 100}, std::nullopt);
    CHECK(a.by_person);
    CHECK(a.checks == 5);  // the first look and 4 corrections
    CHECK(a.reply == "点好了");
    CHECK(f.moves().size() == 5);
    CHECK(f.moves().back() == "move 360,100");
    CHECK(f.presses() == 0);
    REQUIRE(f.person->asked.size() == 1);
    CHECK_THAT(f.person->asked[0], Catch::StartsWith("click 请帮忙点击 [1] asset \"AC\""));
    auto handed = f.steps("click");
    REQUIRE(handed.size() == 1);
    CHECK(handed[0].method == "person");
    CHECK(json::parse(handed[0].params_json)["answer"] == "点好了");
}

TEST_CASE("ClickAimer: an answer that is not the check's JSON is a model error", "[click]") {
    Fixture f({"The pointer is on the button."});
    ClickAimer aimer(*f.ctx, "compute 12*34");
    try {
        aimer.aim("", "(400,300)", {400, 300}, std::nullopt);
        FAIL("a prose answer was taken");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kModel);
        CHECK_THAT(std::string(e.what()), Catch::Contains("expected one JSON object") &&
                                              Catch::Contains("The pointer is on the button."));
    }
    auto checks = f.steps("click_check");
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].status == "failed");
    CHECK(f.presses() == 0);
}

TEST_CASE("computer actions with the click check: pressed where aimed, or handed to the person", "[click]") {
    ModelImageTransform t;  // the 1280x800 screenshot shown as it is
    t.physical = {1280, 800};
    t.image = {1280, 800};
    {
        Fixture f({R"({"on_target": false, "dx": 5, "dy": 30})", R"({"on_target": true, "dx": 0, "dy": 0})"});
        ClickAimer aimer(*f.ctx, "compute 12*34");
        std::optional<Rect> zoom;
        CHECK(performComputerAction(*f.session, {{"action", "left_click"}, {"coordinate", {100, 40}}}, t, 0, &zoom,
                                    &aimer, "press AC")
                  .empty());
        const auto& e = f.device.events();
        REQUIRE(e.size() >= 3);
        CHECK(e.back() == "click 1 x1 at 105,70");
        CHECK(f.moves() == std::vector<std::string>{"move 100,40", "move 105,70", "move 105,70"});
    }
    {
        Fixture f({R"({"on_target": false, "dx": 40, "dy": 0})"});
        ClickAimer aimer(*f.ctx, "compute 12*34", ClickCheckOptions{1, 14});
        std::optional<Rect> zoom;
        std::string text = performComputerAction(*f.session, {{"action", "double_click"}, {"coordinate", {100, 40}}}, t,
                                                 0, &zoom, &aimer, "press AC");
        CHECK_THAT(text, Catch::StartsWith("Not clicked by the tool") && Catch::Contains("they said: 点好了"));
        CHECK(f.presses() == 0);
        CHECK(f.moves().size() == 2);  // N = 1: the first look and one correction
        REQUIRE(f.person->asked.size() == 1);
        CHECK_THAT(f.person->asked[0], Catch::Contains("（press AC）"));
    }
}
