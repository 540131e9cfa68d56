// The OpenAI-compatible chat-completions client.
#include "model/OpenAIClient.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "base/Base64.h"
#include "model/JsonInteger.h"
#include "model/ModelClientSupport.h"

namespace eacu::model {

using json = nlohmann::json;
using detail::parseJsonBody;
using detail::snippet;
using detail::stringField;
using detail::throwHttpError;
using detail::timed;

OpenAIClient::OpenAIClient(ProviderConfig cfg) : cfg_(std::move(cfg)) {
    cfg_.provider = "openai";
    if (cfg_.model.empty()) throw std::invalid_argument("openai client: expected a model name, got nothing");
}

json OpenAIClient::body(const Request& req, bool redact) const {
    if (req.computer)
        throw std::invalid_argument("openai request: the Anthropic computer tool is not available on "
                                    "chat completions; describe actions with function tools instead");
    auto imagePart = [&](const Part& p) {
        std::string url = redact ? "frame:" + std::to_string(p.frame_id)
                                 : "data:" + p.media_type + ";base64," + base64Encode(p.data);
        json part = {{"type", "image_url"}, {"image_url", {{"url", url}}}};
        if (redact) part["image_url"]["bytes"] = p.data.size();
        return part;
    };
    json msgs = json::array();
    if (!req.system.empty()) msgs.push_back({{"role", "system"}, {"content", req.system}});
    for (const auto& m : req.messages) {
        if (m.role != "user" && m.role != "assistant")
            throw std::invalid_argument("openai request: expected role user|assistant, got \"" + m.role + "\"");
        json content = json::array();
        json tool_calls = json::array();
        std::vector<json> tool_msgs;
        json pending_images = json::array();  // images returned by tools go in a user message after
        for (const auto& p : m.parts) {
            switch (p.kind) {
            case Part::Kind::Text: content.push_back({{"type", "text"}, {"text", p.text}}); break;
            case Part::Kind::Image: content.push_back(imagePart(p)); break;
            case Part::Kind::ToolUse:
                tool_calls.push_back({{"id", p.tool_id},
                                      {"type", "function"},
                                      {"function", {{"name", p.tool_name}, {"arguments", p.tool_input.dump()}}}});
                break;
            case Part::Kind::ToolResult:
                tool_msgs.push_back({{"role", "tool"}, {"tool_call_id", p.tool_id},
                                     {"content", p.is_error ? "error: " + p.text : p.text}});
                if (!p.data.empty()) pending_images.push_back(imagePart(p));
                break;
            }
        }
        for (auto& t : tool_msgs) msgs.push_back(std::move(t));
        if (m.role == "assistant") {
            std::string text;
            for (const auto& c : content)
                if (c["type"] == "text") text += c["text"].get<std::string>();
            json a = {{"role", "assistant"}, {"content", text}};
            if (!tool_calls.empty()) a["tool_calls"] = tool_calls;
            msgs.push_back(a);
        } else {
            for (auto& i : pending_images) content.push_back(i);
            if (!content.empty()) msgs.push_back({{"role", "user"}, {"content", content}});
        }
    }
    json b = {{"model", cfg_.model}, {"messages", msgs}, {"max_tokens", req.max_tokens}};
    if (req.temperature) b["temperature"] = *req.temperature;
    if (req.json_mode) b["response_format"] = {{"type", "json_object"}};
    if (!req.tools.empty()) {
        json tools = json::array();
        for (const auto& t : req.tools)
            tools.push_back({{"type", "function"},
                             {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.input_schema}}}});
        b["tools"] = tools;
    }
    return b;
}

json OpenAIClient::buildBody(const Request& req) const { return body(req, false); }

json OpenAIClient::redactedRequest(const Request& req) const {
    return {{"provider", "openai"}, {"model", cfg_.model}, {"url", cfg_.endpoint()}, {"body", body(req, true)}};
}

Response OpenAIClient::parseBody(const json& j) {
    if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
        !j["choices"][0].contains("message") || !j["choices"][0]["message"].is_object())
        throw ModelError("openai", 200, "openai: expected a chat.completion with choices[0].message, got: " +
                                            snippet(j.dump(), 200));
    Response r;
    const json& c0 = j["choices"][0];
    const json& msg = c0["message"];
    if (msg.contains("content")) {
        const json& c = msg["content"];
        if (c.is_string()) r.text = c.get<std::string>();
        else if (c.is_array())
            for (const auto& p : c)
                if (stringField(p, "type") == "text") r.text += stringField(p, "text");
    }
    if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
        for (const auto& tc : msg["tool_calls"]) {
            ToolCall call;
            call.id = stringField(tc, "id");
            const json& f = tc.contains("function") ? tc["function"] : json::object();
            call.name = stringField(f, "name");
            if (f.contains("arguments")) {
                const json& a = f["arguments"];
                json args = a.is_string() ? json::parse(a.get<std::string>(), nullptr, false) : a;
                if (args.is_discarded() || !args.is_object())
                    throw ModelError("openai", 200, "openai: tool call " + call.name +
                                                        ": expected JSON object arguments, got: " +
                                                        snippet(a.is_string() ? a.get<std::string>() : a.dump(), 200));
                call.input = args;
            }
            r.tool_calls.push_back(call);
        }
    }
    r.stop_reason = c0.contains("finish_reason") && c0["finish_reason"].is_string() ? c0["finish_reason"].get<std::string>() : "";
    r.model = stringField(j, "model");
    if (j.contains("usage") && j["usage"].is_object()) {
        const json& u = j["usage"];
        // A count that is not a non-negative integer (a float, 1e300, -5) is unknown: 0.
        auto n = [](const json& o, const char* k) -> int64_t {
            return o.is_object() && o.contains(k) ? jsonInteger(o[k], 0, INT64_MAX).value_or(0) : 0;
        };
        r.usage.input_tokens = n(u, "prompt_tokens");
        r.usage.output_tokens = n(u, "completion_tokens");
        if (u.contains("prompt_tokens_details")) r.usage.cache_read_tokens = n(u["prompt_tokens_details"], "cached_tokens");
    }
    r.raw = j;
    return r;
}

Response OpenAIClient::complete(const Request& req) {
    return timed("openai", cfg_, [&] {
        std::vector<std::string> h = {"content-type: application/json"};
        if (!cfg_.api_key.empty()) h.push_back("authorization: Bearer " + cfg_.api_key);
        return detail::postAndParse(
            "openai", cfg_, h, buildBody(req).dump(),
            [](const json& j) { return j.contains("error") && !j.contains("choices"); },
            parseBody);
    });
}

}  // namespace eacu::model
