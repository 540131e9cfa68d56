#include "model/ModelClient.h"

#include "base/Base64.h"

#include <cstdlib>
#include <stdexcept>

#include "base/Frame.h"
#include "model/Encoding.h"

namespace eacu::model {

using json = nlohmann::json;

// ---------------------------------------------------------------- helpers

std::string computerBetaFlag(const std::string& version) {
    // claude-quickstarts computer-use-demo tools/groups.py
    if (version == "computer_20241022") return "computer-use-2024-10-22";
    if (version == "computer_20250124") return "computer-use-2025-01-24";
    if (version == "computer_20251124") return "computer-use-2025-11-24";
    throw std::invalid_argument("computer tool: expected version computer_20241022|computer_20250124|"
                                "computer_20251124, got \"" + version + "\"");
}

namespace {

std::string trimSlash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

std::string snippet(const std::string& s, size_t n = 300) {
    std::string out = s.substr(0, n);
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    if (s.size() > n) out += "...";
    return out;
}

/// Removes every occurrence of `secret` (and of its first 12 characters, as some providers
/// echo a prefix of a bad key) from `text`.
std::string scrub(std::string text, const std::string& secret) {
    if (secret.size() < 4) return text;
    for (const std::string& s : {secret, secret.substr(0, std::min<size_t>(12, secret.size()))}) {
        for (size_t p; (p = text.find(s)) != std::string::npos;) text.replace(p, s.size(), "[redacted]");
    }
    return text;
}

json parseJsonBody(const std::string& provider, const ProviderConfig& cfg, const HttpResponse& r) {
    json j = json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw ModelError(provider, r.status,
                         scrub(cfg.label() + ": HTTP " + std::to_string(r.status) +
                                   ": expected a JSON object, got: " + snippet(r.body, 200),
                               cfg.api_key));
    return j;
}

[[noreturn]] void throwHttpError(const std::string& provider, const ProviderConfig& cfg, const HttpResponse& r) {
    std::string msg = cfg.label() + ": HTTP " + std::to_string(r.status) + ": " + errorMessageFromBody(r.body);
    if (r.attempts > 1) msg += " (after " + std::to_string(r.attempts) + " attempts)";
    throw ModelError(provider, r.status, scrub(msg, cfg.api_key), retryableStatus(r.status));
}

template <class F>
Response timed(const std::string& provider, const ProviderConfig& cfg, F&& send) {
    double t0 = monotonicSeconds();
    try {
        Response r = send();
        r.latency_s = monotonicSeconds() - t0;
        return r;
    } catch (const ModelError& e) {
        if (std::string(e.what()).find(cfg.label()) == 0) throw;
        throw ModelError(e.provider(), e.status(), scrub(cfg.label() + ": " + e.what(), cfg.api_key),
                         e.retryable(), e.cancelled());
    }
}

}  // namespace

std::string errorMessageFromBody(const std::string& body) {
    json j = json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
        auto str = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
        if (j.contains("error")) {
            const json& e = j["error"];
            if (e.is_object()) {
                std::string type = e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "";
                std::string m = e.contains("message") ? str(e["message"]) : e.dump();
                return type.empty() ? m : type + ": " + m;
            }
            return str(e);
        }
        if (j.contains("message")) return str(j["message"]);
        if (j.contains("detail")) return str(j["detail"]);
    }
    if (body.empty()) return "(empty body)";
    return snippet(body);
}

std::string ProviderConfig::endpoint() const {
    if (provider == "anthropic")
        return trimSlash(base_url.empty() ? "https://api.anthropic.com" : base_url) + "/v1/messages";
    if (provider == "openai")
        return trimSlash(base_url.empty() ? "https://api.openai.com/v1" : base_url) + "/chat/completions";
    throw std::invalid_argument("model provider: expected anthropic|openai, got \"" + provider + "\"");
}

std::string ProviderConfig::label() const { return provider + " " + model; }

