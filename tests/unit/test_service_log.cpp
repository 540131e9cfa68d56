// The service's part of the run log (runlog/ServiceLog) and the store the server's threads share
// (server/ServiceStore): sessions, tasks, messages, events, resumption by event id, waking streams.
#include <catch2/catch.hpp>

#include <thread>

#include "TempDir.h"
#include "runlog/ServiceLog.h"
#include "server/ServiceStore.h"
#include "server/TaskQueue.h"

using namespace eacu;
using eacu::test::TempDir;

TEST_CASE("sessions, tasks, messages and events read back as written, in a file that reopens", "[service]") {
    TempDir dir;
    const std::string db = dir / "runs.db";
    int64_t sid, tid;
    {
        ServiceLog log(db);
        sid = log.createSession("compute 12*34");
        tid = log.createTask(sid, "task", "compute 12*34");
        CHECK(log.task(tid)->status == "queued");
        log.setTaskStatus(tid, "running");
        CHECK(log.task(tid)->started_at > 0);
        log.addMessage({0, sid, tid, "user", "user_text", "compute 12*34", 0});
        log.addEvent({0, sid, tid, "task.started", R"({"task_id":1})", 0});
        log.addEvent({0, sid, tid, "progress.append", R"({"index":1})", 0});
    }
    ServiceLog again(db);
    REQUIRE(again.session(sid));
    CHECK(again.session(sid)->title == "compute 12*34");
    CHECK(again.tasksWithStatus({"running", "awaiting_user"}).size() == 1);
    auto events = again.eventsOf(sid);
    REQUIRE(events.size() == 2);
    CHECK(events[0].type == "task.started");
    CHECK(again.eventsOf(sid, events[0].id).size() == 1);
    CHECK(again.eventsOfTask(tid).size() == 2);
    again.endTask(tid, "completed", "408", "");
    auto t = again.task(tid);
    CHECK(t->status == "completed");
    CHECK(t->answer == "408");
    CHECK(t->ended_at >= t->started_at);
    CHECK(again.messagesOf(sid).at(0).text == "compute 12*34");
    CHECK_FALSE(again.task(tid + 100));
}

TEST_CASE("a waiting stream wakes on its session's event and on a new live frame, not on another session's",
          "[service]") {
    TempDir dir;
    server::ServiceStore store(dir / "runs.db");
    auto [a, b] = store.with([](ServiceLog& log) {
        int64_t s1 = log.createSession("a"), s2 = log.createSession("b");
        return std::make_pair(*log.task(log.createTask(s1, "task", "x")), *log.task(log.createTask(s2, "task", "y")));
    });
    std::map<int64_t, int64_t> seen;
    // Another session's event: the wait for `a` times out empty.
    store.publish(b, "progress.append", {{"index", 1}});
    auto none = store.waitForSession(a.session_id, 0, seen, 0.3);
    CHECK(none.events.empty());
    CHECK(none.live.empty());
    // Its own event, published from another thread before or while it waits.
    std::thread t2([&, a = a] { store.publish(a, "progress.append", {{"index", 1}, {"text", "点击 7"}}); });
    auto got = store.waitForSession(a.session_id, 0, seen, 5.0);
    t2.join();
    REQUIRE(got.events.size() == 1);
    auto data = nlohmann::json::parse(got.events[0].data);
    CHECK(data["task_id"] == a.id);
    CHECK(data.contains("time"));
    CHECK(data["text"] == "点击 7");
    // A live frame: sent once per new seq.
    server::LiveFrame f;
    f.task_id = a.id;
    f.jpeg = {0xff, 0xd8};
    store.setLive(a.session_id, f);
    auto live = store.waitForSession(a.session_id, got.events[0].id, seen, 1.0);
    REQUIRE(live.live.size() == 1);
    CHECK(live.live[0]->seq == 1);
    CHECK(store.waitForSession(a.session_id, got.events[0].id, seen, 0.1).live.empty());
    store.close();
    CHECK(store.waitForSession(a.session_id, got.events[0].id, seen, 10.0).events.empty());
}

TEST_CASE("the local task queue is first in first out, removes a waiting task, and wakes on close", "[service]") {
    server::LocalTaskQueue q;
    q.push(1);
    q.push(2);
    q.push(3);
    CHECK(q.remove(2));
    CHECK_FALSE(q.remove(2));
    CHECK(q.pop(0.1) == 1);
    CHECK(q.pop(0.1) == 3);
    CHECK_FALSE(q.pop(0.05));
    std::thread closer([&] { q.close(); });
    CHECK_FALSE(q.pop(10.0));
    closer.join();
}
