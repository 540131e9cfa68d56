// Helpers shared by the provider clients (internal to model/): error text, key scrubbing,
// JSON bodies and HTTP errors as ModelError, timing.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "model/Http.h"
#include "model/ModelClient.h"

namespace eacu::model::detail {

/// The first `n` bytes of `s` on one line ("..." when cut).
std::string snippet(const std::string& s, size_t n = 300);

/// Removes every occurrence of `secret` (and of its first 12 characters, as some providers
/// echo a prefix of a bad key) from `text`.
std::string scrub(std::string text, const std::string& secret);

/// The string `o[key]` when `o` is an object holding a string there, else "" (a field missing or
/// of another type: json::value() would throw a type_error on a provider's malformed answer).
std::string stringField(const nlohmann::json& o, const char* key);

/// The response body as a JSON object; ModelError (scrubbed) when it is not one.
nlohmann::json parseJsonBody(const std::string& provider, const ProviderConfig& cfg, const HttpResponse& r);

/// Throws the ModelError for a failed HTTP response: label, status, the body's error message,
/// the attempts; retryable per retryableStatus; the key scrubbed.
[[noreturn]] void throwHttpError(const std::string& provider, const ProviderConfig& cfg, const HttpResponse& r);

/// One provider call: POSTs `body` with `headers` to cfg.endpoint(), throws the ModelError of an
/// HTTP error, of a body that is not a JSON object, or of one `is_error` says is an error body;
/// else parses it with `parse` and fills in the provider, the model (cfg's when the answer names
/// none), the attempts and the HTTP status.
template <class IsError, class Parse>
Response postAndParse(const std::string& provider, const ProviderConfig& cfg, const std::vector<std::string>& headers,
                      const std::string& body, IsError&& is_error, Parse&& parse) {
    HttpResponse hr = httpPost(provider, cfg.endpoint(), headers, body, cfg.http);
    if (hr.status >= 400 || hr.status < 200) throwHttpError(provider, cfg, hr);
    nlohmann::json j = parseJsonBody(provider, cfg, hr);
    if (is_error(j)) throwHttpError(provider, cfg, hr);
    Response r = parse(j);
    r.provider = provider;
    if (r.model.empty()) r.model = cfg.model;
    r.attempts = hr.attempts;
    r.http_status = hr.status;
    return r;
}

/// Runs `send`, sets the response's latency_s; a ModelError not yet naming the provider's
/// label gets it prefixed (scrubbed).
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

}  // namespace eacu::model::detail
