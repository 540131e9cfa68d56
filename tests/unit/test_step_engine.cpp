// The step engine (runtime/step/StepEngine) on a scripted device: pages of a screen where a
// scroll shows the next page. Fallbacks then looking again (up to fallback_max), retry counts,
// failure codes (not_found, verify_failed, refused, cancelled, timeout, limit), optional steps,
// the "step" summary row; plan() steps through the same engine.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "NullDevice.h"
#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "model/ModelTypes.h"
#include "runlog/RunLog.h"
#include "step/Limits.h"
#include "planner/ModelContext.h"
#include "planner/Planner.h"
#include "step/Session.h"
#include "step/StepEngine.h"
#include "vision/Locator.h"

using namespace eacu;
namespace fs = std::filesystem;

namespace {

// A screen of pages: capture shows the current page, a scroll down shows the next one (up: the
// previous one). Input is counted, not drawn.
class PagedDevice : public NullDevice {
public:
    explicit PagedDevice(std::vector<cv::Mat> pages) : pages_(std::move(pages)) {}
    std::string describe() const override { return "paged"; }
    Size screenSize() const override { return {pages_[0].cols, pages_[0].rows}; }
    Frame capture() override { return stamped(pages_[page_].clone()); }
    void click(MouseButton, int) override { ++clicks; }
    void release(MouseButton) override { ++clicks; }
    void scroll(int, int dy) override {
        ++scrolls;
        if (dy > 0) page_ = std::min(page_ + 1, int(pages_.size()) - 1);
        if (dy < 0) page_ = std::max(page_ - 1, 0);
    }
    void typeText(const std::string&) override { ++keys; }
    void keyCombo(const std::vector<Key>&) override { ++keys; }

    int clicks = 0, scrolls = 0, keys = 0;

private:
    std::vector<cv::Mat> pages_;
    int page_ = 0;
};

cv::Mat noisePatch(int seed, int w, int h) {
    cv::Mat m(h, w, CV_8UC3);
    cv::RNG rng(seed);
    rng.fill(m, cv::RNG::UNIFORM, 0, 256);
    return m;
}

// Two pages 320x240 of grey; the target patch is on the second only. The patch images (and
// an asset index naming them "target" and "absent") are written to a fresh folder.
struct Fixture {
    fs::path dir;
    std::unique_ptr<PagedDevice> device;
    AssetLibrary assets;
    Locator locator;
    std::unique_ptr<RunLog> log;
    int64_t run_id = 0;
    std::unique_ptr<Session> session;
    std::string target, absent;

    Fixture() {
        dir = fs::temp_directory_path() / ("eacu_step_engine_" + std::to_string(::getpid()) + "_" +
                                           std::to_string(counter()++));
        fs::remove_all(dir);
        fs::create_directories(dir);
        cv::Mat patch = noisePatch(1, 40, 30), other = noisePatch(2, 40, 30);
        target = (dir / "target.png").string();
        absent = (dir / "absent.png").string();
        cv::imwrite(target, patch);
        cv::imwrite(absent, other);
        std::ofstream(dir / "index.json")
            << R"({"version": "1.0", "ui": {"target": {"path": "target.png"}, "absent": {"path": "absent.png"}}})";
        assets.loadIndex((dir / "index.json").string(), "");
        cv::Mat page1(240, 320, CV_8UC3, cv::Scalar(90, 90, 90));
        cv::Mat page2 = page1.clone();
        patch.copyTo(page2(cv::Rect(200, 150, 40, 30)));
        device = std::make_unique<PagedDevice>(std::vector<cv::Mat>{page1, page2});
        log = std::make_unique<RunLog>((dir / "runs.db").string());
        RunRecord rec;
        rec.script = "test_step_engine";
        run_id = log->beginRun(rec);
        SessionOptions o;
        o.find_timeout = 0.2;
        o.poll_interval = 0.01;
        o.effect_timeout = 0.02;
        o.settle_interval = 0.01;
        o.settle_timeout = 0.2;
        o.tap_retries = 0;
        o.limits = {};
        session = std::make_unique<Session>(*device, assets, locator, log.get(), run_id, o);
        session->confirmMode() = ConfirmMode::No;
    }
    ~Fixture() {
        session.reset();
        log.reset();
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }

