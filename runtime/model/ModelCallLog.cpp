#include "model/ModelCallLog.h"

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>

#include "base/Frame.h"

namespace eacu::model {

namespace {

const char* kSchema = R"SQL(
CREATE TABLE IF NOT EXISTS model_calls (
  id                    INTEGER PRIMARY KEY,
  run_id                INTEGER,            -- runs.id (NULL outside a run)
  step_id               INTEGER,            -- steps.id of the step that made the call
  seq                   INTEGER NOT NULL,   -- 1-based position of the call in its run
  kind                  TEXT NOT NULL,      -- ask | plan | agent | locate | assert | other
  provider              TEXT NOT NULL,      -- anthropic | openai | cache
  model                 TEXT NOT NULL,
  endpoint              TEXT NOT NULL,      -- URL without credentials
  request_json          TEXT NOT NULL,      -- redacted: images as frame ids, no key
  response_json         TEXT,               -- the provider's JSON body
  answer                TEXT,               -- the answer's text (or tool calls as JSON)
  status                TEXT NOT NULL,      -- ok | error | cached
  error                 TEXT,
  http_status           INTEGER,
  attempts              INTEGER,
  latency_ms            REAL,
  input_tokens          INTEGER,
  output_tokens         INTEGER,
  cache_read_tokens     INTEGER,
  cache_creation_tokens INTEGER,
  cache_key             TEXT,               -- sha256(provider, model, prompt, elements, seq)
  fingerprint           TEXT,               -- the screenshot the model saw (screenFingerprint)
  frame_ids_json        TEXT NOT NULL DEFAULT '[]',
  created_at            REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_run ON model_calls(run_id, seq);
CREATE INDEX IF NOT EXISTS model_calls_cache ON model_calls(cache_key, status);
)SQL";

const char* kColumns =
    "id, run_id, step_id, seq, kind, provider, model, endpoint, request_json, response_json, answer, status, "
    "error, http_status, attempts, latency_ms, input_tokens, output_tokens, cache_read_tokens, "
    "cache_creation_tokens, cache_key, fingerprint, frame_ids_json, created_at";

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
    throw std::runtime_error("model_calls: " + what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
}

struct Stmt {
    sqlite3* db;
    sqlite3_stmt* s = nullptr;
    Stmt(sqlite3* d, const char* sql) : db(d) {
        if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) fail(db, "prepare");
    }
    ~Stmt() { sqlite3_finalize(s); }
    void text(int i, const std::string& v) { sqlite3_bind_text(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT); }
    void textOrNull(int i, const std::string& v) {
        if (v.empty()) sqlite3_bind_null(s, i);
        else text(i, v);
    }
    void i64OrNull(int i, int64_t v) {
        if (v == 0) sqlite3_bind_null(s, i);
        else sqlite3_bind_int64(s, i, v);
    }
    std::string col(int i) const {
        auto p = sqlite3_column_text(s, i);
        return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s, i)) : "";
    }
};

ModelCallRecord readRow(const Stmt& st) {
    sqlite3_stmt* s = st.s;
    ModelCallRecord r;
    r.id = sqlite3_column_int64(s, 0);
    r.run_id = sqlite3_column_int64(s, 1);
    r.step_id = sqlite3_column_int64(s, 2);
    r.seq = sqlite3_column_int(s, 3);
    r.kind = st.col(4);
    r.provider = st.col(5);
    r.model = st.col(6);
    r.endpoint = st.col(7);
    r.request_json = st.col(8);
    r.response_json = st.col(9);
    r.answer = st.col(10);
    r.status = st.col(11);
    r.error = st.col(12);
    r.http_status = sqlite3_column_int(s, 13);
    r.attempts = sqlite3_column_int(s, 14);
    r.latency_ms = sqlite3_column_double(s, 15);
    r.input_tokens = sqlite3_column_int64(s, 16);
    r.output_tokens = sqlite3_column_int64(s, 17);
    r.cache_read_tokens = sqlite3_column_int64(s, 18);
    r.cache_creation_tokens = sqlite3_column_int64(s, 19);
    r.cache_key = st.col(20);
    r.fingerprint = st.col(21);
    r.frame_ids_json = st.col(22);
    r.created_at = sqlite3_column_double(s, 23);
    return r;
}

}  // namespace

