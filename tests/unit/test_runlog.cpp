// The SQLite run log: schema and migrations from older files, reads back what was written
// (runs, steps, frames, model calls) through the reader, and commit per step.
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "runlog/RunLog.h"
#include "runlog/WorkerTasks.h"

using namespace eacu;
namespace fs = std::filesystem;

namespace {

std::string tempDb(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("eacu-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::path p = dir / name;
    fs::remove(p);
    fs::remove(p.string() + "-wal");
    fs::remove(p.string() + "-shm");
    return p.string();
}

// Counts rows with an independent connection (what another process would see).
int64_t countRows(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

Frame smallFrame() {
    Frame f;
    f.bgr = cv::Mat(20, 30, CV_8UC3, cv::Scalar(10, 20, 30));
    f.timestamp = wallSeconds();
    return f;
}

}  // namespace

TEST_CASE("the run log creates its schema in WAL mode", "[record]") {
    std::string db = tempDb("schema.db");
    RunLog log(db);
    CHECK(log.schemaVersion() == kRunLogSchemaVersion);
    CHECK(countRows(db, "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name IN ('runs','steps','frames')") == 3);
    CHECK(countRows(db, "SELECT COUNT(*) FROM pragma_table_info('steps') WHERE name IN ('run_id','score','threshold','box_x','input_x','frame_before','frame_after','change_ratio','status')") == 9);
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, nullptr);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "wal");
    sqlite3_finalize(st);
    sqlite3_close(h);
    // Reopening an existing file keeps it.
    RunLog again(db);
    CHECK(again.schemaVersion() == kRunLogSchemaVersion);
}

TEST_CASE("runs, steps and frames read back as written", "[record]") {
    std::string db = tempDb("roundtrip.db");
    RunLog log(db);
    RunRecord r;
    r.script = "/tmp/task.lua";
    r.args_json = R"(["a"])";
    r.device = "x11 :99 1280x800";
    r.screen_w = 1280;
    r.screen_h = 800;
    int64_t run = log.beginRun(r);
    int64_t f1 = log.addFrame(run, smallFrame());
    CHECK(log.framePng(f1).size() > 8);
    StepRecord s;
    s.run_id = run;
    s.idx = 1;
    s.action = "tap";
    s.target = "\"btn_1\"";
    s.method = "template";
    s.score = 0.97;
    s.threshold = 0.9;
    s.box = Rect{1, 2, 3, 4};
    s.input = Point{2, 4};
    s.status = "ok";
    s.frame_before = f1;
    s.started_at = wallSeconds();
    s.ended_at = s.started_at + 0.1;
    log.addStep(s);
    log.endRun(run, "passed", "");

    auto got = log.run(run);
    REQUIRE(got);
    CHECK(got->status == "passed");
    CHECK(got->step_count == 1);
    CHECK(got->ended_at >= got->started_at);
    auto steps = log.steps(run);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].action == "tap");
    CHECK(steps[0].score == Approx(0.97));
    CHECK(steps[0].box == Rect{1, 2, 3, 4});
    CHECK(steps[0].input == Point{2, 4});
    CHECK(steps[0].frame_before == f1);
    CHECK_FALSE(steps[0].frame_after);
    CHECK(log.listRuns({"passed", "task", 0, 10}).size() == 1);
    CHECK(log.listRuns({"failed", "", 0, 10}).empty());
    CHECK(log.latestRunId() == run);
    CHECK_THROWS(log.framePng(9999));
}

TEST_CASE("each step is committed when it ends; a killed writer loses only the step in flight", "[record]") {
    std::string db = tempDb("kill.db");
    { RunLog init(db); }
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        // Child: write a run and three steps, report, then wait to be killed mid-run.
        RunLog log(db);
        int64_t run = log.beginRun({});
        for (int i = 1; i <= 3; ++i) {
            StepRecord s;
            s.run_id = run;
            s.idx = i;
            s.action = "tap";
            s.status = "ok";
            s.frame_before = log.addFrame(run, smallFrame());
            log.addStep(s);
        }
        char c = 'x';
        (void)!write(pipefd[1], &c, 1);
        for (;;) pause();
    }
    close(pipefd[1]);
    char c;
    REQUIRE(read(pipefd[0], &c, 1) == 1);
    // Seen from another connection while the writer is still alive: every step is there.
    CHECK(countRows(db, "SELECT COUNT(*) FROM steps") == 3);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    RunLog after(db);
    auto runs = after.listRuns();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].stored_status == "running");  // never ended
    CHECK(runs[0].status == "crashed");         // and its writer is gone
    CHECK(after.steps(runs[0].id).size() == 3);
    CHECK(after.frames(runs[0].id).size() == 3);
}

