#include "runlog/RunReader.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <stdexcept>

#include "base/Clock.h"
#include "runlog/RunLiveness.h"
#include "runlog/Statement.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

const char* kStepColumns =
    "id, run_id, idx, parent_id, action, target, params, method, score, threshold, box_x, box_y, "
    "box_w, box_h, input_x, input_y, status, error, change_ratio, settle_ms, locate_ms, "
    "action_ms, started_at, ended_at, frame_before, frame_after, transform, actor";

const char* kRunColumns =
    "r.id, r.script, r.args, r.device, r.screen_w, r.screen_h, r.scale, r.status, r.error, "
    "r.started_at, r.ended_at, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id), "
    "r.replay_of, r.replay_mode, r.pid, r.pid_start, r.host, r.heartbeat_at";

const char* kModelCallColumns =
    "id, run_id, step_id, seq, kind, provider, model, endpoint, request_json, response_json, answer, status, "
    "error, http_status, attempts, latency_ms, input_tokens, output_tokens, cache_read_tokens, "
    "cache_creation_tokens, cache_key, fingerprint, frame_ids_json, created_at";

RunRecord readRun(const Statement& q) {
    RunRecord r;
    r.id = q.integer(0);
    r.script = q.text(1);
    r.args_json = q.text(2);
    r.device = q.text(3);
    r.screen_w = int(q.integer(4));
    r.screen_h = int(q.integer(5));
    r.scale = q.real(6);
    r.status = q.text(7);
    r.error = q.text(8);
    r.started_at = q.real(9);
    r.ended_at = q.real(10);
    r.step_count = q.integer(11);
    r.replay_of = q.optInteger(12);
    r.replay_mode = q.text(13);
    r.pid = q.isNull(14) ? 0 : q.integer(14);
    r.pid_start = q.isNull(15) ? 0 : q.integer(15);
    r.host = q.text(16);
    r.heartbeat_at = q.isNull(17) ? 0 : q.real(17);
    r.stored_status = r.status;
    r.status = shownRunStatus(r, wallSeconds());
    return r;
}

StepRecord readStep(const Statement& q) {
    StepRecord s;
    s.id = q.integer(0);
    s.run_id = q.integer(1);
    s.idx = int(q.integer(2));
    s.parent_id = q.optInteger(3);
    s.action = q.text(4);
    s.target = q.text(5);
    s.params_json = q.text(6);
    s.method = q.text(7);
    s.score = q.optReal(8);
    s.threshold = q.optReal(9);
    if (!q.isNull(10))
        s.box = Rect{int(q.integer(10)), int(q.integer(11)), int(q.integer(12)), int(q.integer(13))};
    if (!q.isNull(14)) s.input = Point{int(q.integer(14)), int(q.integer(15))};
    s.status = q.text(16);
    s.error = q.text(17);
    s.change_ratio = q.optReal(18);
    s.settle_ms = q.optReal(19);
    s.locate_ms = q.optReal(20);
    s.action_ms = q.optReal(21);
    s.started_at = q.real(22);
    s.ended_at = q.real(23);
    s.frame_before = q.optInteger(24);
    s.frame_after = q.optInteger(25);
    s.transform_json = q.text(26);
    s.actor = q.text(27);
    return s;
}

// NULL reads as 0 / "" (ModelCallRecord's "none").
ModelCallRecord readModelCall(const Statement& q) {
    ModelCallRecord r;
    r.id = q.integer(0);
    r.run_id = q.integer(1);
    r.step_id = q.integer(2);
    r.seq = int(q.integer(3));
    r.kind = q.text(4);
    r.provider = q.text(5);
    r.model = q.text(6);
    r.endpoint = q.text(7);
    r.request_json = q.text(8);
    r.response_json = q.text(9);
    r.answer = q.text(10);
    r.status = q.text(11);
    r.error = q.text(12);
    r.http_status = int(q.integer(13));
    r.attempts = int(q.integer(14));
    r.latency_ms = q.real(15);
    r.input_tokens = q.integer(16);
    r.output_tokens = q.integer(17);
    r.cache_read_tokens = q.integer(18);
    r.cache_creation_tokens = q.integer(19);
    r.cache_key = q.text(20);
    r.fingerprint = q.text(21);
    r.frame_ids_json = q.text(22);
    r.created_at = q.real(23);
    return r;
}

}  // namespace

