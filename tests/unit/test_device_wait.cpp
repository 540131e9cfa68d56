// The bound on device waits (base/IoDeadline, device/DeviceWait): nested scopes, the floor, the
// run's token; and an AgentConnection to a loopback agent that stops answering: the call ends at
// the thread's bound with a DeviceStalled naming the agent, the operation and the time, and the
// next call connects again and is answered.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "base/IoDeadline.h"
#include "device/DeviceWait.h"
#include "device/agent/AgentConnection.h"

using namespace eacu;
using json = nlohmann::json;

namespace {

// A loopback agent: answers hello and "ping"; leaves "stall" unanswered (its connection open).
class FakeAgent {
public:
    FakeAgent() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd_, 8) == 0);
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { loop(); });
    }
    ~FakeAgent() {
        stop_ = true;
        thread_.join();
        for (int c : conns_) ::close(c);
        ::close(fd_);
    }
    int port() const { return port_; }
    int hellos() const { return hellos_; }

private:
    static bool readAll(int c, char* p, size_t n) {
        while (n > 0) {
            ssize_t k = ::recv(c, p, n, 0);
            if (k <= 0) return false;
            p += k;
            n -= size_t(k);
        }
        return true;
    }
    void answer(int c, const json& h) {
        std::string head = h.dump();
        unsigned char sizes[8] = {};
        for (int i = 0; i < 4; ++i) sizes[i] = static_cast<unsigned char>(head.size() >> (8 * i));
        ::send(c, sizes, 8, MSG_NOSIGNAL);
        ::send(c, head.data(), head.size(), MSG_NOSIGNAL);
    }
    void loop() {
        while (!stop_) {
            std::vector<pollfd> ps{{fd_, POLLIN, 0}};
            for (int c : conns_) ps.push_back({c, POLLIN, 0});
            if (::poll(ps.data(), ps.size(), 20) <= 0) continue;
            if (ps[0].revents & POLLIN) conns_.push_back(::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC));
            for (size_t i = 1; i < ps.size(); ++i) {
                if (!(ps[i].revents & (POLLIN | POLLHUP))) continue;
                int c = ps[i].fd;
                unsigned char sizes[8];
                if (!readAll(c, reinterpret_cast<char*>(sizes), 8)) {
                    ::close(c);
                    conns_.erase(std::find(conns_.begin(), conns_.end(), c));
                    break;
                }
                uint32_t hn = sizes[0] | sizes[1] << 8 | sizes[2] << 16 | uint32_t(sizes[3]) << 24;
                uint32_t pn = sizes[4] | sizes[5] << 8 | sizes[6] << 16 | uint32_t(sizes[7]) << 24;
                std::string head(hn, '\0'), payload(pn, '\0');
                readAll(c, head.data(), hn);
                readAll(c, payload.data(), pn);
                json r = json::parse(head);
                if (r["op"] == "hello") ++hellos_;
                if (r["op"] != "stall") answer(c, {{"ok", true}, {"id", r["id"]}, {"os", "fake"}});
            }
        }
    }

    int fd_ = -1;
    int port_ = 0;
    std::vector<int> conns_;
    std::atomic<bool> stop_{false};
    std::atomic<int> hellos_{0};
    std::thread thread_;
};

}  // namespace

TEST_CASE("io bound: nested scopes take the earlier end, with its name, and restore", "[device_wait]") {
    CHECK(currentIoBound().at == 0);
    const double now = monotonicSeconds();
    {
        IoDeadlineScope outer(now + 10, nullptr, "outer");
        std::string by;
        CHECK(ioWaitEnd(30, &by) == Approx(now + 10).margin(0.05));
        CHECK(by == "outer");
        {
            IoDeadlineScope inner(now + 5, nullptr, "inner");
            CHECK(ioWaitEnd(30, &by) == Approx(now + 5).margin(0.05));
            CHECK(by == "inner");
            IoDeadlineScope later(now + 20, nullptr, "later");  // later than the bound in force
            CHECK(ioWaitEnd(30, &by) == Approx(now + 5).margin(0.05));
            CHECK(by == "inner");
        }
        CHECK(ioWaitEnd(3, &by) == Approx(now + 3).margin(0.05));  // its own timeout is sooner
        CHECK(by.empty());
        // A bound already passed still gives a wait the floor.
        IoDeadlineScope past(now - 1, nullptr, "past");
        CHECK(ioWaitEnd(30, &by) == Approx(monotonicSeconds() + kIoWaitFloor).margin(0.05));
        // An operation whose measured cost is longer gets that least time (a raw screencap over
        // Wi-Fi adb: twice its 2.3 s); never less than the floor, never past its own timeout.
        CHECK(ioWaitEnd(30, &by, 4.6) == Approx(monotonicSeconds() + 4.6).margin(0.05));
        CHECK(by == "past");
        CHECK(ioWaitEnd(30, &by, 0.5) == Approx(monotonicSeconds() + kIoWaitFloor).margin(0.05));
        CHECK(ioWaitEnd(3, &by, 4.6) == Approx(monotonicSeconds() + 3).margin(0.05));
        CHECK(by.empty());
        DeviceWait w("dev", "screencap", 30, 4.6);
        CHECK(w.end() == Approx(monotonicSeconds() + 4.6).margin(0.05));
        CHECK(w.bounded());
    }
    CHECK(currentIoBound().at == 0);
}