    TargetSpec image(const std::string& path) {
        TargetSpec t;
        t.image = path;
        t.label = "\"" + fs::path(path).stem().string() + "\"";
        return t;
    }
    StepAction tap(const std::string& path) {
        StepAction a;
        a.kind = "tap";
        a.target = image(path);
        return a;
    }
    // The params of the "step" summary row with this id.
    nlohmann::json rowParams(int64_t id, std::string* status = nullptr, std::string* error = nullptr) {
        for (const StepRecord& r : log->steps(run_id))
            if (r.id == id) {
                if (status) *status = r.status;
                if (error) *error = r.error;
                return nlohmann::json::parse(r.params_json);
            }
        return nullptr;
    }
};

// A call action counting its calls and throwing `e` (when set) each time.
StepAction counting(int& calls, std::function<void()> e = nullptr) {
    StepAction a;
    a.kind = "call";
    a.perform = [&calls, e](double) -> std::optional<Match> {
        ++calls;
        if (e) e();
        return std::nullopt;
    };
    return a;
}

struct NoConfirmEnv {
    NoConfirmEnv() {
        const char* v = std::getenv("EACU_CONFIRM");
        if (v) saved = v, had = true;
        ::unsetenv("EACU_CONFIRM");
    }
    ~NoConfirmEnv() {
        if (had) ::setenv("EACU_CONFIRM", saved.c_str(), 1);
    }
    std::string saved;
    bool had = false;
};

}  // namespace

TEST_CASE("a target not found runs the fallback, then is looked for again", "[step_engine]") {
    Fixture f;
    StepSpec s;
    s.action = f.tap(f.target);
    s.timeout = 0.1;
    s.fallback.push_back(scrollAction("down", false));
    StepResult r = runStep(*f.session, s);
    CHECK(r.ok);
    CHECK(r.attempts == 1);
    CHECK(r.fallbacks == 1);
    CHECK(f.device->scrolls == 1);
    CHECK(f.device->clicks == 1);
    REQUIRE(r.match);
    CHECK(r.match->found);
    CHECK(r.match->box.x == 200);
    std::string status;
    nlohmann::json p = f.rowParams(r.step_id, &status);
    CHECK(status == "ok");
    CHECK(p["fallbacks"] == 1);
    CHECK(p["action"] == "tap");
    CHECK(p["suggestion"] == "");
}

TEST_CASE("fallbacks run at most fallback_max times; the step fails with not_found", "[step_engine]") {
    Fixture f;
    StepSpec s;
    s.action = f.tap(f.absent);
    s.timeout = 0.05;
    s.retry = 1;
    s.fallback.push_back(scrollAction("down", false));
    StepResult r = executeStep(*f.session, s);
    CHECK_FALSE(r.ok);
    CHECK(r.attempts == 2);
    CHECK(r.fallbacks == 3);
    CHECK(f.device->scrolls == 3);
    CHECK(f.device->clicks == 0);
    CHECK(r.code == failure::kNotFound);
    CHECK(r.suggestion == "replan");
    REQUIRE(r.error);
    CHECK(r.error->code == failure::kNotFound);
    CHECK(r.error->step_id == r.step_id);
    CHECK(r.error->frame_id > 0);
    CHECK(r.error->target == "\"absent\"");
    REQUIRE(r.error->best);
    CHECK(r.error->best->score < r.error->best->threshold);
    CHECK_THAT(std::string(r.error->what()), Catch::StartsWith("step tap \"absent\": tap \"absent\": not found") &&
                                                 Catch::EndsWith("(suggestion: replan)"));
    std::string status, error;
    nlohmann::json p = f.rowParams(r.step_id, &status, &error);
    CHECK(status == "failed");
    CHECK(p["fallbacks"] == 3);
    CHECK(p["attempts"] == 2);
    CHECK(p["suggestion"] == "replan");
    CHECK_THAT(error, Catch::EndsWith("(suggestion: replan)"));

    // fallback_max = 1: one fallback in all.
    s.fallback_max = 1;
    r = executeStep(*f.session, s);
    CHECK(r.fallbacks == 1);
    // Without a fallback the suggestion is to dismiss what covers the target.
    s.fallback.clear();
    r = executeStep(*f.session, s);
    CHECK(r.fallbacks == 0);
    CHECK(r.suggestion == "dismiss");
}

TEST_CASE("a failing action is tried 1 + retry times", "[step_engine]") {
    Fixture f;
    int calls = 0;
    StepSpec s;
    s.action = counting(calls, [] { throw StepError(failure::kDevice, "the pointer did not move"); });
    s.retry = 2;
    StepResult r = executeStep(*f.session, s);
    CHECK_FALSE(r.ok);
    CHECK(calls == 3);
    CHECK(r.attempts == 3);
    CHECK(r.code == failure::kDevice);
    CHECK(r.reason == "the pointer did not move");
    CHECK(r.suggestion == "replan");  // retries did not help

    // An action that fails once and then works.
    calls = 0;
    s.action = counting(calls, [&calls] {
        if (calls == 1) throw std::runtime_error("flaky");
    });
    r = executeStep(*f.session, s);
    CHECK(r.ok);
    CHECK(r.attempts == 2);
}