RunReader::RunReader(const std::string& path) : RunReader(path, false) {}

RunReader::RunReader(const std::string& path, bool writer) : path_(path) {
    fs::path p(path);
    if (p.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(p.parent_path(), ec);
    }
    if (writer) refuseReadOnly();
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw std::runtime_error("run log " + path + ": cannot open: " + msg);
    }
    sqlite3_busy_timeout(db_, int(kBusyTimeoutSeconds * 1000));
    double t0 = monotonicSeconds();
    try {
        execSql(db_, "PRAGMA journal_mode=WAL");
        execSql(db_, "PRAGMA synchronous=NORMAL");
        execSql(db_, "PRAGMA foreign_keys=ON");
        migrateRunLogSchema(db_);
        if (writer) {
            // A writer finds out now, before its run starts anything, whether it can write:
            // take the write lock once (it waits up to kBusyTimeoutSeconds for another writer).
            if (sqlite3_db_readonly(db_, "main") == 1) throw std::runtime_error("attempt to write a readonly database");
            t0 = monotonicSeconds();
            execSql(db_, "BEGIN IMMEDIATE");
            execSql(db_, "COMMIT");
        }
    } catch (const std::exception& e) {
        std::string what = explain(e.what(), monotonicSeconds() - t0);
        sqlite3_close(db_);
        db_ = nullptr;
        fail(what);
    }
}

