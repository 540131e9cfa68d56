// Model calls through the run log and the response cache (record / replay).
//
// Design (Midscene's cache, issue 5): an answer is keyed by the call's text (provider, model,
// prompt, element list) and its position in the run; beside it is a fingerprint of the
// screenshot the model saw. In replay a cached answer is used only when the live screen is
// close to that fingerprint and the caller's validator accepts it (e.g. a grounding's element
// is still found where the answer says); otherwise a live call is made, or with no model the
// call fails clearly. Assertions are never cached (CallMeta::cacheable = false).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "model/ModelCallStore.h"
#include "model/ModelClient.h"

namespace eacu::model {

/// off: every call is live, nothing is keyed. record: live calls, stored with their cache key.
/// replay: cached answers first; misses go live (and are recorded) when a client exists.
enum class CacheMode { Off, Record, Replay };

/// Parses "off" | "record" | "replay"; throws std::invalid_argument otherwise.
CacheMode parseCacheMode(const std::string& s);
const char* cacheModeName(CacheMode m);

/// A small, robust fingerprint of a screenshot: "g16:" + 16x16 grey thumbnail (INTER_AREA) as
/// 512 hex digits. "" for an empty image.
std::string screenFingerprint(const cv::Mat& bgr);

/// Mean absolute difference of two fingerprints' thumbnails, in [0, 1] (0 = identical);
/// 1 when either is empty or malformed.
double fingerprintDistance(const std::string& a, const std::string& b);

/// SHA-256 hex of the key fields, each length-prefixed so that no two field lists collide.
std::string cacheKey(const std::string& provider, const std::string& model, const std::string& prompt,
                     const std::string& elements, int seq);

/// What a call is, for the log and the cache.
/// - `kind`: ask | plan | autopilot | locate | assert | click_check | other.
/// - `prompt`: the text the key covers (task, question, system prompt...); `elements`: the
///   Set-of-Marks text list shown (or "").
/// - `fingerprint`: screenFingerprint() of the screenshot sent ("" = none).
/// - `frame_ids`: run-log frames shown; `step_id`: the step making the call (0 = none).
/// - `cacheable`: false for assertions.
/// - `validate`: in replay, a cached answer is used only if this returns true (may be empty).
struct CallMeta {
    /// A `validate` that accepts an answer whose text `parse` reads without throwing.
    static std::function<bool(const Response&)> parsesWith(std::function<void(const std::string&)> parse) {
        return [parse = std::move(parse)](const Response& r) {
            try {
                parse(r.text);
                return true;
            } catch (const std::exception&) {
                return false;
            }
        };
    }

    std::string kind = "other";
    std::string prompt;
    std::string elements;
    std::string fingerprint;
    std::vector<int64_t> frame_ids;
    int64_t step_id = 0;
    bool cacheable = true;
    std::function<bool(const Response&)> validate;
};

/// Makes model calls for one run: through `client` (may be null: replay only), recording each
/// in `log` (may be null: nothing recorded, nothing replayed; the caller keeps it alive longer
/// than this object), with `mode`.
class ModelCaller {
public:
    ModelCaller(ModelClient* client, ModelCallStore* log, CacheMode mode, int64_t run_id = 0);

    /// Makes (or replays) one call. Every call, hit or live, takes the next position `seq` and
    /// writes one row. Throws ModelError from the client (after logging an error row), or
    /// ModelError("cache", 0, "model cache replay: ...") when replaying with no answer that
    /// fits and no client.
    Response call(const Request& req, const CallMeta& meta);

    /// Largest fingerprintDistance at which a cached answer is still used (default 0.05).
    double max_distance = 0.05;
    /// Provider/model the cache key uses when there is no client (replay with no model).
    std::string key_provider, key_model;
    /// Replaces the client (null: replay only) and sets key_provider/key_model from it.
    void setClient(ModelClient* client);
    int seq() const { return seq_; }
    CacheMode mode() const { return mode_; }
    int64_t lastRowId() const { return last_row_; }

private:
    ModelClient* client_;
    ModelCallStore* log_;
    CacheMode mode_;
    int64_t run_id_;
    int seq_ = 0;
    int64_t last_row_ = 0;
};

}  // namespace eacu::model