TEST_CASE("a file that is not a run log is refused with its path", "[record]") {
    std::string db = tempDb("garbage.db");
    FILE* f = fopen(db.c_str(), "w");
    fputs("this is not sqlite, just text long enough to be a header............", f);
    fclose(f);
    try {
        RunLog log(db);
        FAIL("expected an error");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()).find(db) != std::string::npos);
    }
}

namespace {

// Writes `sql` into a new SQLite file at `path`, as an older eacu would have left it.
void makeFile(const std::string& path, const std::string& sql) {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &h) == SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
    INFO((err ? err : ""));
    sqlite3_free(err);
    sqlite3_close(h);
    REQUIRE(rc == SQLITE_OK);
}

// The tables of schema version 2 (runs, frames, steps), as eacu 0.1 created them.
const char* kV2Tables =
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, script TEXT NOT NULL, args TEXT NOT NULL DEFAULT '[]', "
    "device TEXT, screen_w INTEGER, screen_h INTEGER, scale REAL, status TEXT NOT NULL, error TEXT, "
    "started_at REAL NOT NULL, ended_at REAL, replay_of INTEGER REFERENCES runs(id), replay_mode TEXT);"
    "CREATE TABLE frames(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), width INTEGER "
    "NOT NULL, height INTEGER NOT NULL, scale REAL NOT NULL, taken_at REAL NOT NULL, png BLOB NOT NULL);"
    "CREATE TABLE steps(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT "
    "NULL, parent_id INTEGER REFERENCES steps(id), action TEXT NOT NULL, target TEXT, params TEXT, method TEXT, "
    "score REAL, threshold REAL, box_x INTEGER, box_y INTEGER, box_w INTEGER, box_h INTEGER, input_x INTEGER, "
    "input_y INTEGER, status TEXT NOT NULL, error TEXT, change_ratio REAL, settle_ms REAL, locate_ms REAL, "
    "action_ms REAL, started_at REAL NOT NULL, ended_at REAL NOT NULL, frame_before INTEGER REFERENCES "
    "frames(id), frame_after INTEGER REFERENCES frames(id), transform TEXT);"
    "CREATE INDEX steps_by_run ON steps(run_id, idx);"
    "CREATE INDEX frames_by_run ON frames(run_id);"
    "CREATE INDEX runs_by_status ON runs(status, started_at);"
    "CREATE INDEX runs_by_replay ON runs(replay_of);";

// model_calls as runtime/model/ModelCallLog created it (outside the schema versions).
const char* kOldModelCalls =
    "CREATE TABLE model_calls (id INTEGER PRIMARY KEY, run_id INTEGER, step_id INTEGER, seq INTEGER NOT NULL, "
    "kind TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, endpoint TEXT NOT NULL, request_json TEXT "
    "NOT NULL, response_json TEXT, answer TEXT, status TEXT NOT NULL, error TEXT, http_status INTEGER, attempts "
    "INTEGER, latency_ms REAL, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, "
    "cache_creation_tokens INTEGER, cache_key TEXT, fingerprint TEXT, frame_ids_json TEXT NOT NULL DEFAULT '[]', "
    "created_at REAL NOT NULL);"
    "CREATE INDEX model_calls_run ON model_calls(run_id, seq);"
    "CREATE INDEX model_calls_cache ON model_calls(cache_key, status);";

ModelCallRecord call(int64_t run, int seq, const std::string& key, const std::string& status = "ok") {
    ModelCallRecord c;
    c.run_id = run;
    c.seq = seq;
    c.kind = "autopilot";
    c.provider = "openai";
    c.model = "m";
    c.endpoint = "http://127.0.0.1/v1";
    c.answer = "answer " + std::to_string(seq);
    c.cache_key = key;
    c.status = status;
    return c;
}

}  // namespace

