// Crashed runs: the writer's identity and heartbeat in the run log, and the one rule readers
// use to show a "running" run whose process is gone as "crashed".
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "base/Clock.h"
#include "process/ProcessIdentity.h"
#include "runlog/DiskReserve.h"
#include "runlog/RunLiveness.h"
#include "runlog/RunLog.h"
#include "runlog/ServiceLog.h"

using namespace eacu;
namespace fs = std::filesystem;

namespace {

std::string freshDb(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("eacu-liveness-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::path p = dir / name;
    for (const char* ext : {"", "-wal", "-shm"}) fs::remove(p.string() + ext);
    return p.string();
}

// The pid of a child that has exited and been reaped (no process has it, barring reuse).
pid_t deadPid() {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    int st = 0;
    waitpid(pid, &st, 0);
    return pid;
}

RunRecord running() {
    RunRecord r;
    r.status = "running";
    r.started_at = wallSeconds();
    return r;
}

}  // namespace

TEST_CASE("this process is recognised by pid and start time", "[record][liveness]") {
    ProcessIdentity me = currentProcess();
    CHECK(me.pid == getpid());
    CHECK(me.start_ticks > 0);
    CHECK(!me.host.empty());
    CHECK(processAlive(me));
    ProcessIdentity reused = me;
    reused.start_ticks += 1;  // the same pid, started at another time: another process
    CHECK_FALSE(processAlive(reused));
    CHECK_FALSE(processAlive({deadPid(), 0, me.host}));
    CHECK_FALSE(processStartTicks(deadPid()).has_value());
}

TEST_CASE("a running run whose process is gone is shown as crashed", "[record][liveness]") {
    double now = wallSeconds();
    ProcessIdentity me = currentProcess();
    RunRecord r = running();
    // This host: the pid decides, whatever the heartbeat says.
    r.pid = me.pid, r.pid_start = me.start_ticks, r.host = me.host, r.heartbeat_at = now - 3600;
    CHECK(shownRunStatus(r, now) == "running");
    r.pid_start = me.start_ticks + 1;
    CHECK(shownRunStatus(r, now) == "crashed");
    r.pid = deadPid(), r.pid_start = 0, r.heartbeat_at = now;
    CHECK(shownRunStatus(r, now) == "crashed");
    // Another host: the heartbeat decides.
    r.host = me.host + "-elsewhere";
    r.heartbeat_at = now - 5;
    CHECK(shownRunStatus(r, now) == "running");
    r.heartbeat_at = now - kRunHeartbeatStaleSeconds - 1;
    CHECK(shownRunStatus(r, now) == "crashed");
    // A row from before schema 5 (no pid, no heartbeat): its start time.
    RunRecord old = running();
    CHECK(shownRunStatus(old, now) == "running");
    old.started_at = now - 3600;
    CHECK(shownRunStatus(old, now) == "crashed");
    // Ended runs keep their status.
    old.status = "passed";
    CHECK(shownRunStatus(old, now) == "passed");
}

TEST_CASE("the writer records its identity and heartbeat; readers reconcile", "[record][liveness]") {
    std::string db = freshDb("live.db");
    RunLog log(db);
    RunRecord rec;
    rec.script = "live.lua";
    int64_t id = log.beginRun(rec);
    auto r = RunReader(db).run(id);
    REQUIRE(r);
    CHECK(r->pid == getpid());
    CHECK(r->pid_start == currentProcess().start_ticks);
    CHECK(r->host == hostName());
    CHECK(r->heartbeat_at > 0);
    CHECK(r->status == "running");
    // Another writer that died: its row stays "running" in the file, readers show "crashed",
    // and --status filters by what is shown.
    {
        RunLog other(db);
        int64_t dead = other.beginRun(rec);
        sqlite3* h = nullptr;
        REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
        std::string sql = "UPDATE runs SET pid=" + std::to_string(deadPid()) + " WHERE id=" + std::to_string(dead);
        REQUIRE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(h);
        RunReader reader(db);
        auto d = reader.run(dead);
        REQUIRE(d);
        CHECK(d->status == "crashed");
        CHECK(d->stored_status == "running");
        RunFilter f;
        f.status = "crashed";
        auto crashed = reader.listRuns(f);
        REQUIRE(crashed.size() == 1);
        CHECK(crashed[0].id == dead);
        f.status = "running";
        auto live = reader.listRuns(f);
        REQUIRE(live.size() == 1);
        CHECK(live[0].id == id);
    }
    log.endRun(id, "passed", "");
    CHECK(RunReader(db).run(id)->status == "passed");
}

TEST_CASE("a server closes a crashed run as crashed; a live or ended run it leaves", "[record][liveness]") {
    std::string db = freshDb("close.db");
    RunLog log(db);
    RunRecord rec;
    rec.script = "task.lua";
    int64_t live = log.beginRun(rec);
    int64_t dead = log.beginRun(rec);
    int64_t ended = log.beginRun(rec);
    log.endRun(ended, "passed", "");
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
    std::string sql = "UPDATE runs SET pid=" + std::to_string(deadPid()) + ", heartbeat_at=started_at+7 WHERE id=" +
                      std::to_string(dead) + " OR id=" + std::to_string(ended);
    REQUIRE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
    ServiceLog service(db);
    CHECK_FALSE(service.closeCrashedRun(live, "crashed: test"));
    CHECK(service.closeCrashedRun(dead, "crashed: the server stopped while task 3 ran"));
    CHECK_FALSE(service.closeCrashedRun(ended, "crashed: test"));
    RunReader reader(db);
    auto d = reader.run(dead);
    REQUIRE(d);
    CHECK(d->stored_status == "crashed");
    CHECK(d->status == "crashed");
    CHECK(d->error == "crashed: the server stopped while task 3 ran");
    CHECK(d->ended_at == Approx(d->started_at + 7));  // its last heartbeat
    CHECK(reader.run(live)->stored_status == "running");
    CHECK(reader.run(ended)->stored_status == "passed");
    // --status crashed lists it (stored crashed) with the ones only shown crashed.
    RunFilter f;
    f.status = "crashed";
    auto crashed = reader.listRuns(f);
    REQUIRE(crashed.size() == 1);
    CHECK(crashed[0].id == dead);
    log.endRun(live, "passed", "");
}

TEST_CASE("the heartbeat refreshes heartbeat_at until the run ends", "[record][liveness]") {
    std::string db = freshDb("beat.db");
    RunLog log(db);
    RunRecord rec;
    rec.script = "beat.lua";
    int64_t id = log.beginRun(rec);
    double first = RunReader(db).run(id)->heartbeat_at;
    RunHeartbeat beat(db, id, 0.05);
    double later = first;
    for (int i = 0; i < 100 && later == first; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        later = RunReader(db).run(id)->heartbeat_at;
    }
    CHECK(later > first);
    log.endRun(id, "passed", "");
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    auto ended = RunReader(db).run(id);
    double after = ended->heartbeat_at;
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    CHECK(RunReader(db).run(id)->heartbeat_at == after);  // no beat once the run has ended
}

TEST_CASE("the disk reserve beside the run log: made, released, stale ones removed", "[record][liveness]") {
    std::string db = freshDb("reserve.db");
    auto reserves = [&] {
        int n = 0;
        for (const auto& e : fs::directory_iterator(fs::path(db).parent_path()))
            if (e.path().filename().string().rfind("reserve.db.reserve-", 0) == 0) ++n;
        return n;
    };
    // A reserve of a process that is gone (a run killed with SIGKILL) is removed by the next one.
    std::string stale = db + ".reserve-" + hostName() + "-" + std::to_string(deadPid()) + "-1";
    { std::ofstream(stale) << "x"; }
    // One of another host is never touched (its process cannot be looked at from here).
    std::string other_host = db + ".reserve-elsewhere.example-1-1";
    { std::ofstream(other_host) << "x"; }
    {
        DiskReserve r(db, 100 * 1024);
        REQUIRE(r.held());
        CHECK_FALSE(fs::exists(stale));
        CHECK(fs::exists(other_host));
        CHECK(reserves() == 2);
        std::string mine;
        for (const auto& e : fs::directory_iterator(fs::path(db).parent_path()))
            if (e.path().filename().string().find(std::to_string(getpid())) != std::string::npos) mine = e.path();
        REQUIRE(!mine.empty());
        CHECK(fs::file_size(mine) == 100 * 1024);
        CHECK(r.release());
        CHECK_FALSE(r.held());
        CHECK_FALSE(fs::exists(mine));
        CHECK_FALSE(r.release());
    }
    {
        DiskReserve r(db, 4096);
        CHECK(r.held());
    }
    CHECK(reserves() == 1);  // the other host's
    fs::remove(other_host);
    // A run keeps one while it is open and removes it when it ends.
    RunLog log(db);
    int64_t id = log.beginRun(running());
    CHECK(reserves() == 1);
    log.endRun(id, "passed", "");
    CHECK(reserves() == 0);
}
