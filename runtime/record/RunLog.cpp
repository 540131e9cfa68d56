#include "record/RunLog.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

#include "model/ModelCallLog.h"
#include "record/Statement.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

// Schema version 1. Later versions add migrations in RunLog::migrate().
const char* kSchemaV1 = R"SQL(
CREATE TABLE runs(
  id          INTEGER PRIMARY KEY,
  script      TEXT NOT NULL,
  args        TEXT NOT NULL DEFAULT '[]',
  device      TEXT,
  screen_w    INTEGER,
  screen_h    INTEGER,
  scale       REAL,
  status      TEXT NOT NULL,
  error       TEXT,
  started_at  REAL NOT NULL,
  ended_at    REAL,
  replay_of   INTEGER REFERENCES runs(id)
);
CREATE TABLE frames(
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  width     INTEGER NOT NULL,
  height    INTEGER NOT NULL,
  scale     REAL NOT NULL,
  taken_at  REAL NOT NULL,
  png       BLOB NOT NULL
);
CREATE TABLE steps(
  id            INTEGER PRIMARY KEY,
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  idx           INTEGER NOT NULL,
  parent_id     INTEGER REFERENCES steps(id),
  action        TEXT NOT NULL,
  target        TEXT,
  params        TEXT,
  method        TEXT,
  score         REAL,
  threshold     REAL,
  box_x INTEGER, box_y INTEGER, box_w INTEGER, box_h INTEGER,
  input_x INTEGER, input_y INTEGER,
  status        TEXT NOT NULL,
  error         TEXT,
  change_ratio  REAL,
  settle_ms     REAL,
  locate_ms     REAL,
  action_ms     REAL,
  started_at    REAL NOT NULL,
  ended_at      REAL NOT NULL,
  frame_before  INTEGER REFERENCES frames(id),
  frame_after   INTEGER REFERENCES frames(id),
  transform     TEXT
);
CREATE INDEX steps_by_run ON steps(run_id, idx);
CREATE INDEX frames_by_run ON frames(run_id);
)SQL";

// Schema version 2: how a replay was made, and an index for `eacu runs --status/--since`.
const char* kSchemaV2 = R"SQL(
ALTER TABLE runs ADD COLUMN replay_mode TEXT;
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, started_at);
CREATE INDEX IF NOT EXISTS runs_by_replay ON runs(replay_of);
)SQL";

const char* kStepColumns =
    "id, run_id, idx, parent_id, action, target, params, method, score, threshold, box_x, box_y, "
    "box_w, box_h, input_x, input_y, status, error, change_ratio, settle_ms, locate_ms, "
    "action_ms, started_at, ended_at, frame_before, frame_after, transform";

const char* kRunColumns =
    "r.id, r.script, r.args, r.device, r.screen_w, r.screen_h, r.scale, r.status, r.error, "
    "r.started_at, r.ended_at, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id), "
    "r.replay_of, r.replay_mode";

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
    return r;
}

}  // namespace

