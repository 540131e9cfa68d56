// The worker side of eacu serve (runtime/run/ServeChannel) over a real socketpair: the lines it
// writes, the awaiting_user/ack round trip, a stop while it waits, a server that closed its
// end, and a session whose committed steps and person steps go out as lines.
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "ImageSession.h"
#include "base/Cancel.h"
#include "base/Clock.h"
#include "run/ServeChannel.h"
#include "step/StepError.h"

using namespace eacu;
using json = nlohmann::json;

namespace {

// The server's end of the socketpair: reads lines with a deadline, writes lines.
struct Peer {
    int fd = -1;
    std::string buf;
    ~Peer() { close(); }
    void close() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
    // The next line, waiting up to `timeout` seconds; "" when none came in time.
    std::string line(double timeout = 5.0) {
        const double end = monotonicSeconds() + timeout;
        for (;;) {
            size_t nl = buf.find('\n');
            if (nl != std::string::npos) {
                std::string l = buf.substr(0, nl);
                buf.erase(0, nl + 1);
                return l;
            }
            double left = end - monotonicSeconds();
            if (left <= 0) return "";
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, int(left * 1000) + 1) <= 0) continue;
            char c[4096];
            ssize_t n = ::read(fd, c, sizeof c);
            if (n <= 0) return "";
            buf.append(c, size_t(n));
        }
    }
    // The next line as JSON (null when none came in time or it is not JSON). No Catch macros
    // here: the tests call it from their server threads.
    json next(double timeout = 5.0) {
        json j = json::parse(line(timeout), nullptr, false);
        return j.is_discarded() ? json() : j;
    }
    bool write(const std::string& s) { return ::write(fd, s.data(), s.size()) == ssize_t(s.size()); }
};

struct Pair {
    Peer server;
    std::shared_ptr<ServeChannel> worker;
    Pair() {
        int sv[2];
        REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        server.fd = sv[0];
        worker = std::make_shared<ServeChannel>(sv[1]);
    }
};

}  // namespace

TEST_CASE("ServeChannel: run, intent, step, answer and end lines; nothing after end", "[serve]") {
    Pair p;
    p.worker->run(12);
    p.worker->intent("点击 7 键");
    p.worker->intent("");  // not sent
    StepRecord s;
    s.id = 5;
    s.idx = 3;
    s.parent_id = 2;
    s.action = "tap";
    s.target = "[5] asset \"7\"";
    s.status = "ok";
    s.input = Point{70, 287};
    s.box = Rect{50, 270, 40, 30};
    s.frame_before = 8;
    s.params_json = R"({"thought":"点击 7 键"})";
    s.started_at = 100.5;
    s.ended_at = 101.25;
    p.worker->step(s);
    p.worker->answer("408");
    p.worker->answer("second");  // at most once
    p.worker->end("passed", "");
    p.worker->end("interrupted", "cancelled");  // the watchdog too: still one end line
    p.worker->answer("late");
    CHECK_FALSE(p.worker->send({{"type", "intent"}, {"text", "late"}}));

    CHECK(p.server.next() == json{{"type", "run"}, {"run_id", 12}});
    CHECK(p.server.next() == json{{"type", "intent"}, {"text", "点击 7 键"}});
    json st = p.server.next();
    CHECK(st["type"] == "step");
    CHECK(st["step"]["id"] == 5);
    CHECK(st["step"]["idx"] == 3);
    CHECK(st["step"]["parent_id"] == 2);
    CHECK(st["step"]["action"] == "tap");
    CHECK(st["step"]["status"] == "ok");
    CHECK(st["step"]["input"] == json{70, 287});
    CHECK(st["step"]["box"] == json{50, 270, 40, 30});
    CHECK(st["step"]["frame_before"] == 8);
    CHECK(st["step"]["frame_after"].is_null());
    CHECK(st["step"]["params"]["thought"] == "点击 7 键");
    CHECK(st["step"]["started_at"] == 100.5);
    CHECK(p.server.next() == json{{"type", "answer"}, {"text", "408"}});
    CHECK(p.server.next() == json{{"type", "end"}, {"status", "passed"}, {"error", ""}});
    CHECK(p.server.line(0.2).empty());  // nothing after end
}