TEST_CASE("a version 2 run log with model calls opens, is migrated and keeps every row", "[record]") {
    std::string db = tempDb("v2.db");
    makeFile(db, std::string(kV2Tables) + kOldModelCalls +
                     "INSERT INTO runs(script, status, started_at) VALUES('/old.lua', 'passed', 1);"
                     "INSERT INTO runs(script, status, started_at, replay_of, replay_mode) "
                     "VALUES('/old.lua', 'failed', 2, 1, 'actions');"
                     "INSERT INTO steps(run_id, idx, action, status, started_at, ended_at) VALUES(1, 1, 'tap', 'ok', 1, 1);"
                     "INSERT INTO model_calls(run_id, step_id, seq, kind, provider, model, endpoint, request_json, "
                     "answer, status, cache_key, created_at) VALUES(1, 1, 1, 'autopilot', 'openai', 'm', 'http://x', '{}', "
                     "'click 7', 'ok', 'k1', 1);"
                     "PRAGMA user_version=2;");
    RunLog log(db);
    CHECK(log.schemaVersion() == kRunLogSchemaVersion);
    CHECK(log.stepCount(1) == 1);
    CHECK(log.replaysOf(1).at(0).replay_mode == "actions");
    auto calls = log.modelCalls(1);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].answer == "click 7");
    CHECK(calls[0].step_id == 1);
    CHECK(log.modelCallByCacheKey("k1")->id == calls[0].id);
    // New rows go on after the old ones.
    log.addModelCall(call(1, 2, "k2"));
    CHECK(log.modelCalls(1).size() == 2);
    // Reopened: already current, nothing to do.
    RunReader again(db);
    CHECK(again.schemaVersion() == kRunLogSchemaVersion);
    CHECK(again.modelCalls(1).size() == 2);
}

TEST_CASE("a file holding only model calls (the old standalone log) gets the run tables", "[record]") {
    std::string db = tempDb("calls-only.db");
    makeFile(db, std::string(kOldModelCalls) +
                     "INSERT INTO model_calls(run_id, seq, kind, provider, model, endpoint, request_json, status, "
                     "cache_key, created_at) VALUES(7, 1, 'ask', 'anthropic', 'c', 'http://x', '{}', 'ok', 'k', 1);");
    RunLog log(db);
    CHECK(log.schemaVersion() == kRunLogSchemaVersion);
    CHECK(log.modelCalls(7).size() == 1);
    CHECK(log.latestRunId() == 0);
    CHECK(log.beginRun({}) == 1);
}

TEST_CASE("a run log from a newer eacu is refused, naming its version and path", "[record]") {
    std::string db = tempDb("newer.db");
    makeFile(db, "CREATE TABLE t(x); PRAGMA user_version=" + std::to_string(kRunLogSchemaVersion + 1) + ";");
    CHECK_THROWS_WITH(RunReader(db), Catch::Contains(db) && Catch::Contains("is newer than this eacu supports"));
}

