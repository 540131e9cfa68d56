#include "device/agent/AgentConnection.h"

#include "device/PeerJson.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/Device.h"
#include "device/DeviceWait.h"

namespace eacu {

namespace {

// Answers larger than these are refused (a tree of 100000 elements fits the header bound).
constexpr uint32_t kMaxHeader = 64u << 20;
constexpr uint32_t kMaxPayload = 512u << 20;

void putU32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint32_t getU32(const unsigned char* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Waits until fd is ready for `events`, or false when the wait `w` is over (Cancelled when the
// thread's token is cancelled meanwhile).
bool waitReady(int fd, short events, const DeviceWait& w) {
    for (;;) {
        double left = w.slice();
        if (left <= 0) return false;
        pollfd p{fd, events, 0};
        int r = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return true;  // the read or write says what went wrong
    }
}

}  // namespace

AgentConnection::AgentConnection(std::string host, int port, const std::string& token, double timeout)
    : address_(host + ":" + std::to_string(port)), host_(std::move(host)), port_(port), token_(token) {
    open(timeout);
}

void AgentConnection::open(double timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host_.c_str(), std::to_string(port_).c_str(), &hints, &res);
    if (rc != 0) throw DeviceError("agent " + address_ + ": cannot resolve the host: " + gai_strerror(rc));
    DeviceWait wait("agent " + address_, "connect", timeout);
    std::string why = "no address";
    for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        int r = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (r != 0 && errno == EINPROGRESS) {
            bool ready = false;
            try {
                ready = waitReady(fd, POLLOUT, wait);
            } catch (...) {
                ::close(fd);
                ::freeaddrinfo(res);
                throw;
            }
            if (!ready) {
                why = "no connection within " + std::to_string(int(wait.waited())) + " s";
                ::close(fd);
                continue;
            }
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            r = err ? -1 : 0;
            errno = err;
        }
        if (r != 0) {
            why = std::strerror(errno);
            ::close(fd);
            continue;
        }
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fd_ = fd;
    }
    ::freeaddrinfo(res);
    if (fd_ < 0) throw DeviceError("agent " + address_ + ": cannot connect: " + why + " (is eacu-agent.exe running there?)");
    try {
        hello_ = exchange({{"op", "hello"}, {"version", 1}, {"token", token_}}, {}, wait.end() - monotonicSeconds()).header;
        gone_.clear();
    } catch (...) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        throw;
    }
}

AgentConnection::~AgentConnection() { close(); }

void AgentConnection::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void AgentConnection::lost(const std::string& why) {
    gone_ = why;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw DeviceError("agent " + address_ + " is gone: " + why);
}

void AgentConnection::drop(const DeviceStalled& e) {
    gone_ = e.what();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw e;
}

void AgentConnection::sendAll(const char* p, size_t n, const DeviceWait& w) {
    while (n > 0) {
        if (!waitReady(fd_, POLLOUT, w)) drop(w.expired("no progress sending the request"));
        ssize_t k = ::send(fd_, p, n, MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (k <= 0) lost(std::string("sending: ") + std::strerror(errno));
        p += k;
        n -= static_cast<size_t>(k);
    }
}

void AgentConnection::recvAll(char* p, size_t n, const DeviceWait& w) {
    while (n > 0) {
        if (!waitReady(fd_, POLLIN, w)) drop(w.expired());
        ssize_t k = ::recv(fd_, p, n, 0);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (k == 0) lost("the agent closed the connection");
        if (k < 0) lost(std::string("receiving: ") + std::strerror(errno));
        p += k;
        n -= static_cast<size_t>(k);
    }
}

AgentReply AgentConnection::call(nlohmann::json request, const std::string& payload, double timeout) {
    std::lock_guard lock(mu_);
    // A connection given up (a stall, a lost answer) is made again: the agent answers on a
    // new one once it answers at all, and a late answer on the old one cannot be mistaken.
    if (fd_ < 0) open(timeout);
    return exchange(std::move(request), payload, timeout);
}

AgentReply AgentConnection::exchange(nlohmann::json request, const std::string& payload, double timeout) {
    const std::string op = request.value("op", "?");
    const uint64_t id = next_id_++;
    request["id"] = id;
    std::string head = request.dump();
    unsigned char sizes[8];
    putU32(sizes, static_cast<uint32_t>(head.size()));
    putU32(sizes + 4, static_cast<uint32_t>(payload.size()));
    DeviceWait wait("agent " + address_, op, timeout);
    try {
        sendAll(reinterpret_cast<const char*>(sizes), 8, wait);
        sendAll(head.data(), head.size(), wait);
        sendAll(payload.data(), payload.size(), wait);
        recvAll(reinterpret_cast<char*>(sizes), 8, wait);
    } catch (const Cancelled&) {
        close();  // the answer would come on this connection later: it is not waited for
        throw;
    }
    uint32_t hn = getU32(sizes), pn = getU32(sizes + 4);
    if (hn == 0 || hn > kMaxHeader || pn > kMaxPayload)
        lost("an answer of " + std::to_string(hn) + " + " + std::to_string(pn) + " bytes (not this protocol?)");
    AgentReply r;
    std::string text(hn, '\0');
    try {
        recvAll(text.data(), hn, wait);
        // The payload grows as it arrives: a length the agent claims costs memory only once sent.
        for (size_t got = 0; got < pn;) {
            size_t part = std::min<size_t>(pn - got, size_t(1) << 20);
            r.payload.resize(got + part);
            recvAll(r.payload.data() + got, part, wait);
            got += part;
        }
    } catch (const Cancelled&) {
        close();
        throw;
    }
    try {
        r.header = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        lost(std::string("an answer that is not JSON: ") + e.what());
    }
    if (!r.header.is_object()) lost("an answer that is not a JSON object");
    const std::string who = "agent " + address_ + ": " + op;
    if (!peerBool(r.header, "ok", who, false))
        throw DeviceError(who + ": " + peerString(r.header, "error", who, "(no message)"));
    if (!r.header.contains("id") || !r.header["id"].is_number_unsigned() || r.header["id"].get<uint64_t>() != id)
        lost("an answer to request " + (r.header.contains("id") ? r.header["id"].dump() : std::string("(none)")) +
             " where " + std::to_string(id) + " was expected");
    return r;
}

}  // namespace eacu
