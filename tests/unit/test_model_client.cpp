// Model clients against a real HTTP server on 127.0.0.1 that speaks both APIs.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <thread>

#include "base/Base64.h"
#include "../model_server/FakeModelServer.h"
#include "base/Frame.h"
#include "model/Action.h"
#include "model/Encoding.h"
#include "model/AnthropicClient.h"
#include "model/FallbackClient.h"
#include "model/ModelClient.h"
#include "model/OpenAIClient.h"
#include "model/ResponseCache.h"
#include "runlog/RunLog.h"

using namespace eacu;
using namespace eacu::model;
using eacu::testing::FakeModelServer;
using eacu::testing::FakeReply;
using json = nlohmann::json;

namespace {

const std::string kKey = "sk-test-SECRET-0123456789abcdef";

ProviderConfig anthropicCfg(const FakeModelServer& s) {
    ProviderConfig c;
    c.provider = "anthropic";
    c.model = "claude-test";
    c.base_url = s.url();
    c.api_key = kKey;
    c.http.timeout_s = 5;
    c.http.max_retries = 2;
    c.http.backoff_base_s = 0.01;
    c.http.backoff_max_s = 0.05;
    c.http.cancel = [] { return false; };
    return c;
}

ProviderConfig openaiCfg(const FakeModelServer& s) {
    ProviderConfig c = anthropicCfg(s);
    c.provider = "openai";
    c.model = "qwen-test";
    c.base_url = s.url() + "/v1/";
    c.api_key = "sk-openai-SECRET-abcdef0123";
    return c;
}

Request screenshotRequest() {
    Request r;
    r.system = "You drive a desktop.";
    r.cache_system = true;
    r.messages.push_back(Message::user({Part::image(std::string("\x89PNG\r\n\x1a\nfake", 12), "image/png", 7),
                                        Part::textPart("# 任务：compute 12*34")}));
    r.max_tokens = 256;
    return r;
}

}  // namespace

TEST_CASE("anthropic: a well-formed request and a text answer", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {200, FakeModelServer::anthropicText(R"({"action":"done"})")});
    AnthropicClient c(anthropicCfg(s));
    Request req = screenshotRequest();
    markPromptCache(req);
    Response r = c.complete(req);
    CHECK(r.text == R"({"action":"done"})");
    CHECK(r.provider == "anthropic");
    CHECK(r.stop_reason == "end_turn");
    CHECK(r.usage.input_tokens == 120);
    CHECK(r.usage.output_tokens == 12);
    CHECK(r.usage.cache_read_tokens == 100);
    CHECK(r.usage.cache_creation_tokens == 7);
    CHECK(r.attempts == 1);
    CHECK(r.latency_s > 0);

    auto reqs = s.requests();
    REQUIRE(reqs.size() == 1);
    const auto& q = reqs[0];
    CHECK(q.path == "/v1/messages");
    CHECK(q.header("x-api-key") == kKey);
    CHECK(q.header("anthropic-version") == "2023-06-01");
    CHECK(q.header("content-type") == "application/json");
    CHECK(q.header("anthropic-beta").empty());
    REQUIRE_FALSE(q.json.is_discarded());
    CHECK(q.json["model"] == "claude-test");
    CHECK(q.json["max_tokens"] == 256);
    CHECK(q.json["system"][0]["text"] == "You drive a desktop.");
    CHECK(q.json["system"][0]["cache_control"]["type"] == "ephemeral");
    const json& m0 = q.json["messages"][0];
    CHECK(m0["role"] == "user");
    CHECK(m0["content"][0]["type"] == "image");
    CHECK(m0["content"][0]["source"]["type"] == "base64");
    CHECK(m0["content"][0]["source"]["media_type"] == "image/png");
    CHECK(base64Decode(m0["content"][0]["source"]["data"].get<std::string>()) == std::string("\x89PNG\r\n\x1a\nfake", 12));
    CHECK(m0["content"][1]["text"] == "# 任务：compute 12*34");
    CHECK(m0["content"][1]["cache_control"]["type"] == "ephemeral");  // last block of the user turn
    CHECK_FALSE(m0["content"][0].contains("cache_control"));
}