TEST_CASE("ServeChannel: awaiting_user is answered by one ack line; a stale ack does not answer", "[serve]") {
    Pair p;
    CancelToken cancel;
    // An ack left over from an earlier wait (a double click on the button) is discarded.
    REQUIRE(p.server.write("{\"type\":\"ack\",\"text\":\"stale\"}\n"));
    std::vector<json> asked;  // what the server saw (checked after the join)
    std::thread server([&] {
        asked.push_back(p.server.next());
        p.server.write("{\"type\":\"ack\",\"text\":\"张三\"}\n");
        asked.push_back(p.server.next());
        p.server.write("{\"type\":\"ack\"}\n");  // no text
        asked.push_back(p.server.next());
        p.server.write("{\"type\":\"ack\",\"text\":\"我已经操作\"}\n");
    });
    const std::string answer = p.worker->ask("谁收消息？", cancel);
    const std::string acted = p.worker->awaitAction("needs_user", "请先登录", cancel);
    const std::string allowed = p.worker->confirm("tap \"Pay\"", cancel);
    server.join();
    CHECK(answer == "张三");
    CHECK(acted == "我已经操作");
    CHECK(allowed.empty());  // an ack allows
    REQUIRE(asked.size() == 3);
    CHECK(asked[0] == json{{"type", "awaiting_user"}, {"kind", "ask"}, {"text", "谁收消息？"}});
    CHECK(asked[1]["kind"] == "needs_user");
    CHECK(asked[2]["kind"] == "confirm");
}

TEST_CASE("ServeChannel: a stop while it waits ends the wait within the poll interval", "[serve]") {
    Pair p;
    auto cancel = std::make_shared<CancelToken>();
    json seen;
    std::thread server([&] {
        seen = p.server.next();  // the worker waits now; the run is stopped
        cancel->cancel("stopped");
    });
    const double t0 = monotonicSeconds();
    CHECK_THROWS_AS(p.worker->awaitAction("needs_user", "请先登录", *cancel), Cancelled);
    server.join();
    CHECK(seen["type"] == "awaiting_user");
    CHECK(monotonicSeconds() - t0 < 2.0);
    // The deadline stops it the same way.
    CancelToken deadline;
    deadline.setDeadline(monotonicSeconds() + 0.2, "the run's time limit of 0.2 s is reached");
    try {
        p.worker->ask("still there?", deadline);
        FAIL("ask returned without an ack");
    } catch (const Cancelled& e) {
        CHECK(e.timeout);
    }
}

TEST_CASE("ServeChannel: a server that closed its end blocks the wait and never ends the run", "[serve]") {
    Pair p;
    CancelToken cancel;
    json seen;
    std::thread server([&] {
        seen = p.server.next();
        p.server.close();
    });
    try {
        p.worker->awaitAction("click", "请帮忙点击 AC", cancel);
        FAIL("the wait returned without an ack");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kBlocked);
        CHECK_THAT(std::string(e.what()), Catch::Contains("closed the serve channel"));
    }
    server.join();
    CHECK(seen["kind"] == "click");
    CHECK_FALSE(p.worker->connected());
    // Writes after that are dropped, with no SIGPIPE; asking fails closed at once.
    CHECK_FALSE(p.worker->send({{"type", "intent"}, {"text", "x"}}));
    CHECK_THAT(p.worker->confirm("tap \"Pay\"", cancel), Catch::Contains("closed"));
    CHECK_THROWS_AS(p.worker->ask("anyone?", cancel), StepError);
}