RunLog::RunLog(const std::string& path) : path_(path) {
    fs::path p(path);
    if (p.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(p.parent_path(), ec);
    }
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw std::runtime_error("run log " + path + ": cannot open: " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    try {
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        exec("PRAGMA foreign_keys=ON");
        migrate();
        // model_calls (issue 5: every model call, the response cache): an additive,
        // idempotent step (CREATE ... IF NOT EXISTS), so it needs no schema version of its own.
        exec(model::modelCallsSchemaSql());
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

RunLog::~RunLog() {
    if (db_) sqlite3_close(db_);
}

void RunLog::fail(const std::string& what) const {
    throw std::runtime_error("run log " + path_ + ": " + what);
}

void RunLog::exec(const std::string& sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail(msg);
    }
}

int RunLog::schemaVersion() const {
    Statement q(db_, "PRAGMA user_version");
    q.step();
    return int(q.integer(0));
}

void RunLog::migrate() {
    int v = schemaVersion();
    if (v > kRunLogSchemaVersion)
        fail("schema version " + std::to_string(v) + " is newer than this eacu supports (" +
             std::to_string(kRunLogSchemaVersion) + ")");
    if (v == kRunLogSchemaVersion) return;
    exec("BEGIN IMMEDIATE");
    try {
        if (v < 1) exec(kSchemaV1);
        if (v < 2) exec(kSchemaV2);
        exec("PRAGMA user_version=" + std::to_string(kRunLogSchemaVersion));
        exec("COMMIT");
    } catch (...) {
        exec("ROLLBACK");
        throw;
    }
}

int64_t RunLog::beginRun(const RunRecord& r) {
    try {
        Statement q(db_,
                    "INSERT INTO runs(script, args, device, screen_w, screen_h, scale, status, "
                    "started_at, replay_of, replay_mode) VALUES(?,?,?,?,?,?, 'running', ?,?,?)");
        q.bind(1, r.script).bind(2, r.args_json).bind(3, r.device).bind(4, r.screen_w)
            .bind(5, r.screen_h).bind(6, r.scale).bind(7, r.started_at > 0 ? r.started_at : wallSeconds())
            .bind(8, r.replay_of).bind(9, r.replay_mode.empty() ? std::optional<std::string>() : r.replay_mode);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return sqlite3_last_insert_rowid(db_);
}

void RunLog::endRun(int64_t run_id, const std::string& status, const std::string& error) {
    try {
        Statement q(db_, "UPDATE runs SET status=?, error=?, ended_at=? WHERE id=?");
        q.bind(1, status).bind(2, error).bind(3, wallSeconds()).bind(4, run_id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t RunLog::addFrame(int64_t run_id, const Frame& frame) {
    std::vector<unsigned char> png;
    // Compression level 1: about 3x faster than the default at a slightly larger file.
    if (!cv::imencode(".png", frame.bgr, png, {cv::IMWRITE_PNG_COMPRESSION, 1}))
        fail("cannot encode frame as PNG");
    try {
        Statement q(db_,
                    "INSERT INTO frames(run_id, width, height, scale, taken_at, png) "
                    "VALUES(?,?,?,?,?,?)");
        q.bind(1, run_id).bind(2, frame.width()).bind(3, frame.height()).bind(4, frame.scale)
            .bind(5, frame.timestamp > 0 ? frame.timestamp : wallSeconds()).bindBlob(6, png);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return sqlite3_last_insert_rowid(db_);
}

int64_t RunLog::addStep(const StepRecord& s) {
    try {
        Statement q(db_,
                    "INSERT INTO steps(run_id, idx, parent_id, action, target, params, method, "
                    "score, threshold, box_x, box_y, box_w, box_h, input_x, input_y, status, "
                    "error, change_ratio, settle_ms, locate_ms, action_ms, started_at, ended_at, "
                    "frame_before, frame_after, transform) "
                    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        q.bind(1, s.run_id).bind(2, s.idx).bind(3, s.parent_id).bind(4, s.action)
            .bind(5, s.target).bind(6, s.params_json).bind(7, s.method).bind(8, s.score)
            .bind(9, s.threshold);
        if (s.box) {
            q.bind(10, s.box->x).bind(11, s.box->y).bind(12, s.box->w).bind(13, s.box->h);
        } else {
            for (int i = 10; i <= 13; ++i) q.bindNull(i);
        }
        if (s.input) {
            q.bind(14, s.input->x).bind(15, s.input->y);
        } else {
            q.bindNull(14).bindNull(15);
        }
        q.bind(16, s.status).bind(17, s.error).bind(18, s.change_ratio).bind(19, s.settle_ms)
            .bind(20, s.locate_ms).bind(21, s.action_ms).bind(22, s.started_at)
            .bind(23, s.ended_at).bind(24, s.frame_before).bind(25, s.frame_after)
            .bind(26, s.transform_json);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return sqlite3_last_insert_rowid(db_);
}

std::optional<RunRecord> RunLog::run(int64_t id) const {
    Statement q(db_, std::string("SELECT ") + kRunColumns + " FROM runs r WHERE r.id=?");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    return readRun(q);
}

std::vector<RunRecord> RunLog::listRuns(const RunFilter& f) const {
    std::string sql = std::string("SELECT ") + kRunColumns +
                      " FROM runs r WHERE (?1 = '' OR r.status = ?1) AND (?2 = '' OR "
                      "instr(r.script, ?2) > 0) AND r.started_at >= ?3 ORDER BY r.id DESC LIMIT ?4";
    Statement q(db_, sql);
    q.bind(1, f.status).bind(2, f.script_contains).bind(3, f.since).bind(4, f.limit);
    std::vector<RunRecord> out;
    while (q.step()) out.push_back(readRun(q));
    return out;
}

std::vector<StepRecord> RunLog::steps(int64_t run_id) const {
    Statement q(db_, std::string("SELECT ") + kStepColumns + " FROM steps WHERE run_id=? ORDER BY idx, id");
    q.bind(1, run_id);
    std::vector<StepRecord> out;
    while (q.step()) {
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
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<FrameRecord> RunLog::frames(int64_t run_id) const {
    Statement q(db_, "SELECT id, run_id, width, height, scale, taken_at FROM frames WHERE run_id=? ORDER BY id");
    q.bind(1, run_id);
    std::vector<FrameRecord> out;
    while (q.step())
        out.push_back({q.integer(0), q.integer(1), int(q.integer(2)), int(q.integer(3)), q.real(4), q.real(5)});
    return out;
}

std::vector<unsigned char> RunLog::framePng(int64_t frame_id) const {
    Statement q(db_, "SELECT png FROM frames WHERE id=?");
    q.bind(1, frame_id);
    if (!q.step()) fail("no frame " + std::to_string(frame_id));
    return q.blob(0);
}

int64_t RunLog::latestRunId() const {
    Statement q(db_, "SELECT COALESCE(MAX(id), 0) FROM runs");
    q.step();
    return q.integer(0);
}

std::string RunLog::defaultPath() {
    if (const char* db = std::getenv("EACU_DB"); db && *db) return db;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "eacu" / "runs.db").string();
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : ".") / ".local" / "share" / "eacu" / "runs.db").string();
}

}  // namespace eacu
