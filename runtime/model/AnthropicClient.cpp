// The Anthropic Messages API client.
#include "model/AnthropicClient.h"

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

std::string computerBetaFlag(const std::string& version) {
    // claude-quickstarts computer-use-demo tools/groups.py
    if (version == "computer_20241022") return "computer-use-2024-10-22";
    if (version == "computer_20250124") return "computer-use-2025-01-24";
    if (version == "computer_20251124") return "computer-use-2025-11-24";
    throw std::invalid_argument("computer tool: expected version computer_20241022|computer_20250124|"
                                "computer_20251124, got \"" + version + "\"");
}

AnthropicClient::AnthropicClient(ProviderConfig cfg) : cfg_(std::move(cfg)) {
    cfg_.provider = "anthropic";
    if (cfg_.model.empty()) throw std::invalid_argument("anthropic client: expected a model name, got nothing");
}

std::vector<std::string> AnthropicClient::betas(const Request& req) const {
    std::vector<std::string> b;
    if (req.computer) b.push_back(computerBetaFlag(req.computer->version));
    for (const auto& x : req.betas)
        if (std::find(b.begin(), b.end(), x) == b.end()) b.push_back(x);
    return b;
}

json AnthropicClient::body(const Request& req, bool redact) const {
    auto cc = [](json& block, bool on) {
        if (on) block["cache_control"] = {{"type", "ephemeral"}};
    };
    auto imageBlock = [&](const Part& p) {
        json src = redact ? json{{"type", "frame_ref"}, {"frame_id", p.frame_id}, {"media_type", p.media_type},
                                 {"bytes", p.data.size()}}
                          : json{{"type", "base64"}, {"media_type", p.media_type}, {"data", base64Encode(p.data)}};
        return json{{"type", "image"}, {"source", src}};
    };
    json b = {{"model", cfg_.model}, {"max_tokens", req.max_tokens}};
    if (!req.system.empty()) {
        json s = {{"type", "text"}, {"text", req.system}};
        cc(s, req.cache_system);
        b["system"] = json::array({s});
    }
    json msgs = json::array();
    for (const auto& m : req.messages) {
        if (m.role != "user" && m.role != "assistant")
            throw std::invalid_argument("anthropic request: expected role user|assistant, got \"" + m.role + "\"");
        json content = json::array();
        for (const auto& p : m.parts) {
            json block;
            switch (p.kind) {
            case Part::Kind::Text: block = {{"type", "text"}, {"text", p.text}}; break;
            case Part::Kind::Image: block = imageBlock(p); break;
            case Part::Kind::ToolUse:
                block = {{"type", "tool_use"}, {"id", p.tool_id}, {"name", p.tool_name}, {"input", p.tool_input}};
                break;
            case Part::Kind::ToolResult: {
                json c = json::array();
                if (!p.text.empty()) c.push_back({{"type", "text"}, {"text", p.text}});
                if (!p.data.empty()) c.push_back(imageBlock(p));
                block = {{"type", "tool_result"}, {"tool_use_id", p.tool_id}, {"content", c}};
                if (p.is_error) block["is_error"] = true;
                break;
            }
            }
            cc(block, p.cache);
            content.push_back(block);
        }
        msgs.push_back({{"role", m.role}, {"content", content}});
    }
    b["messages"] = msgs;
    json tools = json::array();
    for (const auto& t : req.tools)
        tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", t.input_schema}});
    if (req.computer) {
        const auto& c = *req.computer;
        computerBetaFlag(c.version);  // validates the version
        json t = {{"type", c.version},
                  {"name", "computer"},
                  {"display_width_px", c.display_width_px},
                  {"display_height_px", c.display_height_px}};
        if (c.display_number) t["display_number"] = *c.display_number;
        if (c.enable_zoom && c.version == "computer_20251124") t["enable_zoom"] = true;
        tools.push_back(t);
    }
    if (!tools.empty()) b["tools"] = tools;
    if (req.temperature) b["temperature"] = *req.temperature;
    return b;
}

json AnthropicClient::buildBody(const Request& req) const { return body(req, false); }

json AnthropicClient::redactedRequest(const Request& req) const {
    json r = {{"provider", "anthropic"}, {"model", cfg_.model}, {"url", cfg_.endpoint()}, {"body", body(req, true)}};
    auto b = betas(req);
    if (!b.empty()) r["anthropic_beta"] = b;
    return r;
}

Response AnthropicClient::parseBody(const json& j) {
    if (!j.is_object() || !j.contains("content") || !j["content"].is_array())
        throw ModelError("anthropic", 200, "anthropic: expected a message with a content array, got: " +
                                               snippet(j.dump(), 200));
    Response r;
    for (const auto& block : j["content"]) {
        std::string type = stringField(block, "type");
        if (type == "text") r.text += stringField(block, "text");
        else if (type == "tool_use")
            r.tool_calls.push_back({stringField(block, "id"), stringField(block, "name"),
                                    block.contains("input") ? block["input"] : json::object()});
    }
    r.stop_reason = stringField(j, "stop_reason");
    r.model = stringField(j, "model");
    if (j.contains("usage") && j["usage"].is_object()) {
        const json& u = j["usage"];
        // A count that is not a non-negative integer (a float, 1e300, -5) is unknown: 0.
        auto n = [&](const char* k) -> int64_t {
            return u.contains(k) ? jsonInteger(u[k], 0, INT64_MAX).value_or(0) : 0;
        };
        r.usage = {n("input_tokens"), n("output_tokens"), n("cache_read_input_tokens"),
                   n("cache_creation_input_tokens")};
    }
    r.raw = j;
    return r;
}

Response AnthropicClient::complete(const Request& req) {
    return timed("anthropic", cfg_, [&] {
        std::vector<std::string> h = {"content-type: application/json",
                                      "anthropic-version: " + cfg_.anthropic_version};
        if (!cfg_.api_key.empty()) h.push_back("x-api-key: " + cfg_.api_key);
        auto b = betas(req);
        if (!b.empty()) {
            std::string v;
            for (const auto& x : b) v += (v.empty() ? "" : ",") + x;
            h.push_back("anthropic-beta: " + v);
        }
        return detail::postAndParse(
            "anthropic", cfg_, h, buildBody(req).dump(), [](const json& j) { return stringField(j, "type") == "error"; },
            parseBody);
    });
}

}  // namespace eacu::model