TEST_CASE("ServeChannel: writes to a peer that closed before anything was sent fail quietly", "[serve]") {
    Pair p;
    p.server.close();
    p.worker->run(1);  // EPIPE: no signal, no throw
    CHECK_FALSE(p.worker->connected());
    p.worker->end("passed", "");
}

TEST_CASE("ServeChannel: a line that is not JSON while waiting is an error naming it", "[serve]") {
    Pair p;
    CancelToken cancel;
    std::thread server([&] {
        p.server.next();
        p.server.write("{\"type\":\"ping\"}\nnot json at all\n");  // a ping is skipped
    });
    try {
        p.worker->ask("q", cancel);
        FAIL("a garbage line answered");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kBlocked);
        CHECK_THAT(std::string(e.what()), Catch::Contains("expected an ack line"));
        CHECK_THAT(std::string(e.what()), Catch::Contains("not json at all"));
    }
    server.join();
}

TEST_CASE("serveFdFromArg: a number naming an open descriptor", "[serve]") {
    CHECK(serveFdFromArg("2") == 2);
    CHECK_THROWS_WITH(serveFdFromArg("three"), Catch::Contains("expects a file descriptor number"));
    CHECK_THROWS_WITH(serveFdFromArg("-1"), Catch::Contains("got \"-1\""));
    CHECK_THROWS_WITH(serveFdFromArg("999"), Catch::Contains("is not open"));
}

TEST_CASE("Session with a serve channel: committed steps and the person's steps go out as lines", "[serve]") {
    test::ImageSession run("test_serve_channel");
    Session& session = *run.session;
    Pair p;
    session.setUserChannel(p.worker);
    auto ch = p.worker;
    session.setStepObserver([ch](const StepRecord& s) { ch->step(s); });
    session.setIntentObserver([ch](const std::string& t) { ch->intent(t); });

    session.intent("截一张图");
    int64_t frame = session.screenshot("");
    std::vector<json> seen;
    std::thread server([&] {
        for (;;) {
            json j = p.server.next();
            seen.push_back(j);
            if (j["type"] == "awaiting_user") {
                p.server.write("{\"type\":\"ack\",\"text\":\"已登录\"}\n");
                return;
            }
        }
    });
    CHECK(session.awaitUser("needs_user", "请先登录", {{"autopilot_step", 1}}) == "已登录");
    server.join();
    json last = p.server.next();  // the person's step, committed after the ack

    std::vector<StepRecord> rows = run.steps();
    REQUIRE(rows.size() == 2);
    REQUIRE(seen.size() == 3);
    CHECK(seen[0] == json{{"type", "intent"}, {"text", "截一张图"}});
    CHECK(seen[1]["type"] == "step");
    CHECK(seen[1]["step"]["action"] == "screenshot");
    CHECK(seen[1]["step"]["id"] == rows[0].id);
    CHECK(seen[1]["step"]["frame_after"] == frame);
    CHECK(seen[2] == json{{"type", "awaiting_user"}, {"kind", "needs_user"}, {"text", "请先登录"}});
    CHECK(last["type"] == "step");
    CHECK(last["step"]["id"] == rows[1].id);
    CHECK(last["step"]["action"] == "needs_user");
    CHECK(last["step"]["method"] == "person");
    CHECK(last["step"]["status"] == "ok");
    CHECK(last["step"]["params"]["answer"] == "已登录");
    CHECK(last["step"]["params"]["autopilot_step"] == 1);
}