TEST_CASE("anthropic: the computer tool (both versions) and tool_use answers", "[model]") {
    FakeModelServer s;
    AnthropicClient c(anthropicCfg(s));
    for (std::string version : {"computer_20250124", "computer_20251124"}) {
        s.script("/v1/messages", {200, FakeModelServer::anthropicToolUse("toolu_1", "computer",
                                                                         {{"action", "left_click"}, {"coordinate", {512, 384}}})});
        Request req = screenshotRequest();
        req.computer = ComputerTool{version, 1280, 800, 1, true};
        req.tools.push_back({"report", "Report a result", {{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}}});
        Response r = c.complete(req);
        REQUIRE(r.tool_calls.size() == 1);
        CHECK(r.tool_calls[0].id == "toolu_1");
        CHECK(r.tool_calls[0].name == "computer");
        CHECK(r.tool_calls[0].input["action"] == "left_click");
        CHECK(r.tool_calls[0].input["coordinate"][0] == 512);
        CHECK(r.text == "Clicking.");
        CHECK(r.stop_reason == "tool_use");

        auto q = s.requests().back();
        std::string beta = version == "computer_20250124" ? "computer-use-2025-01-24" : "computer-use-2025-11-24";
        CHECK(q.header("anthropic-beta") == beta);
        const json& tools = q.json["tools"];
        REQUIRE(tools.size() == 2);
        CHECK(tools[0]["name"] == "report");
        CHECK(tools[0]["input_schema"]["type"] == "object");
        CHECK(tools[1]["type"] == version);
        CHECK(tools[1]["name"] == "computer");
        CHECK(tools[1]["display_width_px"] == 1280);
        CHECK(tools[1]["display_height_px"] == 800);
        CHECK(tools[1]["display_number"] == 1);
        CHECK(tools[1].contains("enable_zoom") == (version == "computer_20251124"));
    }
    // A tool result goes back as a user turn with tool_result content.
    Request next = screenshotRequest();
    next.messages.push_back({"assistant", {Part::toolUse("toolu_1", "computer", {{"action", "screenshot"}})}});
    Part res = Part::toolResult("toolu_1", "done");
    res.data = "PNGDATA";
    next.messages.push_back(Message::user({res}));
    json b = c.buildBody(next);
    CHECK(b["messages"][1]["content"][0]["type"] == "tool_use");
    CHECK(b["messages"][2]["content"][0]["type"] == "tool_result");
    CHECK(b["messages"][2]["content"][0]["tool_use_id"] == "toolu_1");
    CHECK(b["messages"][2]["content"][0]["content"][1]["type"] == "image");
    CHECK_THROWS_WITH(computerBetaFlag("computer_2099"), Catch::Contains("computer_20250124"));
}