TEST_CASE("the reader filters runs, finds replays, counts steps and lists model calls", "[record]") {
    std::string db = tempDb("reader.db");
    RunLog log(db);
    auto begin = [&](const std::string& script, double at, std::optional<int64_t> of = std::nullopt) {
        RunRecord r;
        r.script = script;
        r.started_at = at;
        r.replay_of = of;
        r.replay_mode = of ? "actions" : "";
        return log.beginRun(r);
    };
    int64_t a = begin("/s/calc.lua", 100);
    int64_t b = begin("/s/notes.lua", 200);
    int64_t ra = begin("/s/calc.lua", 300, a);
    int64_t rb = begin("/s/calc.lua", 400, a);
    log.endRun(a, "passed", "");
    log.endRun(b, "failed", "boom");
    for (int i = 1; i <= 3; ++i) {
        StepRecord s;
        s.run_id = a;
        s.idx = i;
        s.action = "tap";
        s.status = "ok";
        log.addStep(s);
    }

    RunReader reader(db);  // a second connection sees what the writer committed
    auto ids = [](const std::vector<RunRecord>& runs) {
        std::vector<int64_t> out;
        for (const auto& r : runs) out.push_back(r.id);
        return out;
    };
    CHECK(ids(reader.listRuns()) == std::vector<int64_t>{rb, ra, b, a});
    RunFilter f;
    f.replays_only = true;
    CHECK(ids(reader.listRuns(f)) == std::vector<int64_t>{rb, ra});
    f.limit = 1;
    CHECK(ids(reader.listRuns(f)) == std::vector<int64_t>{rb});
    f = {};
    f.status = "failed";
    CHECK(ids(reader.listRuns(f)) == std::vector<int64_t>{b});
    f = {};
    f.script_contains = "calc";
    f.since = 250;
    CHECK(ids(reader.listRuns(f)) == std::vector<int64_t>{rb, ra});
    CHECK(ids(reader.replaysOf(a)) == std::vector<int64_t>{ra, rb});
    CHECK(reader.replaysOf(b).empty());
    CHECK(reader.stepCount(a) == 3);
    CHECK(reader.run(a)->step_count == 3);
    CHECK(reader.stepCount(b) == 0);
    CHECK(reader.run(b)->error == "boom");
    CHECK(reader.latestRunId() == rb);

    // Model calls: in call order per run; the cache finds the newest live answer for a key.
    int64_t c1 = log.addModelCall(call(a, 2, "key"));
    int64_t c0 = log.addModelCall(call(a, 1, "other"));
    int64_t c2 = log.addModelCall(call(ra, 1, "key"));
    log.addModelCall(call(rb, 1, "key", "cached"));
    log.addModelCall(call(rb, 2, "key", "error"));
    auto calls = reader.modelCalls(a);
    REQUIRE(calls.size() == 2);
    CHECK(calls[0].id == c0);
    CHECK(calls[1].id == c1);
    CHECK(calls[1].answer == "answer 2");
    CHECK(reader.modelCallByCacheKey("key")->id == c2);
    CHECK_FALSE(reader.modelCallByCacheKey("none"));
    CHECK(reader.modelCalls(b).empty());
}

TEST_CASE("model calls store 'none' as NULL and read it back as 0 or empty", "[record]") {
    std::string db = tempDb("calls.db");
    RunLog log(db);
    ModelCallRecord c = call(0, 1, "");
    c.answer.clear();
    c.frame_ids_json.clear();
    int64_t id = log.addModelCall(c);
    std::string row = "FROM model_calls WHERE id=" + std::to_string(id);
    CHECK(countRows(db, "SELECT COUNT(*) " + row + " AND run_id IS NULL AND step_id IS NULL AND answer IS NULL "
                        "AND cache_key IS NULL AND error IS NULL AND frame_ids_json = '[]' AND created_at > 0") == 1);
    // A call outside a run belongs to no run's list; a call with no key is never a cache hit.
    CHECK(log.modelCalls(0).empty());
    CHECK_FALSE(log.modelCallByCacheKey(""));
}

TEST_CASE("a worker's note of its tasks' runs: only those not delivered come back, per Redis", "[record]") {
    std::string db = tempDb("worker_tasks.db");
    RunLog log(db);
    RunRecord r;
    r.script = "task";
    const int64_t run1 = log.beginRun(r), run2 = log.beginRun(r), run3 = log.beginRun(r);
    WorkerTasks w(db);
    w.started("127.0.0.1:6379/0", 7, run1, "w1");
    w.started("127.0.0.1:6379/0", 8, run2, "w1");
    w.started("127.0.0.1:6380/0", 7, run3, "w1");  // another Redis: its task 7 is another task
    w.setState("127.0.0.1:6379/0", 8, "delivered");
    auto left = WorkerTasks(db).undelivered("127.0.0.1:6379/0");
    REQUIRE(left.size() == 1);
    CHECK(left[0].task_id == 7);
    CHECK(left[0].run_id == run1);
    CHECK(left[0].worker == "w1");
    CHECK(left[0].state == "running");
    w.setState("127.0.0.1:6379/0", 7, "sent_home");
    CHECK(WorkerTasks(db).undelivered("127.0.0.1:6379/0").empty());
    CHECK(WorkerTasks(db).undelivered("127.0.0.1:6380/0").size() == 1);
    // A task noted again (run anew after its keys expired) replaces its row.
    w.started("127.0.0.1:6379/0", 7, run2, "w1");
    left = WorkerTasks(db).undelivered("127.0.0.1:6379/0");
    REQUIRE(left.size() == 1);
    CHECK(left[0].run_id == run2);
}
