// The SQLite run log: schema, reads back what was written, and commit per step.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "record/RunLog.h"

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
    CHECK(runs[0].status == "running");  // never ended
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