TEST_CASE("openai-compatible: data-URI images, system message, tool calls", "[model]") {
    FakeModelServer s;
    s.script("/v1/chat/completions", {200, FakeModelServer::openaiText("```json\n{\"action\":\"click\",\"element_id\":2}\n```")});
    s.script("/v1/chat/completions",
             {200, FakeModelServer::openaiToolCall("call_1", "click", R"({"element_id": 3})")});
    OpenAIClient c(openaiCfg(s));
    Request req = screenshotRequest();
    req.json_mode = true;
    req.tools.push_back({"click", "Click an element", {{"type", "object"}}});
    Response r = c.complete(req);
    CHECK(r.provider == "openai");
    CHECK(r.usage.input_tokens == 80);
    CHECK(r.usage.output_tokens == 9);
    ActionContext ctx;
    ctx.elements = {{2, Rect{10, 10, 20, 20}}};
    ctx.screen = {100, 100};
    CHECK(parseAction(r.text, ctx).point == Point{20, 20});

    auto q = s.requests()[0];
    CHECK(q.path == "/v1/chat/completions");
    CHECK(q.header("authorization") == "Bearer sk-openai-SECRET-abcdef0123");
    CHECK(q.json["model"] == "qwen-test");
    CHECK(q.json["messages"][0]["role"] == "system");
    CHECK(q.json["messages"][0]["content"] == "You drive a desktop.");
    const json& u = q.json["messages"][1];
    CHECK(u["role"] == "user");
    CHECK(u["content"][0]["type"] == "image_url");
    std::string url = u["content"][0]["image_url"]["url"];
    CHECK(url.rfind("data:image/png;base64,", 0) == 0);
    CHECK(base64Decode(url.substr(22)) == std::string("\x89PNG\r\n\x1a\nfake", 12));
    CHECK(u["content"][1]["type"] == "text");
    CHECK(q.json["response_format"]["type"] == "json_object");
    CHECK(q.json["tools"][0]["type"] == "function");
    CHECK(q.json["tools"][0]["function"]["name"] == "click");

    Response t = c.complete(req);
    REQUIRE(t.tool_calls.size() == 1);
    CHECK(t.tool_calls[0].name == "click");
    CHECK(t.tool_calls[0].input["element_id"] == 3);
    CHECK(t.stop_reason == "tool_calls");
    // The computer tool is Anthropic's only.
    req.computer = ComputerTool{};
    CHECK_THROWS_AS(c.buildBody(req), std::invalid_argument);
}

TEST_CASE("429 with Retry-After is retried after the time it asks for", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {429, FakeModelServer::anthropicError("rate_limit_error", "slow down"), {{"retry-after", "1"}}});
    s.script("/v1/messages", {200, FakeModelServer::anthropicText("ok")});
    AnthropicClient c(anthropicCfg(s));  // backoff without Retry-After would be ~0.01 s
    Response r = c.complete(screenshotRequest());
    CHECK(r.text == "ok");
    CHECK(r.attempts == 2);
    auto q = s.requests();
    REQUIRE(q.size() == 2);
    CHECK(q[1].t - q[0].t >= 0.95);
    CHECK(q[1].t - q[0].t < 3.0);
}

TEST_CASE("5xx is retried with backoff, then the fallback provider answers", "[model]") {
    FakeModelServer s;
    for (int i = 0; i < 3; ++i)
        s.script("/v1/messages", {500, FakeModelServer::anthropicError("api_error", "internal trouble")});
    s.script("/v1/chat/completions", {200, FakeModelServer::openaiText(R"({"action":"wait"})")});
    std::vector<std::unique_ptr<ModelClient>> chain;
    chain.push_back(makeClient(anthropicCfg(s)));
    chain.push_back(makeClient(openaiCfg(s)));
    FallbackClient fb(std::move(chain));
    std::vector<std::string> fallbacks;
    fb.on_fallback = [&](const ModelError& e, const ModelClient& next) {
        fallbacks.push_back(std::string(e.what()) + " -> " + next.provider());
        CHECK(e.status() >= 500);
    };
    Response r = fb.complete(screenshotRequest());
    CHECK(r.provider == "openai");
    CHECK(r.text == R"({"action":"wait"})");
    REQUIRE(fallbacks.size() == 1);
    CHECK_THAT(fallbacks[0], Catch::Contains("anthropic claude-test: HTTP 500: api_error: internal trouble (after 3 attempts)"));
    auto q = s.requests();
    REQUIRE(q.size() == 4);  // 1 + 2 retries, then the fallback
    CHECK(q[3].path == "/v1/chat/completions");

    SECTION("when every provider fails, one error lists them all") {
        for (int i = 0; i < 3; ++i) s.script("/v1/messages", {503, "upstream down", {}, 0, "text/plain"});
        for (int i = 0; i < 3; ++i) s.script("/v1/chat/completions", {502, FakeModelServer::openaiError("bad gateway")});
        try {
            fb.complete(screenshotRequest());
            FAIL("expected an error");
        } catch (const ModelError& e) {
            std::string m = e.what();
            CHECK_THAT(m, Catch::Contains("all 2 model providers failed"));
            CHECK_THAT(m, Catch::Contains("anthropic claude-test: HTTP 503: upstream down"));
            CHECK_THAT(m, Catch::Contains("openai qwen-test: HTTP 502: invalid_request_error: bad gateway"));
        }
    }
}

