// A hostile peer on loopback for the fuzzers of eacu's network clients (Redis, the device
// agent): it answers the next connection with the fuzzer's bytes, whatever the client asks.
#pragma once
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "FuzzCommon.h"

namespace eacu::fuzz {

/// Listens on 127.0.0.1 (a free port); answer() accepts connections on a thread until join():
/// each it writes `bytes` (all of them, as the client reads), shuts its sending side (the client
/// reads end of file after them), drains what the client sends until it closes or 2 s pass, and
/// closes (a connection made again gets the same bytes; with none for 2 s the accepting thread
/// ends). With `concurrent`, each connection is served on a thread of its own, for a client that
/// opens a second connection while it holds the first (the agent's live frames): served one
/// after the other, the second would wait out the first one's 2 s drain. (Without it, one thread
/// serves them in turn: a thread per connection halves fuzz_redis_reply's speed under ASan.)
/// The client under test runs meanwhile on the fuzzer's thread; join() stops and waits for the
/// server's side.
class HostilePeer {
public:
    explicit HostilePeer(bool concurrent = false) : concurrent_(concurrent) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
            broken("cannot listen on loopback");
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) broken("cannot make the peer's wake pipe");
    }
    int port() const { return port_; }

    void answer(std::string bytes) {
        stop_ = false;
        thread_ = std::thread([this, bytes = std::move(bytes)] {
            // Every connection until join() gets the same bytes (a client that connects again
            // after a failure, as the agent's does, meets the same peer).
            std::vector<std::thread> conns;
            auto idle_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            while (!stop_ && std::chrono::steady_clock::now() < idle_until) {
                // join() writes to the wake pipe: the thread ends at once, not at a poll's timeout
                // (waiting for a 20 ms poll cost fuzz_redis_reply 30 % of its executions).
                pollfd p[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
                if (::poll(p, 2, 100) <= 0 || !(p[0].revents & POLLIN)) continue;
                int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0) continue;
                if (concurrent_) conns.emplace_back(serve, c, bytes);
                else serve(c, bytes);
                idle_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            }
            for (std::thread& t : conns) t.join();
        });
    }
    void join() {
        stop_ = true;
        if (::write(wake_[1], "x", 1) < 0) {}  // full pipe: already awake
        if (thread_.joinable()) thread_.join();
        char drain[64];
        while (::read(wake_[0], drain, sizeof drain) > 0) {}
    }

private:
    // Writes `bytes` to connection `c` as the client reads, shuts its sending side, drains what
    // the client sends until it closes or 2 s pass, and closes it.
    static void serve(int c, const std::string& bytes) {
        size_t off = 0;
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        char sink[65536];
        bool client_open = true;
        if (bytes.empty()) ::shutdown(c, SHUT_WR);  // nothing to write: end of file at once
        while (std::chrono::steady_clock::now() < until && (off < bytes.size() || client_open)) {
            pollfd q{c, short(POLLIN | (off < bytes.size() ? POLLOUT : 0)), 0};
            if (::poll(&q, 1, 100) <= 0) continue;
            if (q.revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t n = ::recv(c, sink, sizeof sink, MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) client_open = false;
                if (!client_open && off < bytes.size()) break;  // it hung up before reading all
            }
            if ((q.revents & POLLOUT) && off < bytes.size()) {
                ssize_t n = ::send(c, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n > 0) off += size_t(n);
                if (off == bytes.size()) ::shutdown(c, SHUT_WR);
            }
        }
        ::close(c);
    }

    const bool concurrent_;
    std::atomic<bool> stop_{false};
    int fd_ = -1;
    int port_ = 0;
    int wake_[2] = {-1, -1};
    std::thread thread_;
};

}  // namespace eacu::fuzz