TEST_CASE("a verify that does not hold fails with verify_failed", "[step_engine]") {
    Fixture f;
    int calls = 0;
    StepSpec s;
    s.action = counting(calls);
    s.timeout = 0.05;
    StepCheck v;
    v.target = f.image(f.absent);
    s.verify = v;
    StepResult r = executeStep(*f.session, s);
    CHECK_FALSE(r.ok);
    CHECK(calls == 2);  // retried once
    CHECK(r.code == failure::kVerifyFailed);
    CHECK_THAT(r.reason, Catch::StartsWith("verification failed: verify \"absent\": not found"));
    CHECK(r.suggestion == "replan");
    REQUIRE(r.error);
    CHECK(r.error->best);

    // A condition: asked until the timeout; its last error is named.
    StepCheck c;
    c.what = "the step's verify condition";
    c.holds = [] () -> bool { throw std::runtime_error("not yet"); };
    s.verify = c;
    s.retry = 0;
    r = executeStep(*f.session, s);
    CHECK(r.code == failure::kVerifyFailed);
    CHECK(r.reason == "verification failed: verify: the step's verify condition is not true after 0.05 s: not yet");

    // A target verify that holds (the target is on the page the fallback-free scroll shows).
    StepSpec ok;
    ok.action = scrollAction("down", false);
    StepCheck shown;
    shown.target = f.image(f.target);
    ok.verify = shown;
    CHECK(executeStep(*f.session, ok).ok);
}

TEST_CASE("an optional step returns its failure; a required one throws it", "[step_engine]") {
    Fixture f;
    StepSpec s;
    s.action = f.tap(f.absent);
    s.timeout = 0.02;
    s.retry = 0;
    s.optional = true;
    StepResult r = runStep(*f.session, s);
    CHECK_FALSE(r.ok);
    CHECK(r.code == failure::kNotFound);
    std::string status;
    f.rowParams(r.step_id, &status);
    CHECK(status == "skipped");

    s.optional = false;
    try {
        runStep(*f.session, s);
        FAIL("expected a StepError");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kNotFound);
        CHECK(e.step_id > r.step_id);
    }
}

TEST_CASE("a risky step is refused without a confirmation and does nothing", "[step_engine]") {
    NoConfirmEnv env;
    Fixture f;
    int calls = 0;
    StepSpec s;
    s.action = counting(calls);
    s.risky = true;
    s.retry = 3;
    StepResult r = executeStep(*f.session, s);
    CHECK_FALSE(r.ok);
    CHECK(calls == 0);
    CHECK(r.code == failure::kRefused);
    CHECK(r.suggestion == "abort");
    CHECK_THAT(r.reason, Catch::StartsWith("refused: "));
    // Ask mode without a terminal (as under ctest) refuses too, failing closed.
    if (!::isatty(0) || !::isatty(2)) {
        f.session->confirmMode() = ConfirmMode::Ask;
        r = executeStep(*f.session, s);
        CHECK(r.code == failure::kRefused);
        CHECK_THAT(r.reason, Catch::Contains("no terminal"));
        CHECK(calls == 0);
    }
    f.session->confirmMode() = ConfirmMode::Yes;
    CHECK(executeStep(*f.session, s).ok);
    CHECK(calls == 1);
}

TEST_CASE("a cancellation, the deadline or the run's limits abort without retries", "[step_engine]") {
    int calls = 0;
    StepSpec s;
    s.retry = 3;
    s.fallback.push_back(scrollAction("down", false));
    StepResult r;

    SECTION("cancelled while the action waits") {
        Fixture f;
        s.action = counting(calls, [&f] {
            f.session->cancel().cancel();
            f.session->sleep(0.01);
        });
        r = executeStep(*f.session, s);
        CHECK(calls == 1);
        CHECK(r.attempts == 1);
        CHECK(r.code == failure::kCancelled);
        CHECK(r.suggestion == "abort");
        CHECK_THROWS_AS(std::rethrow_exception(r.cause), Cancelled);
    }

    SECTION("the run's deadline") {
        Fixture f;
        f.session->cancel().setDeadline(monotonicSeconds() - 1, "the run's time limit of 1 s is reached");
        s.action = counting(calls, [&f] { f.session->sleep(0.01); });
        r = executeStep(*f.session, s);
        CHECK(calls == 1);
        CHECK(r.code == failure::kTimeout);
        CHECK(r.reason == "the run's time limit of 1 s is reached");
    }

    SECTION("the run's action limit: one input allowed, the second is refused") {
        Fixture f;
        RunLimits one = f.session->limits().limits();
        one.max_actions = 1;
        f.session->limits().setLimits(one);
        StepSpec k;
        k.action = StepAction{};
        k.action->kind = "key";
        k.action->text = "a";
        k.retry = 3;
        CHECK(executeStep(*f.session, k).ok);
        r = executeStep(*f.session, k);
        CHECK(r.attempts == 1);
        CHECK(r.code == failure::kLimit);
        CHECK(r.suggestion == "abort");
        CHECK(f.device->keys == 1);
        REQUIRE(r.error);
        CHECK_THAT(std::string(r.error->what()), Catch::Contains("the run's limit of 1 actions is reached"));
    }
}