TEST_CASE("401 names provider, status and message, never the key", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {401, FakeModelServer::anthropicError("authentication_error", "invalid x-api-key " + kKey.substr(0, 14) + "...")});
    s.script("/v1/chat/completions", {401, FakeModelServer::openaiError("Incorrect API key provided: sk-openai-SECRET-abcdef0123")});
    AnthropicClient a(anthropicCfg(s));
    OpenAIClient o(openaiCfg(s));
    try {
        a.complete(screenshotRequest());
        FAIL("expected an error");
    } catch (const ModelError& e) {
        std::string m = e.what();
        CHECK(e.status() == 401);
        CHECK(e.provider() == "anthropic");
        CHECK_FALSE(e.retryable());
        CHECK_THAT(m, Catch::Contains("anthropic claude-test: HTTP 401: authentication_error: invalid x-api-key"));
        CHECK_THAT(m, !Catch::Contains("SECRET"));
    }
    try {
        o.complete(screenshotRequest());
        FAIL("expected an error");
    } catch (const ModelError& e) {
        std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("openai qwen-test: HTTP 401: invalid_request_error: Incorrect API key provided"));
        CHECK_THAT(m, !Catch::Contains("SECRET"));
    }
    CHECK(s.count() == 2);  // 401 is not retried
}

TEST_CASE("a reply slower than the timeout fails with a timeout error", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {200, FakeModelServer::anthropicText("late"), {}, 3.0});
    ProviderConfig cfg = anthropicCfg(s);
    cfg.http.timeout_s = 0.3;
    cfg.http.max_retries = 0;
    AnthropicClient c(cfg);
    double t0 = monotonicSeconds();
    try {
        c.complete(screenshotRequest());
        FAIL("expected a timeout");
    } catch (const ModelError& e) {
        CHECK(e.status() == 0);
        CHECK_FALSE(e.cancelled());
        CHECK_THAT(std::string(e.what()), Catch::Contains("anthropic claude-test: POST " + s.url() + "/v1/messages"));
        CHECK_THAT(std::string(e.what()), Catch::Contains("timed out") || Catch::Contains("Timeout"));
        CHECK_THAT(std::string(e.what()), Catch::Contains("after 1 attempt"));
    }
    CHECK(monotonicSeconds() - t0 < 2.0);
}

TEST_CASE("a call in flight is cancelled by its flag", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {200, FakeModelServer::anthropicText("late"), {}, 10.0});
    std::atomic<bool> cancel{false};
    ProviderConfig cfg = anthropicCfg(s);
    cfg.http.cancel = [&] { return cancel.load(); };
    AnthropicClient c(cfg);
    std::thread canceller([&] {
        if (s.waitForRequests(1, 5.0)) cancel = true;
    });
    double t0 = monotonicSeconds();
    try {
        c.complete(screenshotRequest());
        FAIL("expected cancellation");
    } catch (const ModelError& e) {
        CHECK(e.cancelled());
        CHECK_THAT(std::string(e.what()), Catch::Contains("cancelled"));
    }
    canceller.join();
    CHECK(monotonicSeconds() - t0 < 3.0);

    SECTION("also while waiting to retry") {
        cancel = false;
        s.script("/v1/messages", {429, "{}", {{"retry-after", "30"}}});
        std::thread later([&] {
            if (s.waitForRequests(2, 5.0)) cancel = true;
        });
        double t1 = monotonicSeconds();
        CHECK_THROWS_AS(c.complete(screenshotRequest()), ModelError);
        later.join();
        CHECK(monotonicSeconds() - t1 < 3.0);
    }
}