void RunReader::refuseReadOnly() const {
    // Write permission as the file's mode bits say, for every user: root may write a file
    // whatever its bits, but a run log made read-only (chmod a-w) is not written.
    std::error_code ec;
    fs::path p(path_);
    auto st = fs::status(p, ec);
    if (!ec && fs::exists(st) && (st.permissions() & fs::perms::all & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none)
        fail("cannot write: read-only file (no write permission; chmod u+w it or use another --db)");
    fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    auto dst = fs::status(dir, ec);
    if (!ec && fs::exists(dst) && (dst.permissions() & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none)
        fail("cannot write: read-only directory " + dir.string() + " (SQLite keeps its -wal and -shm files beside the run log)");
}

std::string RunReader::explain(const std::string& what, double waited) const {
    int code = db_ ? sqlite3_extended_errcode(db_) & 0xff : SQLITE_OK;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
        // SQLite answers BUSY once its busy handler has waited the whole kBusyTimeoutSeconds: that
        // bound is what was waited (the measured time only adds a loaded machine's delays).
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.0f", code == SQLITE_BUSY ? std::min(waited, kBusyTimeoutSeconds) : waited);
        return std::string("is locked by another process (waited ") + buf + " s): " + what;
    }
    if (code == SQLITE_READONLY || code == SQLITE_PERM || what.find("readonly database") != std::string::npos) {
        fs::path p(path_);
        fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
        if (::access(path_.c_str(), F_OK) == 0 && ::access(path_.c_str(), W_OK) != 0)
            return "cannot write: read-only file (" + what + ")";
        if (::access(dir.c_str(), W_OK) != 0) return "cannot write: read-only directory " + dir.string() + " (" + what + ")";
        return "cannot write: read-only database (" + what + ")";
    }
    if (code == SQLITE_CANTOPEN) {
        fs::path p(path_);
        fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
        if (::access(dir.c_str(), W_OK) != 0) return "cannot write: read-only directory " + dir.string() + " (" + what + ")";
    }
    if (code == SQLITE_FULL || code == SQLITE_IOERR) {
        // Growing the -wal or -shm file on a full disk fails as an I/O error.
        fs::path p(path_);
        std::error_code ec;
        fs::space_info sp = fs::space(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
        if (!ec && sp.available < 64 * 1024)
            return "cannot write: the disk that holds it is full (" + std::to_string(sp.available) +
                   " bytes free; free some, or use --db on another disk): " + what;
    }
    return what;
}

RunReader::~RunReader() {
    if (db_) sqlite3_close(db_);
}

void RunReader::fail(const std::string& what) const {
    throw std::runtime_error("run log " + path_ + ": " + what);
}

int RunReader::schemaVersion() const {
    try {
        return runLogSchemaVersion(db_);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::optional<RunRecord> RunReader::run(int64_t id) const {
    try {
        Statement q(db_, std::string("SELECT ") + kRunColumns + " FROM runs r WHERE r.id=?");
        q.bind(1, id);
        if (!q.step()) return std::nullopt;
        return readRun(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<RunRecord> RunReader::listRuns(const RunFilter& f) const {
    // A crashed run is stored as running until a server closes it as crashed (ServiceLog::
    // closeCrashedRun): select both, then keep the ones whose shown status matches, applying
    // the limit after that.
    const bool live = f.status == "running" || f.status == "crashed";
    try {
        std::string sql = std::string("SELECT ") + kRunColumns +
                          " FROM runs r WHERE (?1 = '' OR r.status = ?1 OR (?1 = 'running' AND r.status = 'crashed')) AND (?2 = '' OR "
                          "instr(r.script, ?2) > 0) AND r.started_at >= ?3 AND (?5 = 0 OR r.replay_of "
                          "IS NOT NULL) ORDER BY r.id DESC LIMIT ?4";
        Statement q(db_, sql);
        q.bind(1, live ? std::string("running") : f.status).bind(2, f.script_contains).bind(3, f.since)
            .bind(4, live ? int64_t(-1) : int64_t(f.limit)).bind(5, f.replays_only ? 1 : 0);
        std::vector<RunRecord> out;
        while (q.step() && (f.limit <= 0 || int(out.size()) < f.limit)) {
            RunRecord r = readRun(q);
            if (!live || r.status == f.status) out.push_back(std::move(r));
        }
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<RunRecord> RunReader::replaysOf(int64_t run_id) const {
    try {
        Statement q(db_, std::string("SELECT ") + kRunColumns + " FROM runs r WHERE r.replay_of=? ORDER BY r.id");
        q.bind(1, run_id);
        std::vector<RunRecord> out;
        while (q.step()) out.push_back(readRun(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t RunReader::latestRunId() const {
    try {
        Statement q(db_, "SELECT COALESCE(MAX(id), 0) FROM runs");
        q.step();
        return q.integer(0);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<StepRecord> RunReader::steps(int64_t run_id) const {
    try {
        Statement q(db_, std::string("SELECT ") + kStepColumns + " FROM steps WHERE run_id=? ORDER BY idx, id");
        q.bind(1, run_id);
        std::vector<StepRecord> out;
        while (q.step()) out.push_back(readStep(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t RunReader::stepCount(int64_t run_id) const {
    try {
        Statement q(db_, "SELECT COUNT(*) FROM steps WHERE run_id=?");
        q.bind(1, run_id);
        q.step();
        return q.integer(0);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<FrameRecord> RunReader::frames(int64_t run_id) const {
    try {
        Statement q(db_, "SELECT id, run_id, width, height, scale, taken_at FROM frames WHERE run_id=? ORDER BY id");
        q.bind(1, run_id);
        std::vector<FrameRecord> out;
        while (q.step())
            out.push_back({q.integer(0), q.integer(1), int(q.integer(2)), int(q.integer(3)), q.real(4), q.real(5)});
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<unsigned char> RunReader::framePng(int64_t frame_id) const {
    std::optional<std::vector<unsigned char>> png;
    try {
        Statement q(db_, "SELECT png FROM frames WHERE id=?");
        q.bind(1, frame_id);
        if (q.step()) png = q.blob(0);
    } catch (const std::exception& e) {
        fail(e.what());
    }
    if (!png) fail("no frame " + std::to_string(frame_id));
    return std::move(*png);
}

std::vector<ModelCallRecord> RunReader::modelCalls(int64_t run_id) const {
    try {
        Statement q(db_, std::string("SELECT ") + kModelCallColumns +
                             " FROM model_calls WHERE run_id=? ORDER BY seq, id");
        q.bind(1, run_id);
        std::vector<ModelCallRecord> out;
        while (q.step()) out.push_back(readModelCall(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::optional<ModelCallRecord> RunReader::modelCallByCacheKey(const std::string& cache_key) const {
    try {
        Statement q(db_, std::string("SELECT ") + kModelCallColumns +
                             " FROM model_calls WHERE cache_key=? AND status='ok' ORDER BY id DESC LIMIT 1");
        q.bind(1, cache_key);
        if (!q.step()) return std::nullopt;
        return readModelCall(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::string RunReader::defaultPath() {
    if (const char* db = std::getenv("EACU_DB"); db && *db) return db;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "eacu" / "runs.db").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / ".local" / "share" / "eacu" / "runs.db").string();
}

}  // namespace eacu