TEST_CASE("ServeChannel: take_over pauses at the next checkpoint; input is performed there; hand_back resumes",
          "[serve]") {
    Pair p;
    CancelToken cancel;
    std::vector<json> events;  // what the input handler was given (on the run's thread)
    p.worker->setInputHandler([&](const json& e) {
        if (e.value("kind", "") == "bad") throw std::invalid_argument("input bad: expected a kind, got \"bad\"");
        events.push_back(e);
        return json{{"id", 41}, {"actor", "user"}};
    });
    CHECK_FALSE(p.worker->checkpoint(cancel));  // nobody took over: no pause
    std::vector<json> seen;
    std::thread server([&] {
        p.server.write("{\"type\":\"take_over\"}\n");
        seen.push_back(p.server.next());  // paused
        p.server.write("{\"type\":\"input\",\"seq\":1,\"event\":{\"kind\":\"click\",\"x\":5,\"y\":6}}\n");
        seen.push_back(p.server.next());  // input_done 1
        p.server.write("{\"type\":\"input\",\"seq\":2,\"event\":{\"kind\":\"bad\"}}\n");
        seen.push_back(p.server.next());  // input_refused 2
        p.server.write("{\"type\":\"hand_back\"}\n");
        seen.push_back(p.server.next());  // resumed
    });
    // The run passes step boundaries until the take_over has come in.
    bool paused = false;
    const double end = monotonicSeconds() + 5;
    while (!paused && monotonicSeconds() < end) {
        paused = p.worker->checkpoint(cancel);
        if (!paused) cancel.sleep(0.01);
    }
    server.join();
    CHECK(paused);
    REQUIRE(seen.size() == 4);
    CHECK(seen[0] == json{{"type", "paused"}});
    CHECK(seen[1]["type"] == "input_done");
    CHECK(seen[1]["seq"] == 1);
    CHECK(seen[1]["step"]["actor"] == "user");
    CHECK(seen[2]["type"] == "input_refused");
    CHECK(seen[2]["seq"] == 2);
    CHECK_THAT(seen[2]["reason"].get<std::string>(), Catch::Contains("expected a kind"));
    CHECK(seen[3] == json{{"type", "resumed"}});
    REQUIRE(events.size() == 1);
    CHECK(events[0]["x"] == 5);
    CHECK_FALSE(p.worker->checkpoint(cancel));  // handed back: no second pause
}

TEST_CASE("ServeChannel: input while the run neither waits nor is paused is refused at once; an ack "
          "ends a pause; a stop line reaches the stop handler", "[serve]") {
    Pair p;
    CancelToken cancel;
    std::string stopped;
    std::atomic<bool> stop_came{false};
    p.worker->setStopHandler([&](const std::string& why) {
        stopped = why;
        stop_came = true;
    });
    p.server.write("{\"type\":\"input\",\"seq\":7,\"event\":{\"kind\":\"click\",\"x\":1,\"y\":1}}\n");
    json r = p.server.next();
    CHECK(r["type"] == "input_refused");
    CHECK(r["seq"] == 7);
    CHECK_THAT(r["reason"].get<std::string>(), Catch::Contains("neither awaits the person nor is taken over"));

    // While it awaits the person (ask), input is performed too.
    int performed = 0;
    p.worker->setInputHandler([&](const json&) {
        ++performed;
        return json{{"id", 1}};
    });
    std::vector<json> seen;
    std::thread server([&] {
        seen.push_back(p.server.next());  // awaiting_user
        p.server.write("{\"type\":\"input\",\"seq\":8,\"event\":{\"kind\":\"text\",\"text\":\"张三\"}}\n");
        seen.push_back(p.server.next());  // input_done
        p.server.write("{\"type\":\"ack\",\"text\":\"好了\"}\n");
        p.server.write("{\"type\":\"take_over\"}\n");
        seen.push_back(p.server.next());  // paused (at the checkpoint below)
        p.server.write("{\"type\":\"ack\"}\n");
        seen.push_back(p.server.next());  // resumed
        p.server.write("{\"type\":\"stop\",\"reason\":\"the server is stopping\"}\n");
    });
    CHECK(p.worker->ask("谁收消息？", cancel) == "好了");
    bool paused = false;
    const double end = monotonicSeconds() + 5;
    while (!paused && monotonicSeconds() < end) {
        paused = p.worker->checkpoint(cancel);
        if (!paused) cancel.sleep(0.01);
    }
    CHECK(paused);
    server.join();
    const double end2 = monotonicSeconds() + 5;
    while (!stop_came && monotonicSeconds() < end2) cancel.sleep(0.01);
    REQUIRE(stop_came);
    CHECK(stopped == "the server is stopping");
    CHECK(performed == 1);
    REQUIRE(seen.size() == 4);
    CHECK(seen[1]["type"] == "input_done");
    CHECK(seen[2]["type"] == "paused");
    CHECK(seen[3]["type"] == "resumed");
}

