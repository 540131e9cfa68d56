#include "model/Http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

#include "base/Ascii.h"
#include "base/Frame.h"
#include "model/ModelTypes.h"
#include "base/Cancel.h"
#include "base/Format.h"

namespace eacu::model {

namespace {

struct Transfer {
    std::string body;
    std::map<std::string, std::string> headers;
    const std::function<bool()>* cancel = nullptr;
    bool cancelled = false;
};

size_t onBody(char* p, size_t size, size_t n, void* ud) {
    static_cast<Transfer*>(ud)->body.append(p, size * n);
    return size * n;
}

size_t onHeader(char* p, size_t size, size_t n, void* ud) {
    std::string line(p, size * n);
    auto colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = asciiLower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        auto a = value.find_first_not_of(" \t"), b = value.find_last_not_of(" \t\r\n");
        value = a == std::string::npos ? "" : value.substr(a, b - a + 1);
        static_cast<Transfer*>(ud)->headers[name] = value;
    }
    return size * n;
}

bool shouldCancel(const std::function<bool()>& cancel) { return cancel ? cancel() : eacu::processToken().cancelled(); }

int onProgress(void* ud, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(ud);
    if (shouldCancel(*t->cancel)) {
        t->cancelled = true;
        return 1;  // aborts with CURLE_ABORTED_BY_CALLBACK
    }
    return 0;
}

void globalInit() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}


/// Sleeps `s` seconds in slices, throwing ModelError(cancelled) when asked to stop.
void sleepOrCancel(double s, const std::function<bool()>& cancel, const std::string& provider) {
    double end = monotonicSeconds() + s;
    for (;;) {
        if (shouldCancel(cancel)) throw ModelError(provider, 0, "cancelled while waiting to retry", false, true);
        double left = end - monotonicSeconds();
        if (left <= 0) return;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.01)));
    }
}

}  // namespace

bool retryableStatus(int s) { return s == 408 || s == 409 || s == 429 || (s >= 500 && s <= 599); }

double parseRetryAfter(const std::string& v) {
    if (v.empty()) return -1;
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (end && *end == '\0' && d >= 0) return d;
    // HTTP date, e.g. "Wed, 21 Oct 2015 07:28:00 GMT".
    std::tm tm{};
    if (strptime(v.c_str(), "%a, %d %b %Y %H:%M:%S", &tm)) {
        time_t t = timegm(&tm);
        return std::max(0.0, double(t) - wallSeconds());
    }
    return -1;
}

HttpResponse httpPost(const std::string& provider, const std::string& url, const std::vector<std::string>& headers,
                      const std::string& body, const HttpOptions& opt) {
    globalInit();
    HttpResponse out;
    double t0 = monotonicSeconds();
    static thread_local std::mt19937 rng{std::random_device{}()};
    std::string last_error;
    for (int attempt = 1;; ++attempt) {
        if (shouldCancel(opt.cancel)) throw ModelError(provider, 0, "POST " + url + ": cancelled", false, true);
        CURL* c = curl_easy_init();
        if (!c) throw ModelError(provider, 0, "curl_easy_init failed");
        Transfer t;
        t.cancel = &opt.cancel;
        curl_slist* hl = nullptr;
        for (const auto& h : headers) hl = curl_slist_append(hl, h.c_str());
        hl = curl_slist_append(hl, "Expect:");  // no 100-continue round trip for big bodies
        char errbuf[CURL_ERROR_SIZE] = {0};
        curl_easy_setopt(c, CURLOPT_URL, url.c_str());
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, onProgress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, long(opt.timeout_s * 1000));
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(opt.connect_timeout_s * 1000));
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
        CURLcode rc = curl_easy_perform(c);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(hl);
        curl_easy_cleanup(c);
        out.attempts = attempt;

        if (t.cancelled || rc == CURLE_ABORTED_BY_CALLBACK)
            throw ModelError(provider, 0, "POST " + url + ": cancelled", false, true);

        bool retry = false;
        double wait = -1;
        if (rc != CURLE_OK) {
            last_error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
            retry = rc != CURLE_OPERATION_TIMEDOUT || opt.retry_timeouts;
            if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) retry = false;
        } else {
            out.status = int(status);
            out.body = std::move(t.body);
            out.headers = std::move(t.headers);
            retry = retryableStatus(out.status);
            if (retry) {
                auto ms = out.headers.find("retry-after-ms");
                auto s = out.headers.find("retry-after");
                if (ms != out.headers.end()) wait = std::atof(ms->second.c_str()) / 1000.0;
                else if (s != out.headers.end()) wait = parseRetryAfter(s->second);
            }
        }
        if (!retry || attempt > opt.max_retries) {
            out.elapsed_s = monotonicSeconds() - t0;
            if (rc != CURLE_OK)
                throw ModelError(provider, 0,
                                 "POST " + url + ": " + last_error + " after " + std::to_string(attempt) +
                                     (attempt == 1 ? " attempt" : " attempts") +
                                     (rc == CURLE_OPERATION_TIMEDOUT ? " (timeout " + fixed(opt.timeout_s) + " s)" : ""),
                                 true);
            return out;
        }
        if (wait < 0) {
            double b = std::min(opt.backoff_max_s, opt.backoff_base_s * std::pow(2.0, attempt - 1));
            wait = b * (1.0 - 0.25 * std::uniform_real_distribution<double>(0, 1)(rng));
        } else {
            wait = std::min(wait, opt.max_retry_after_s);
        }
        out.waits_s.push_back(wait);
        sleepOrCancel(wait, opt.cancel, provider);
    }
}

}  // namespace eacu::model