TEST_CASE("a body that is not JSON, or an answer that is not an action, is an error with the text", "[model]") {
    FakeModelServer s;
    s.script("/v1/messages", {200, "<html>gateway says hi</html>", {}, 0, "text/html"});
    s.script("/v1/chat/completions", {200, FakeModelServer::openaiText("I think you should click the blue button.")});
    AnthropicClient a(anthropicCfg(s));
    CHECK_THROWS_WITH(a.complete(screenshotRequest()),
                      Catch::Contains("anthropic claude-test: HTTP 200: expected a JSON object, got: <html>gateway says hi</html>"));
    OpenAIClient o(openaiCfg(s));
    Response r = o.complete(screenshotRequest());
    CHECK_THROWS_WITH(parseAction(r.text, ActionContext{}),
                      Catch::Contains("not JSON") && Catch::Contains("I think you should click the blue button."));
    // Well-formed JSON that is not a message.
    CHECK_THROWS_AS(AnthropicClient::parseBody(json{{"foo", 1}}), ModelError);
    CHECK_THROWS_AS(OpenAIClient::parseBody(json{{"choices", json::array()}}), ModelError);
    // Token counts that are no count (beyond int64, a float, negative) are unknown: 0.
    json anth = json::parse(R"({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}],
        "usage": {"input_tokens": 888888888888888888887, "output_tokens": -5, "cache_read_input_tokens": 2.5,
                  "cache_creation_input_tokens": 7}})");
    Response ra = AnthropicClient::parseBody(anth);
    CHECK(ra.usage.input_tokens == 0);
    CHECK(ra.usage.output_tokens == 0);
    CHECK(ra.usage.cache_read_tokens == 0);
    CHECK(ra.usage.cache_creation_tokens == 7);
    json oai = json::parse(R"({"choices": [{"message": {"role": "assistant", "content": "hi"}}],
        "usage": {"prompt_tokens": 1e300, "completion_tokens": 12}})");
    Response ro = OpenAIClient::parseBody(oai);
    CHECK(ro.usage.input_tokens == 0);
    CHECK(ro.usage.output_tokens == 12);
    // Fields of another type (a tool name that is an object, a block that is a number) are
    // left empty, never a json type_error.
    Response rt = AnthropicClient::parseBody(json::parse(R"({"content": [7, {"type": "tool_use", "id": 3,
        "name": {"action": "left_click"}, "input": {}}, {"type": "text", "text": ["x"]}], "stop_reason": 1})"));
    REQUIRE(rt.tool_calls.size() == 1);
    CHECK(rt.tool_calls[0].name.empty());
    CHECK(rt.text.empty());
    Response rc = OpenAIClient::parseBody(json::parse(R"({"choices": [{"message": {"content": [5, {"type": "text",
        "text": 9}], "tool_calls": [1, {"id": [], "function": {"name": {}, "arguments": "{}"}}]}}], "model": 2})"));
    CHECK(rc.text.empty());
    CHECK(rc.tool_calls.size() == 2);
}

TEST_CASE("connection refused is retried, then reported", "[model]") {
    int dead_port;
    {
        FakeModelServer s;
        dead_port = s.port();
    }
    ProviderConfig c;
    c.provider = "openai";
    c.model = "m";
    c.base_url = "http://127.0.0.1:" + std::to_string(dead_port) + "/v1";
    c.http.max_retries = 1;
    c.http.backoff_base_s = 0.01;
    c.http.cancel = [] { return false; };
    OpenAIClient o(c);
    CHECK_THROWS_WITH(o.complete(screenshotRequest()), Catch::Contains("openai m: POST") && Catch::Contains("after 2 attempts"));
}

