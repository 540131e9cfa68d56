// HTTP POST through libcurl with timeouts, retries with exponential backoff and cancellation.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace eacu::model {

/// Settings of one HTTP exchange. Times are seconds.
/// - `timeout_s`: whole-transfer limit per attempt (CURLOPT_TIMEOUT_MS); `connect_timeout_s`.
/// - `max_retries`: extra attempts after the first on 429, 5xx (500, 502, 503, 504, 529) and
///   transport errors (connection refused/reset, timeouts when `retry_timeouts`).
/// - backoff: `backoff_base_s * 2^(attempt-1)`, capped at `backoff_max_s`, with up to 25 %
///   random reduction (jitter), as the Anthropic/OpenAI SDKs do; a `Retry-After` header
///   (seconds or HTTP date) or `retry-after-ms` replaces it, capped at `max_retry_after_s`.
/// - `cancel`: polled during the transfer (curl progress callback) and the backoff sleeps;
///   when it returns true the call throws ModelError with cancelled() = true. Empty = only a signal
///   cancels (base/Cancel.h).
struct HttpOptions {
    double timeout_s = 60;
    double connect_timeout_s = 10;
    int max_retries = 3;
    double backoff_base_s = 0.5;
    double backoff_max_s = 8;
    double max_retry_after_s = 60;
    bool retry_timeouts = true;
    std::function<bool()> cancel;
};

/// A finished HTTP exchange. Header names are lower-cased. `attempts` counts the tries made;
/// `waits_s` the backoff sleeps between them (seconds, in order); `elapsed_s` the total time.
struct HttpResponse {
    int status = 0;
    std::string body;
    std::map<std::string, std::string> headers;
    int attempts = 0;
    std::vector<double> waits_s;
    double elapsed_s = 0;
};

/// True for statuses worth retrying: 408, 409, 429 and every 5xx (the SDKs' rule).
bool retryableStatus(int status);

/// Parses a Retry-After value: delta seconds ("2", "1.5") or an HTTP date; returns seconds
/// from now, or a negative number when it cannot be parsed.
double parseRetryAfter(const std::string& value);

/// POSTs `body` to `url` with `headers` ("Name: value"), retrying as `opt` says. Returns the
/// last answer whatever its status (the caller turns >= 400 into an error with the body's
/// message). Throws ModelError(provider, 0, ...) for transport failures after the retries
/// ("POST <url>: <curl error> after N attempts") and for cancellation (cancelled() = true).
/// Header values never appear in errors.
HttpResponse httpPost(const std::string& provider, const std::string& url,
                      const std::vector<std::string>& headers, const std::string& body,
                      const HttpOptions& opt);

}  // namespace eacu::model