TEST_CASE("an abort in a fallback aborts the step", "[step_engine]") {
    Fixture f;
    StepSpec s;
    s.action = f.tap(f.absent);
    s.timeout = 0.02;
    s.retry = 2;
    int calls = 0;
    s.fallback.push_back(counting(calls, [] { throw LimitExceeded("scroll: the run's limit of 3 actions is reached"); }));
    StepResult r = executeStep(*f.session, s);
    CHECK(calls == 1);
    CHECK(r.attempts == 1);
    CHECK(r.code == failure::kLimit);
    CHECK_THAT(r.reason, Catch::Contains("; fallback 1: scroll: the run's limit"));
}

TEST_CASE("failure codes of exceptions", "[step_engine]") {
    auto code = [](auto e) { return failureCode(std::make_exception_ptr(e)); };
    CHECK(code(StepError(failure::kNoEffect, "x")) == "no_effect");
    CHECK(code(LimitExceeded("x")) == "limit");
    CHECK(code(Cancelled("cancelled", false)) == "cancelled");
    CHECK(code(Cancelled("time", true)) == "timeout");
    CHECK(code(model::ModelError("openai", 500, "down")) == "model");
    CHECK(code(DeviceError("gone")) == "device");
    CHECK(code(TargetNotFound("no such asset")) == "invalid");
    CHECK(code(std::invalid_argument("bad")) == "invalid");
    CHECK(code(std::runtime_error("other")) == "failed");
    CHECK(isAbortCode("limit"));
    CHECK_FALSE(isAbortCode("not_found"));
    StepError e = asStepError(std::make_exception_ptr(LimitExceeded("tap: limit")));
    CHECK(e.code == "limit");
    CHECK(std::string(e.what()) == "tap: limit");
}

TEST_CASE("scroll and swipe directions; action and step labels", "[step_engine]") {
    StepAction up = scrollAction("up", true);  // a swipe up shows what is below
    CHECK(up.dy == 3);
    CHECK(up.dx == 0);
    StepAction left = scrollAction("left", false, 5);
    CHECK(left.dx == -5);
    CHECK_THROWS_WITH(scrollAction("sideways", false), "scroll: expected up|down|left|right, got sideways");
    CHECK(actionLabel(up) == "swipe \"up\"");
    StepAction in;
    in.kind = "input";
    in.text = "hi";
    CHECK(actionLabel(in) == "input \"hi\"");
    StepSpec s;
    s.action = in;
    CHECK(stepLabel(s) == "input \"hi\"");
    s.name = "type it";
    CHECK(stepLabel(s) == "type it");
}

TEST_CASE("plan steps run through the step engine: fallbacks up to 3, failures by code", "[step_engine][plan]") {
    Fixture f;
    ModelContext ctx(*f.session, nullptr, model::CacheMode::Off);
    ctx.options().som_ocr = "";  // the screen has no text
    Plan p = parsePlan(R"({"steps": [
        {"action": "tap", "target_ref": "target", "timeout": 100, "retry": 0,
         "fallback": {"action": "scroll", "params": {"direction": "down"}}},
        {"action": "tap", "target_ref": "absent", "timeout": 50, "retry": 1,
         "fallback": {"action": "swipe", "params": {"direction": "up"}}},
        {"action": "tap", "target_ref": "dynamic:the send button", "timeout": 0, "retry": 2}]})");
    StepResult r = executePlanStep(ctx, p.steps[0]);
    CHECK(r.ok);
    CHECK(r.fallbacks == 1);
    CHECK(f.device->clicks == 1);

    r = executePlanStep(ctx, p.steps[1]);
    CHECK_FALSE(r.ok);
    CHECK(r.code == failure::kNotFound);
    CHECK(r.fallbacks == 3);
    CHECK(r.attempts == 2);
    CHECK(f.device->scrolls == 1 + 3);
    std::string status;
    nlohmann::json params = f.rowParams(r.step_id, &status);
    CHECK(status == "failed");
    CHECK(params["fallbacks"] == 3);

    // No model configured: the plan cannot go on; the model error comes as it was thrown.
    CHECK_THROWS_AS(executePlanStep(ctx, p.steps[2]), model::ModelError);
}