std::optional<ProviderConfig> providerFromEnv(const std::string& prefix,
                                              const std::function<const char*(const char*)>& getenv_) {
    auto get = [&](const std::string& name) -> std::string {
        const char* v = getenv_ ? getenv_(name.c_str()) : std::getenv(name.c_str());
        return v ? v : "";
    };
    ProviderConfig c;
    c.provider = get(prefix + "_PROVIDER");
    if (c.provider.empty()) return std::nullopt;
    if (c.provider != "anthropic" && c.provider != "openai")
        throw std::invalid_argument(prefix + "_PROVIDER: expected anthropic|openai, got \"" + c.provider + "\"");
    c.model = prefix == "EACU_MODEL" ? get("EACU_MODEL") : get(prefix + "_MODEL");
    if (c.model.empty())
        throw std::invalid_argument((prefix == "EACU_MODEL" ? std::string("EACU_MODEL") : prefix + "_MODEL") +
                                    ": expected a model name for provider " + c.provider + ", got nothing");
    c.base_url = get(prefix + "_BASE_URL");
    c.api_key = get(prefix + "_API_KEY");
    if (c.api_key.empty()) c.api_key = get(c.provider == "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
    auto number = [&](const std::string& name, double& out) {
        std::string v = get(name);
        if (v.empty()) return;
        char* end = nullptr;
        double d = std::strtod(v.c_str(), &end);
        if (!end || *end || d < 0) throw std::invalid_argument(name + ": expected a number >= 0, got \"" + v + "\"");
        out = d;
    };
    number(prefix + "_TIMEOUT", c.http.timeout_s);
    double retries = c.http.max_retries;
    number(prefix + "_MAX_RETRIES", retries);
    c.http.max_retries = int(retries);
    return c;
}

std::unique_ptr<ModelClient> makeClient(const ProviderConfig& cfg) {
    if (cfg.provider == "anthropic") return std::make_unique<AnthropicClient>(cfg);
    if (cfg.provider == "openai") return std::make_unique<OpenAIClient>(cfg);
    throw std::invalid_argument("model provider: expected anthropic|openai, got \"" + cfg.provider + "\"");
}

std::unique_ptr<ModelClient> makeClientFromEnv(const std::function<const char*(const char*)>& getenv_) {
    auto main = providerFromEnv("EACU_MODEL", getenv_);
    if (!main) return nullptr;
    auto fb = providerFromEnv("EACU_MODEL_FALLBACK", getenv_);
    if (!fb) return makeClient(*main);
    std::vector<std::unique_ptr<ModelClient>> chain;
    chain.push_back(makeClient(*main));
    chain.push_back(makeClient(*fb));
    return std::make_unique<FallbackClient>(std::move(chain));
}

void markPromptCache(Request& req, int n) {
    for (auto& m : req.messages)
        for (auto& p : m.parts) p.cache = false;
    req.cache_system = !req.system.empty();
    int left = n;
    for (auto it = req.messages.rbegin(); it != req.messages.rend() && left > 0; ++it) {
        if (it->role == "user" && !it->parts.empty()) {
            it->parts.back().cache = true;
            --left;
        }
    }
}

// ---------------------------------------------------------------- Anthropic

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
        std::string type = block.value("type", "");
        if (type == "text") r.text += block.value("text", "");
        else if (type == "tool_use")
            r.tool_calls.push_back({block.value("id", ""), block.value("name", ""),
                                    block.contains("input") ? block["input"] : json::object()});
    }
    r.stop_reason = j.value("stop_reason", "");
    r.model = j.value("model", "");
    if (j.contains("usage") && j["usage"].is_object()) {
        const json& u = j["usage"];
        auto n = [&](const char* k) { return u.contains(k) && u[k].is_number() ? u[k].get<int64_t>() : 0; };
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
        HttpResponse hr = httpPost("anthropic", cfg_.endpoint(), h, buildBody(req).dump(), cfg_.http);
        if (hr.status >= 400 || hr.status < 200) throwHttpError("anthropic", cfg_, hr);
        json j = parseJsonBody("anthropic", cfg_, hr);
        if (j.value("type", "") == "error") throwHttpError("anthropic", cfg_, hr);
        Response r = parseBody(j);
        r.provider = "anthropic";
        if (r.model.empty()) r.model = cfg_.model;
        r.attempts = hr.attempts;
        r.http_status = hr.status;
        return r;
    });
}

// ---------------------------------------------------------------- OpenAI-compatible

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
                if (p.value("type", "") == "text") r.text += p.value("text", "");
    }
    if (msg.contains("tool_calls") && msg["tool_calls"].is_array()) {
        for (const auto& tc : msg["tool_calls"]) {
            ToolCall call;
            call.id = tc.value("id", "");
            const json& f = tc.contains("function") ? tc["function"] : json::object();
            call.name = f.value("name", "");
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
    r.model = j.value("model", "");
    if (j.contains("usage") && j["usage"].is_object()) {
        const json& u = j["usage"];
        auto n = [](const json& o, const char* k) -> int64_t {
            return o.is_object() && o.contains(k) && o[k].is_number() ? o[k].get<int64_t>() : 0;
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
        HttpResponse hr = httpPost("openai", cfg_.endpoint(), h, buildBody(req).dump(), cfg_.http);
        if (hr.status >= 400 || hr.status < 200) throwHttpError("openai", cfg_, hr);
        json j = parseJsonBody("openai", cfg_, hr);
        if (j.contains("error") && !j.contains("choices")) throwHttpError("openai", cfg_, hr);
        Response r = parseBody(j);
        r.provider = "openai";
        if (r.model.empty()) r.model = cfg_.model;
        r.attempts = hr.attempts;
        r.http_status = hr.status;
        return r;
    });
}

// ---------------------------------------------------------------- fallback chain

FallbackClient::FallbackClient(std::vector<std::unique_ptr<ModelClient>> chain) : chain_(std::move(chain)) {
    if (chain_.empty()) throw std::invalid_argument("fallback client: expected at least one provider, got none");
}

Response FallbackClient::complete(const Request& req) {
    std::string errors;
    int last_status = 0;
    for (size_t i = 0; i < chain_.size(); ++i) {
        try {
            return chain_[i]->complete(req);
        } catch (const ModelError& e) {
            if (e.cancelled()) throw;
            errors += (errors.empty() ? "" : "; ") + std::string(e.what());
            last_status = e.status();
            if (i + 1 < chain_.size() && on_fallback) on_fallback(e, *chain_[i + 1]);
        } catch (const std::invalid_argument& e) {
            // A request this provider cannot express (e.g. the computer tool on OpenAI).
            errors += (errors.empty() ? "" : "; ") + chain_[i]->provider() + " " + chain_[i]->model() + ": " + e.what();
        }
    }
    throw ModelError(chain_.back()->provider(), last_status,
                     "all " + std::to_string(chain_.size()) + " model providers failed: " + errors);
}

json FallbackClient::buildBody(const Request& req) const { return chain_.front()->buildBody(req); }
json FallbackClient::redactedRequest(const Request& req) const { return chain_.front()->redactedRequest(req); }
std::string FallbackClient::provider() const { return chain_.front()->provider(); }
std::string FallbackClient::model() const { return chain_.front()->model(); }

}  // namespace eacu::model
