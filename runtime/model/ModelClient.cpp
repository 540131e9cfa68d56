#include "model/ModelClient.h"

#include <cstdlib>
#include <stdexcept>

#include "model/AnthropicClient.h"
#include "model/FallbackClient.h"
#include "model/ModelClientSupport.h"
#include "model/OpenAIClient.h"

namespace eacu::model {

using json = nlohmann::json;

namespace {

std::string trimSlash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
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
    return detail::snippet(body);
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

}  // namespace eacu::model
