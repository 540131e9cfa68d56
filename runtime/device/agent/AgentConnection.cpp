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

#include "base/Clock.h"
#include "device/Device.h"

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

// Waits until fd is ready for `events` or the deadline passes (false then).
bool waitReady(int fd, short events, double deadline) {
    for (;;) {
        double left = deadline - monotonicSeconds();
        if (left <= 0) return false;
        pollfd p{fd, events, 0};
        int r = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return true;  // the read or write says what went wrong
    }
}

}  // namespace

AgentConnection::AgentConnection(std::string host, int port, const std::string& token, double timeout)
    : address_(host + ":" + std::to_string(port)) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) throw DeviceError("agent " + address_ + ": cannot resolve the host: " + gai_strerror(rc));
    double deadline = monotonicSeconds() + timeout;
    std::string why = "no address";
    for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        int r = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (r != 0 && errno == EINPROGRESS) {
            if (!waitReady(fd, POLLOUT, deadline)) {
                why = "no connection within " + std::to_string(int(timeout)) + " s";
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
        hello_ = call({{"op", "hello"}, {"version", 1}, {"token", token}}, {}, timeout).header;
    } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
    }
}

AgentConnection::~AgentConnection() {
    if (fd_ >= 0) ::close(fd_);
}

void AgentConnection::lost(const std::string& why) {
    gone_ = why;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw DeviceError("agent " + address_ + " is gone: " + why);
}

void AgentConnection::sendAll(const char* p, size_t n, double deadline) {
    while (n > 0) {
        if (!waitReady(fd_, POLLOUT, deadline)) lost("no progress sending a request before the deadline");
        ssize_t k = ::send(fd_, p, n, MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (k <= 0) lost(std::string("sending: ") + std::strerror(errno));
        p += k;
        n -= static_cast<size_t>(k);
    }
}

void AgentConnection::recvAll(char* p, size_t n, double deadline) {
    while (n > 0) {
        if (!waitReady(fd_, POLLIN, deadline)) lost("no answer before the deadline");
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
    if (fd_ < 0) throw DeviceError("agent " + address_ + " is gone: " + (gone_.empty() ? "not connected" : gone_));
    const std::string op = request.value("op", "?");
    const uint64_t id = next_id_++;
    request["id"] = id;
    std::string head = request.dump();
    unsigned char sizes[8];
    putU32(sizes, static_cast<uint32_t>(head.size()));
    putU32(sizes + 4, static_cast<uint32_t>(payload.size()));
    double deadline = monotonicSeconds() + timeout;
    sendAll(reinterpret_cast<const char*>(sizes), 8, deadline);
    sendAll(head.data(), head.size(), deadline);
    sendAll(payload.data(), payload.size(), deadline);
    recvAll(reinterpret_cast<char*>(sizes), 8, deadline);
    uint32_t hn = getU32(sizes), pn = getU32(sizes + 4);
    if (hn == 0 || hn > kMaxHeader || pn > kMaxPayload)
        lost("an answer of " + std::to_string(hn) + " + " + std::to_string(pn) + " bytes (not this protocol?)");
    AgentReply r;
    std::string text(hn, '\0');
    recvAll(text.data(), hn, deadline);
    // The payload grows as it arrives: a length the agent claims costs memory only once sent.
    for (size_t got = 0; got < pn;) {
        size_t part = std::min<size_t>(pn - got, size_t(1) << 20);
        r.payload.resize(got + part);
        recvAll(r.payload.data() + got, part, deadline);
        got += part;
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
