// The `model_calls` table of the run log: every model call (live or replayed from the cache),
// and the store the response cache reads in replay mode.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace eacu::model {

/// One row of `model_calls`.
/// - `run_id`, `step_id`: the run log's ids (0 = none, stored as NULL).
/// - `seq`: 1-based position of the call in its run (part of the cache key).
/// - `kind`: ask | plan | agent | locate | assert | other (assertions are never cached).
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

/// The SQL that creates `model_calls` and its indexes (IF NOT EXISTS), for the run log's schema.
const char* modelCallsSchemaSql();

/// Reads and writes `model_calls`. Either borrows an open sqlite3* (the run log's; the caller
/// keeps it open longer than this object) or opens a file itself. The table is created if it
/// does not exist. Each insert is its own statement (autocommit), so nothing is lost on a
/// crash. Throws std::runtime_error("model_calls: <sqlite message>") on SQLite errors.
class ModelCallLog {
public:
    explicit ModelCallLog(sqlite3* db);
    /// Opens/creates the SQLite file at `path` (WAL).
    explicit ModelCallLog(const std::string& path);
    ~ModelCallLog();
    ModelCallLog(const ModelCallLog&) = delete;
    ModelCallLog& operator=(const ModelCallLog&) = delete;

    /// Inserts `r` (its id is ignored; created_at 0 = now) and returns the new row id.
    int64_t insert(const ModelCallRecord& r);
    /// The newest row with this cache key and status ok (a live answer), or nullopt.
    std::optional<ModelCallRecord> findByCacheKey(const std::string& cache_key) const;
    /// Every row of a run (run_id 0 = all rows), in insertion order.
    std::vector<ModelCallRecord> list(int64_t run_id = 0) const;
    sqlite3* db() const { return db_; }

private:
    sqlite3* db_ = nullptr;
    bool owned_ = false;
};

}  // namespace eacu::model