namespace {

// Sends `line` and then an input line the worker refuses at once (it neither waits nor is
// paused): once the refusal is back, `line` has been read (lines are read in order).
void sendAndSettle(Pair& p, const std::string& line, int seq) {
    REQUIRE(p.server.write(line + "\n{\"type\":\"input\",\"seq\":" + std::to_string(seq) +
                           ",\"event\":{\"kind\":\"click\",\"x\":1,\"y\":1}}\n"));
    json r = p.server.next();
    REQUIRE(r.value("type", "") == "input_refused");
    REQUIRE(r.value("seq", -1) == seq);
}

}  // namespace

TEST_CASE("ServeChannel lease: none given never refuses; a live lease passes; a renewal extends it", "[serve][lease]") {
    Pair p;
    std::atomic<int> stops{0};
    p.worker->setStopHandler([&](const std::string&) { ++stops; });
    CancelToken cancel;
    sendAndSettle(p, R"({"type":"intent_ack"})", 1);  // an unknown line: no lease
    CHECK_NOTHROW(p.worker->checkLease());
    CHECK_FALSE(p.worker->checkpoint(cancel));

    sendAndSettle(p, R"({"type":"lease","seconds":30})", 2);
    CHECK_NOTHROW(p.worker->checkLease());
    // A lease that would have run out, renewed before: the newer one counts.
    sendAndSettle(p, R"({"type":"lease","seconds":0.3})", 3);
    sendAndSettle(p, R"({"type":"lease","seconds":30})", 4);
    const double t0 = monotonicSeconds();
    while (monotonicSeconds() - t0 < 0.4) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_NOTHROW(p.worker->checkLease());
    // A lease line whose seconds are not a number is ignored.
    sendAndSettle(p, R"({"type":"lease","seconds":"0"})", 5);
    CHECK_NOTHROW(p.worker->checkLease());
    CHECK(stops == 0);
}

TEST_CASE("ServeChannel lease: once it runs out every input is refused and the run is stopped once", "[serve][lease]") {
    Pair p;
    std::atomic<int> stops{0};
    std::string why;
    p.worker->setStopHandler([&](const std::string& w) {
        why = w;
        ++stops;
    });
    CancelToken cancel;
    const double sent = monotonicSeconds();
    sendAndSettle(p, R"({"type":"lease","seconds":2})", 1);
    const double given = monotonicSeconds();  // the worker took the line between sent and given
    // Still held just after it came.
    CHECK_NOTHROW(p.worker->checkLease());
    // It runs out: checkLease throws Cancelled 2 s after the line came, not before.
    double refused_at = 0;
    while (monotonicSeconds() - given < 10) {
        try {
            p.worker->checkLease();
        } catch (const Cancelled&) {
            refused_at = monotonicSeconds();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(refused_at > 0);
    CHECK(refused_at - sent >= 2.0 - 0.01);
    CHECK(refused_at - given < 3.0);
    CHECK(stops == 1);
    CHECK(why.find("lost the lease") != std::string::npos);
    // Every later check refuses too (the checkpoint before each input, the person's input), and
    // the stop handler is not called again.
    CHECK_THROWS_AS(p.worker->checkLease(), Cancelled);
    CHECK_THROWS_AS(p.worker->checkpoint(cancel), Cancelled);
    CHECK(stops == 1);
    // A lease that comes after it was lost does not bring the run back.
    sendAndSettle(p, R"({"type":"lease","seconds":30})", 2);
    CHECK_THROWS_AS(p.worker->checkLease(), Cancelled);
}