const char* modelCallsSchemaSql() { return kSchema; }

ModelCallLog::ModelCallLog(sqlite3* db) : db_(db) {
    if (!db_) throw std::invalid_argument("model_calls: expected an open sqlite3 database, got null");
    char* err = nullptr;
    if (sqlite3_exec(db_, kSchema, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string m = err ? err : "?";
        sqlite3_free(err);
        throw std::runtime_error("model_calls: create table: " + m);
    }
}

ModelCallLog::ModelCallLog(const std::string& path) {
    std::filesystem::path p(path);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
        std::string m = db_ ? sqlite3_errmsg(db_) : "cannot open";
        sqlite3_close(db_);
        throw std::runtime_error("model_calls: open " + path + ": " + m);
    }
    owned_ = true;
    sqlite3_busy_timeout(db_, 5000);
    sqlite3_exec(db_, "PRAGMA journal_mode=WAL;", nullptr, nullptr, nullptr);
    char* err = nullptr;
    if (sqlite3_exec(db_, kSchema, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string m = err ? err : "?";
        sqlite3_free(err);
        sqlite3_close(db_);
        throw std::runtime_error("model_calls: create table in " + path + ": " + m);
    }
}

ModelCallLog::~ModelCallLog() {
    if (owned_) sqlite3_close(db_);
}

int64_t ModelCallLog::insert(const ModelCallRecord& r) {
    Stmt st(db_,
            "INSERT INTO model_calls (run_id, step_id, seq, kind, provider, model, endpoint, request_json, "
            "response_json, answer, status, error, http_status, attempts, latency_ms, input_tokens, output_tokens, "
            "cache_read_tokens, cache_creation_tokens, cache_key, fingerprint, frame_ids_json, created_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    st.i64OrNull(1, r.run_id);
    st.i64OrNull(2, r.step_id);
    sqlite3_bind_int(st.s, 3, r.seq);
    st.text(4, r.kind);
    st.text(5, r.provider);
    st.text(6, r.model);
    st.text(7, r.endpoint);
    st.text(8, r.request_json);
    st.textOrNull(9, r.response_json);
    st.textOrNull(10, r.answer);
    st.text(11, r.status);
    st.textOrNull(12, r.error);
    sqlite3_bind_int(st.s, 13, r.http_status);
    sqlite3_bind_int(st.s, 14, r.attempts);
    sqlite3_bind_double(st.s, 15, r.latency_ms);
    sqlite3_bind_int64(st.s, 16, r.input_tokens);
    sqlite3_bind_int64(st.s, 17, r.output_tokens);
    sqlite3_bind_int64(st.s, 18, r.cache_read_tokens);
    sqlite3_bind_int64(st.s, 19, r.cache_creation_tokens);
    st.textOrNull(20, r.cache_key);
    st.textOrNull(21, r.fingerprint);
    st.text(22, r.frame_ids_json.empty() ? "[]" : r.frame_ids_json);
    sqlite3_bind_double(st.s, 23, r.created_at > 0 ? r.created_at : wallSeconds());
    if (sqlite3_step(st.s) != SQLITE_DONE) fail(db_, "insert");
    return sqlite3_last_insert_rowid(db_);
}

std::optional<ModelCallRecord> ModelCallLog::findByCacheKey(const std::string& key) const {
    std::string sql = std::string("SELECT ") + kColumns +
                      " FROM model_calls WHERE cache_key = ? AND status = 'ok' ORDER BY id DESC LIMIT 1";
    Stmt st(db_, sql.c_str());
    st.text(1, key);
    int rc = sqlite3_step(st.s);
    if (rc == SQLITE_ROW) return readRow(st);
    if (rc != SQLITE_DONE) fail(db_, "select");
    return std::nullopt;
}

std::vector<ModelCallRecord> ModelCallLog::list(int64_t run_id) const {
    std::string sql = std::string("SELECT ") + kColumns + " FROM model_calls" +
                      (run_id ? " WHERE run_id = ?" : "") + " ORDER BY id";
    Stmt st(db_, sql.c_str());
    if (run_id) sqlite3_bind_int64(st.s, 1, run_id);
    std::vector<ModelCallRecord> out;
    int rc;
    while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) out.push_back(readRow(st));
    if (rc != SQLITE_DONE) fail(db_, "select");
    return out;
}

}  // namespace eacu::model