TEST_CASE("configuration from the environment", "[model]") {
    std::map<std::string, std::string> env = {
        {"EACU_MODEL_PROVIDER", "anthropic"},        {"EACU_MODEL", "claude-sonnet-4-5"},
        {"EACU_MODEL_API_KEY", "k1"},                {"EACU_MODEL_TIMEOUT", "12.5"},
        {"EACU_MODEL_FALLBACK_PROVIDER", "openai"}, {"EACU_MODEL_FALLBACK_MODEL", "Qwen2.5-VL-7B"},
        {"EACU_MODEL_FALLBACK_BASE_URL", "http://vllm.local:8000/v1"}, {"OPENAI_API_KEY", "k2"}};
    auto get = [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    auto p = providerFromEnv("EACU_MODEL", get);
    REQUIRE(p);
    CHECK(p->endpoint() == "https://api.anthropic.com/v1/messages");
    CHECK(p->model == "claude-sonnet-4-5");
    CHECK(p->api_key == "k1");
    CHECK(p->http.timeout_s == 12.5);
    auto f = providerFromEnv("EACU_MODEL_FALLBACK", get);
    REQUIRE(f);
    CHECK(f->endpoint() == "http://vllm.local:8000/v1/chat/completions");
    CHECK(f->api_key == "k2");
    auto client = makeClientFromEnv(get);
    REQUIRE(client);
    auto* chain = dynamic_cast<FallbackClient*>(client.get());
    REQUIRE(chain);
    CHECK(chain->chain().size() == 2);
    CHECK(chain->chain()[1]->provider() == "openai");

    env["EACU_MODEL_PROVIDER"] = "gemini";
    CHECK_THROWS_WITH(providerFromEnv("EACU_MODEL", get), Catch::Contains("expected anthropic|openai, got \"gemini\""));
    env["EACU_MODEL_PROVIDER"] = "";
    CHECK_FALSE(providerFromEnv("EACU_MODEL", get));
    CHECK(makeClientFromEnv(get) == nullptr);
    env["EACU_MODEL_PROVIDER"] = "openai";
    env.erase("EACU_MODEL");
    CHECK_THROWS_WITH(providerFromEnv("EACU_MODEL", get), Catch::Contains("EACU_MODEL: expected a model name"));
    ProviderConfig dflt;
    dflt.provider = "openai";
    CHECK(dflt.endpoint() == "https://api.openai.com/v1/chat/completions");
}

TEST_CASE("the redacted request has frame references and no key", "[model]") {
    FakeModelServer s;
    AnthropicClient a(anthropicCfg(s));
    OpenAIClient o(openaiCfg(s));
    Request req = screenshotRequest();
    req.computer = ComputerTool{};
    json ra = a.redactedRequest(req);
    std::string da = ra.dump();
    CHECK(ra["url"] == s.url() + "/v1/messages");
    CHECK(ra["anthropic_beta"][0] == "computer-use-2025-01-24");
    CHECK(ra["body"]["messages"][0]["content"][0]["source"]["type"] == "frame_ref");
    CHECK(ra["body"]["messages"][0]["content"][0]["source"]["frame_id"] == 7);
    CHECK(da.find("SECRET") == std::string::npos);
    CHECK(da.find(base64Encode(std::string("\x89PNG\r\n\x1a\nfake", 12))) == std::string::npos);
    req.computer.reset();
    json ro = o.redactedRequest(req);
    CHECK(ro["body"]["messages"][1]["content"][0]["image_url"]["url"] == "frame:7");
    CHECK(ro.dump().find("SECRET") == std::string::npos);
    CHECK(ro.dump().find("base64") == std::string::npos);
}

TEST_CASE("response cache: record, then replay with no network; stale screens and assertions go live", "[model]") {
    FakeModelServer s;
    s.respond([](const eacu::testing::FakeRequest&) {
        return FakeReply{200, FakeModelServer::anthropicText(R"({"action":"click","element_id":1})")};
    });
    RunLog log(":memory:");  // the run log is the model layer's ModelCallStore
    cv::Mat screen(90, 160, CV_8UC3, cv::Scalar(200, 200, 200));
    cv::Mat other(90, 160, CV_8UC3, cv::Scalar(20, 20, 20));
    std::string fp = screenFingerprint(screen);
    CHECK(fingerprintDistance(fp, fp) == 0.0);
    CHECK(fingerprintDistance(fp, screenFingerprint(other)) > 0.5);

    AnthropicClient live(anthropicCfg(s));
    CallMeta meta;
    meta.kind = "autopilot";
    meta.prompt = "compute 12*34";
    meta.elements = "  [1] 🔘 button | \"1\" | 屏幕下左";
    meta.fingerprint = fp;
    meta.frame_ids = {3};
    {
        ModelCaller rec(&live, &log, CacheMode::Record, 1);
        Response r = rec.call(screenshotRequest(), meta);
        CHECK_FALSE(r.from_cache);
        CHECK(s.count() == 1);
    }
    auto rows = log.modelCalls(1);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == "ok");
    CHECK(rows[0].seq == 1);
    CHECK(rows[0].cache_key.size() == 64);
    CHECK(rows[0].provider == "anthropic");
    CHECK(rows[0].input_tokens == 120);
    CHECK(rows[0].frame_ids_json == "[3]");
    CHECK(rows[0].request_json.find("SECRET") == std::string::npos);
    CHECK(rows[0].request_json.find("frame_ref") != std::string::npos);

    // Replay with no client at all: answered from the cache.
    ModelCaller rep(nullptr, &log, CacheMode::Replay, 2);
    rep.key_provider = "anthropic";
    rep.key_model = "claude-test";
    Response r = rep.call(screenshotRequest(), meta);
    CHECK(r.from_cache);
    CHECK(r.text == R"({"action":"click","element_id":1})");
    CHECK(s.count() == 1);
    CHECK(log.modelCalls(2).at(0).status == "cached");

    // Position 2 was never recorded: no model → a clear error.
    CHECK_THROWS_WITH(rep.call(screenshotRequest(), meta),
                      Catch::Contains("model cache replay: autopilot call #2") && Catch::Contains("no recorded answer") &&
                          Catch::Contains("no model is configured"));

    // A different screen at the same position: not used; with a client the call goes live.
    ModelCaller rep2(&live, &log, CacheMode::Replay, 3);
    CallMeta changed = meta;
    changed.fingerprint = screenFingerprint(other);
    Response r2 = rep2.call(screenshotRequest(), changed);
    CHECK_FALSE(r2.from_cache);
    CHECK(s.count() == 2);
    // A validator that rejects the cached answer also forces a live call.
    ModelCaller rep3(&live, &log, CacheMode::Replay, 4);
    CallMeta validated = meta;
    validated.validate = [](const Response&) { return false; };
    CHECK_FALSE(rep3.call(screenshotRequest(), validated).from_cache);
    CHECK(s.count() == 3);
    // Assertions are never cached.
    ModelCaller rep4(nullptr, &log, CacheMode::Replay, 5);
    rep4.key_provider = "anthropic";
    rep4.key_model = "claude-test";
    CallMeta assertion = meta;
    assertion.kind = "assert";
    assertion.cacheable = false;
    CHECK_THROWS_WITH(rep4.call(screenshotRequest(), assertion), Catch::Contains("not cacheable"));
    // Errors are logged, never replayed.
    s.script("/v1/messages", {400, FakeModelServer::anthropicError("invalid_request_error", "bad image")});
    ModelCaller off(&live, &log, CacheMode::Off, 6);
    CHECK_THROWS_AS(off.call(screenshotRequest(), meta), ModelError);
    auto last = log.modelCalls(6).at(0);
    CHECK(last.status == "error");
    CHECK(last.http_status == 400);
    CHECK(last.cache_key.empty());
    CHECK_THAT(last.error, Catch::Contains("bad image"));
}
