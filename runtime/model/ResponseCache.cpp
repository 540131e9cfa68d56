#include "model/ResponseCache.h"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <stdexcept>

#include "base/Frame.h"
#include "model/AnthropicClient.h"
#include "model/Encoding.h"
#include "model/OpenAIClient.h"

namespace eacu::model {

using json = nlohmann::json;

CacheMode parseCacheMode(const std::string& s) {
    if (s == "off") return CacheMode::Off;
    if (s == "record") return CacheMode::Record;
    if (s == "replay") return CacheMode::Replay;
    throw std::invalid_argument("model cache mode: expected off|record|replay, got \"" + s + "\"");
}

const char* cacheModeName(CacheMode m) {
    switch (m) {
    case CacheMode::Off: return "off";
    case CacheMode::Record: return "record";
    case CacheMode::Replay: return "replay";
    }
    return "?";
}

std::string screenFingerprint(const cv::Mat& bgr) {
    if (bgr.empty()) return "";
    cv::Mat grey, small;
    if (bgr.channels() == 3) cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    else if (bgr.channels() == 4) cv::cvtColor(bgr, grey, cv::COLOR_BGRA2GRAY);
    else grey = bgr;
    cv::resize(grey, small, cv::Size(16, 16), 0, 0, cv::INTER_AREA);
    static const char* hex = "0123456789abcdef";
    std::string out = "g16:";
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
            uint8_t v = small.at<uint8_t>(y, x);
            out += hex[v >> 4];
            out += hex[v & 15];
        }
    return out;
}

double fingerprintDistance(const std::string& a, const std::string& b) {
    if (a.size() != 4 + 512 || b.size() != a.size() || a.compare(0, 4, "g16:") || b.compare(0, 4, "g16:")) return 1.0;
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    double sum = 0;
    for (size_t i = 4; i < a.size(); i += 2) {
        int va = nib(a[i]) * 16 + nib(a[i + 1]), vb = nib(b[i]) * 16 + nib(b[i + 1]);
        sum += std::abs(va - vb);
    }
    return sum / (256.0 * 255.0);
}

std::string cacheKey(const std::string& provider, const std::string& model, const std::string& prompt,
                     const std::string& elements, int seq) {
    std::string s;
    for (const std::string& f : {provider, model, prompt, elements, std::to_string(seq)})
        s += std::to_string(f.size()) + ":" + f + "\n";
    return sha256Hex(s);
}

ModelCaller::ModelCaller(ModelClient* client, ModelCallStore* log, CacheMode mode, int64_t run_id)
    : client_(client), log_(log), mode_(mode), run_id_(run_id) {
    if (client_) {
        key_provider = client_->provider();
        key_model = client_->model();
    }
}

void ModelCaller::setClient(ModelClient* client) {
    client_ = client;
    if (client_) {
        key_provider = client_->provider();
        key_model = client_->model();
    }
}

Response ModelCaller::call(const Request& req, const CallMeta& meta) {
    int seq = ++seq_;
    bool keyed = meta.cacheable && mode_ != CacheMode::Off;
    std::string key = keyed ? cacheKey(key_provider, key_model, meta.prompt, meta.elements, seq) : "";
    json frames = meta.frame_ids;

    ModelCallRecord row;
    row.run_id = run_id_;
    row.step_id = meta.step_id;
    row.seq = seq;
    row.kind = meta.kind;
    row.cache_key = key;
    row.fingerprint = meta.fingerprint;
    row.frame_ids_json = frames.dump();

    std::string miss_reason = "no recorded answer";
    if (keyed && mode_ == CacheMode::Replay && log_) {
        if (auto hit = log_->modelCallByCacheKey(key)) {
            double d = meta.fingerprint.empty() || hit->fingerprint.empty()
                           ? 0.0
                           : fingerprintDistance(meta.fingerprint, hit->fingerprint);
            if (d <= max_distance) {
                json body = json::parse(hit->response_json, nullptr, false);
                Response r;
                bool parsed = false;
                if (!body.is_discarded()) {
                    try {
                        r = hit->provider == "openai" ? OpenAIClient::parseBody(body) : AnthropicClient::parseBody(body);
                        parsed = true;
                    } catch (const ModelError&) {
                    }
                }
                if (!parsed) {
                    r = Response{};
                    r.text = hit->answer;
                }
                r.provider = hit->provider;
                r.model = hit->model;
                r.from_cache = true;
                if (!meta.validate || meta.validate(r)) {
                    row.provider = hit->provider;
                    row.model = hit->model;
                    row.endpoint = hit->endpoint;
                    row.request_json = hit->request_json;
                    row.response_json = hit->response_json;
                    row.answer = hit->answer;
                    row.status = "cached";
                    row.error = "replayed row " + std::to_string(hit->id);
                    last_row_ = log_->addModelCall(row);
                    return r;
                }
                miss_reason = "the recorded answer (row " + std::to_string(hit->id) + ") no longer fits the screen";
            } else {
                char b[160];
                std::snprintf(b, sizeof b, "the screen differs from the recorded one (distance %.3f > %.3f, row %lld)", d,
                              max_distance, static_cast<long long>(hit->id));
                miss_reason = b;
            }
        }
    }

    if (!client_) {
        throw ModelError("cache", 0,
                         std::string("model cache ") + cacheModeName(mode_) + ": " + meta.kind + " call #" +
                             std::to_string(seq) + (key.empty() ? "" : " (key " + key.substr(0, 12) + ")") + ": " +
                             (keyed && mode_ == CacheMode::Replay ? miss_reason : std::string("not cacheable")) +
                             ", and no model is configured (EACU_MODEL_PROVIDER)");
    }

    row.provider = client_->provider();
    row.model = client_->model();
    try {
        json red = client_->redactedRequest(req);
        row.endpoint = red.value("url", "");
        row.request_json = red.dump();
    } catch (const std::exception& e) {
        row.request_json = json{{"error", e.what()}}.dump();
    }
    double t0 = monotonicSeconds();
    try {
        Response r = client_->complete(req);
        row.provider = r.provider.empty() ? row.provider : r.provider;
        row.model = r.model.empty() ? row.model : r.model;
        row.response_json = r.raw.is_null() ? "" : r.raw.dump();
        if (!r.tool_calls.empty()) {
            json tc = json::array();
            for (const auto& c : r.tool_calls) tc.push_back({{"id", c.id}, {"name", c.name}, {"input", c.input}});
            row.answer = r.text.empty() ? tc.dump() : r.text + "\n" + tc.dump();
        } else {
            row.answer = r.text;
        }
        row.http_status = r.http_status;
        row.attempts = r.attempts;
        row.latency_ms = r.latency_s * 1000;
        row.input_tokens = r.usage.input_tokens;
        row.output_tokens = r.usage.output_tokens;
        row.cache_read_tokens = r.usage.cache_read_tokens;
        row.cache_creation_tokens = r.usage.cache_creation_tokens;
        row.status = "ok";
        if (log_) last_row_ = log_->addModelCall(row);
        return r;
    } catch (const ModelError& e) {
        row.status = "error";
        row.error = e.what();
        row.http_status = e.status();
        row.latency_ms = (monotonicSeconds() - t0) * 1000;
        row.cache_key.clear();  // an error is never replayed
        if (log_) last_row_ = log_->addModelCall(row);
        throw;
    }
}

}  // namespace eacu::model
