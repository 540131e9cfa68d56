// The server's one consumer of worker lines (server/TaskEvents), the person's side of it (issue
// 29 on issue 26's split): ack, take-over, hand-back and input decide on the lines the run sent,
// send through whatever SendLine the caller gives (a local TaskRunner or a Redis control stream),
// and the run's answers (paused, resumed, input_done, input_refused, end) come back through
// line(), the same for local and remote tasks.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "TempDir.h"
#include "server/ServiceStore.h"
#include "server/TaskEvents.h"

using namespace eacu;
using namespace eacu::server;
using eacu::test::TempDir;
using nlohmann::json;

namespace {

struct Fixture {
    TempDir dir;
    ServiceStore store{dir / "runs.db"};
    TaskRecord task;
    std::mutex mu;
    std::vector<json> sent;
    TaskEvents::SendLine send = [this](const std::string& line) {
        std::lock_guard<std::mutex> lock(mu);
        sent.push_back(json::parse(line));
    };

    Fixture() {
        task = store.with([](ServiceLog& log) {
            int64_t sid = log.createSession("t");
            return *log.task(log.createTask(sid, "task", "compute 12*34"));
        });
    }
    std::vector<json> lines() {
        std::lock_guard<std::mutex> lock(mu);
        return sent;
    }
    std::vector<std::string> eventTypes() {
        std::vector<std::string> out;
        for (const auto& e : store.with([&](ServiceLog& log) { return log.eventsOfTask(task.id); })) out.push_back(e.type);
        return out;
    }
};

}  // namespace

TEST_CASE("take-over, pause, the person's input and hand-back go through TaskEvents", "[service][takeover]") {
    Fixture f;
    TaskEvents ev(f.store, f.task);
    ev.running();
    // Running, not paused: input refused at once, nothing sent; hand-back refused.
    InputOutcome o = ev.input({{"kind", "click"}, {"x", 1}, {"y", 2}}, 1.0, f.send);
    CHECK_FALSE(o.done);
    CHECK(o.reason.find("neither awaits") != std::string::npos);
    CHECK_FALSE(ev.handBack(f.send));
    CHECK(f.lines().empty());

    REQUIRE(ev.takeOver(f.send));
    CHECK_FALSE(ev.takeOver(f.send));  // taken over already
    REQUIRE(f.lines().size() == 1);
    CHECK(f.lines()[0] == json{{"type", "take_over"}});
    // Before the run reaches its step boundary: input refused with that reason.
    o = ev.input({{"kind", "click"}, {"x", 1}, {"y", 2}}, 1.0, f.send);
    CHECK(o.reason.find("step boundary") != std::string::npos);

    ev.line(R"({"type":"paused"})");
    CHECK(f.eventTypes().back() == "task.paused");
    // The input line goes out; the run's input_done (fed on another thread, as the read loop
    // or the Redis relay would) answers it.
    auto answer = std::async(std::launch::async, [&] {
        for (int i = 0; i < 200 && f.lines().size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const json in = f.lines().at(1);
        ev.line(json{{"type", "step"},
                     {"step", {{"id", 7}, {"idx", 1}, {"action", "click"}, {"status", "ok"}, {"actor", "user"},
                               {"frame_after", 3}, {"input", {1, 2}}}}}
                    .dump());
        ev.line(json{{"type", "input_done"}, {"seq", in["seq"]}, {"step", {{"id", 7}, {"actor", "user"}}}}.dump());
        return in;
    });
    o = ev.input({{"kind", "click"}, {"x", 1}, {"y", 2}}, 10.0, f.send);
    const json in = answer.get();
    CHECK(in["type"] == "input");
    CHECK(in["event"]["kind"] == "click");
    CHECK(o.done);
    CHECK(o.seq == in["seq"].get<int64_t>());
    CHECK(o.step["id"] == 7);
    // The person's step is a progress item with actor user.
    auto items = f.store.with([&](ServiceLog& log) { return log.eventsOfTask(f.task.id); });
    json last = json::parse(items.back().data);
    CHECK(items.back().type == "progress.append");
    CHECK(last["actor"] == "user");

    // A refused input comes back with the run's reason.
    answer = std::async(std::launch::async, [&] {
        for (int i = 0; i < 200 && f.lines().size() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const json in = f.lines().at(2);
        ev.line(json{{"type", "input_refused"}, {"seq", in["seq"]}, {"reason", "off the screen"}}.dump());
        return in;
    });
    o = ev.input({{"kind", "click"}, {"x", -5}, {"y", 2}}, 10.0, f.send);
    answer.get();
    CHECK_FALSE(o.done);
    CHECK(o.reason == "off the screen");

    REQUIRE(ev.handBack(f.send));
    CHECK(f.lines().back() == json{{"type", "hand_back"}});
    CHECK_FALSE(ev.handBack(f.send));
    ev.line(R"({"type":"resumed"})");
    CHECK(f.eventTypes().back() == "task.resumed");
}

TEST_CASE("an ack answers awaiting_user or ends a pause; nothing goes out after the run's end", "[service][takeover]") {
    Fixture f;
    TaskEvents ev(f.store, f.task);
    ev.running();
    CHECK_FALSE(ev.ack("x", f.send));
    ev.line(R"({"type":"awaiting_user","kind":"needs_user","text":"请先登录"})");
    CHECK_FALSE(ev.takeOver(f.send));  // the screen is the person's already
    REQUIRE(ev.ack("我已经操作", f.send));
    CHECK(f.lines().back() == json{{"type", "ack"}, {"text", "我已经操作"}});
    CHECK(f.eventTypes().back() == "task.started");
    CHECK_FALSE(ev.ack("again", f.send));

    REQUIRE(ev.takeOver(f.send));
    ev.line(R"({"type":"paused"})");
    REQUIRE(ev.ack("我已经操作", f.send));  // also ends the pause
    CHECK_FALSE(ev.handBack(f.send));

    // A wait in progress ends when the run ends.
    ev.line(R"({"type":"awaiting_user","kind":"ask","text":"?"})");
    auto ender = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ev.line(R"({"type":"end","status":"interrupted","error":"stopped"})");
    });
    InputOutcome o = ev.input({{"kind", "key"}, {"keys", "Return"}}, 10.0, f.send);
    ender.get();
    CHECK_FALSE(o.done);
    CHECK(o.reason.find("ended") != std::string::npos);
    const size_t n = f.lines().size();
    CHECK_FALSE(ev.takeOver(f.send));
    CHECK_FALSE(ev.ack("late", f.send));
    CHECK_FALSE(ev.input({{"kind", "click"}, {"x", 1}, {"y", 1}}, 1.0, f.send).done);
    CHECK(f.lines().size() == n);
}

TEST_CASE("a restarted server's TaskEvents picks up a pause from the task's events", "[service][takeover]") {
    Fixture f;
    {
        TaskEvents ev(f.store, f.task);
        ev.running();
        REQUIRE(ev.takeOver(f.send));
        ev.line(R"({"type":"paused"})");
    }
    TaskEvents again(f.store, f.task);
    again.restore();
    REQUIRE(again.handBack(f.send));
    CHECK(f.lines().back() == json{{"type", "hand_back"}});
}
