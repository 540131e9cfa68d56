// What the model layer needs of the `model_calls` store: one row per model call (live or
// replayed from the cache), written as calls are made and read back by the response cache in
// replay mode. The run log (runlog/RunLog) implements it; model/ never sees SQLite.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace eacu::model {

/// One row of `model_calls`.
/// - `run_id`, `step_id`: the run log's ids (0 = none, stored as NULL).
/// - `seq`: 1-based position of the call in its run (part of the cache key).
/// - `kind`: ask | plan | autopilot | locate | assert | other (assertions are never cached).
/// - `request_json`: the redacted request (images as frame ids, no key).
/// - `response_json`: the provider's JSON body; `answer`: its text (or tool calls as JSON).
/// - `status`: ok | error | cached (answered from the cache, no network).
/// - `latency_ms`; token counts as the provider reported them.
/// - `cache_key`: SHA-256 hex of (provider, model, prompt, element list, seq).
/// - `fingerprint`: screenFingerprint() of the screenshot the model saw ("" = none).
/// - `frame_ids_json`: JSON array of the run-log frames the request showed.
/// - `created_at`: seconds since the Unix epoch.
struct ModelCallRecord {
    int64_t id = 0;
    int64_t run_id = 0;
    int64_t step_id = 0;
    int seq = 0;
    std::string kind = "other";
    std::string provider, model, endpoint;
    std::string request_json = "{}";
    std::string response_json;
    std::string answer;
    std::string status = "ok";
    std::string error;
    int http_status = 0;
    int attempts = 0;
    double latency_ms = 0;
    int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_creation_tokens = 0;
    std::string cache_key;
    std::string fingerprint;
    std::string frame_ids_json = "[]";
    double created_at = 0;
};

/// Where model calls are recorded and cached answers are found. Implementations throw
/// std::runtime_error when the store fails.
class ModelCallStore {
public:
    virtual ~ModelCallStore() = default;
    /// Stores `r` (its id is ignored; created_at 0 = now), committed before returning; returns
    /// the new row id.
    virtual int64_t addModelCall(const ModelCallRecord& r) = 0;
    /// The newest row with this cache key and status ok (a live answer), or nullopt.
    virtual std::optional<ModelCallRecord> modelCallByCacheKey(const std::string& cache_key) const = 0;
};

}  // namespace eacu::model
