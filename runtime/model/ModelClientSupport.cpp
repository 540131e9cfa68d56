#include "model/ModelClientSupport.h"

#include <algorithm>

namespace eacu::model::detail {

using json = nlohmann::json;

std::string snippet(const std::string& s, size_t n) {
    std::string out = s.substr(0, n);
    for (char& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    if (s.size() > n) out += "...";
    return out;
}

std::string stringField(const json& o, const char* key) {
    if (!o.is_object()) return "";
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

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

}  // namespace eacu::model::detail