TEST_CASE("io bound: the run's token ends a wait (cancel, and its deadline without the floor)", "[device_wait]") {
    CancelToken token;
    IoDeadlineScope scope(0, &token, "");
    DeviceWait w("dev", "op", 30);
    CHECK(w.slice() > 0);
    token.cancel("stopped by the user");
    CHECK_THROWS_AS(w.slice(), Cancelled);
    CancelToken limited;
    limited.setDeadline(monotonicSeconds() + 0.2, "the run's time limit of 1 s is reached");
    IoDeadlineScope run(0, &limited, "");
    std::string by;
    CHECK(ioWaitEnd(30, &by) < monotonicSeconds() + 0.3);
    CHECK(by == "the run's time limit");
}

TEST_CASE("io bound: a cleanup scope has its own bound, whatever the outer scopes and token say", "[device_wait]") {
    CancelToken limited;
    limited.setDeadline(monotonicSeconds() - 1, "the run's time limit of 1 s is used up");  // passed
    IoDeadlineScope run(monotonicSeconds() + 0.1, &limited, "the step's deadline");
    std::string by;
    CHECK(ioWaitEnd(30, &by) < monotonicSeconds());
    {
        IoDeadlineScope own = IoDeadlineScope::cleanup(5, "the close's bound of 5 s");
        const double end = ioWaitEnd(30, &by);
        CHECK(end > monotonicSeconds() + 4);
        CHECK(end < monotonicSeconds() + 5.1);
        CHECK(by == "the close's bound of 5 s");
        CHECK(currentIoBound().token == nullptr);
    }
    CHECK(currentIoBound().token == &limited);  // the outer bound again
    CHECK(currentIoBound().what == "the step's deadline");
}

TEST_CASE("io bound: a pending signal (serve's stop) cancels waits, but not a cleanup scope's", "[device_wait]") {
    cancelAllFromSignal(SIGTERM);
    CHECK_THROWS_AS(ioCheckCancel(), Cancelled);
    {
        IoDeadlineScope own = IoDeadlineScope::cleanup(5, "the page's close, bound of 5 s");
        CHECK_NOTHROW(ioCheckCancel());
        DeviceWait wait("chromium", "Target.closeTarget", 5);
        CHECK(wait.slice() > 0);  // a close is still waited for
    }
    CHECK_THROWS_AS(ioCheckCancel(), Cancelled);
    clearPendingSignal();
    CHECK_NOTHROW(ioCheckCancel());
}

TEST_CASE("agent connection: a stalled agent ends the call at the step's bound, the next call reconnects",
          "[device_wait]") {
    FakeAgent agent;
    AgentConnection conn("127.0.0.1", agent.port(), "", 5);
    CHECK(conn.call({{"op", "ping"}}).header["ok"] == true);
    CHECK(agent.hellos() == 1);
    CancelToken token;
    double t0 = 0, took = 0;
    std::string msg;
    {
        auto io = IoDeadlineScope::in(2.5, &token, "the step's deadline, 1.5 s + 1 s");
        t0 = monotonicSeconds();
        try {
            conn.call({{"op", "stall"}}, {}, 20);
        } catch (const DeviceStalled& e) {
            msg = e.what();
        }
        took = monotonicSeconds() - t0;
    }
    INFO(msg);
    CHECK(took == Approx(2.5).margin(0.3));
    CHECK(msg.find("agent 127.0.0.1:" + std::to_string(agent.port()) + ": stall: no answer within 2.") != std::string::npos);
    CHECK(msg.find("(the step's deadline, 1.5 s + 1 s)") != std::string::npos);
    // The stalled connection is given up; the next call connects again and is answered.
    CHECK(conn.call({{"op", "ping"}}).header["ok"] == true);
    CHECK(agent.hellos() == 2);
}
