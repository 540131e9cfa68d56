#include "device/adb/AdbConnection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "device/Device.h"

namespace eacu {

int adbServerPort() {
    const char* env = std::getenv("ANDROID_ADB_SERVER_PORT");
    if (env && *env) {
        char* end = nullptr;
        long v = std::strtol(env, &end, 10);
        if (*end == 0 && v > 0 && v < 65536) return static_cast<int>(v);
    }
    return 5037;
}

AdbConnection::AdbConnection(int port, std::string what, double timeout) : what_(std::move(what)), timeout_(timeout) {
    begin("connect");
    // Non-blocking: a connect, a read and a write each wait through waitFor (the request's bound).
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd_ < 0) throw DeviceError(what_ + ": socket: " + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int e = 0;
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        e = errno;
        if (e == EINPROGRESS) {
            try {
                waitFor(POLLOUT);
            } catch (...) {
                if (fd_ >= 0) ::close(fd_);
                fd_ = -1;
                throw;
            }
            socklen_t len = sizeof e;
            ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &e, &len);
        }
    }
    if (e != 0) {
        ::close(fd_);
        fd_ = -1;
        throw DeviceError(what_ + ": no adb server on 127.0.0.1:" + std::to_string(port) + " (" + std::strerror(e) +
                          "; start one with `adb start-server`, or set ANDROID_ADB_SERVER_PORT to its port)");
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

AdbConnection::~AdbConnection() {
    if (fd_ >= 0) ::close(fd_);
}

void AdbConnection::begin(const std::string& operation, double seconds, double least) {
    wait_.emplace(what_, operation, seconds < 0 ? timeout_ : seconds, least);
}

void AdbConnection::stalled(const char* what) {
    // The answer may be half read: the socket cannot serve another request.
    DeviceStalled e = wait_->expired(what);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw e;
}

void AdbConnection::waitFor(short events) {
    if (fd_ < 0) throw DeviceError(what_ + ": the connection was closed after a stall");
    pollfd p{fd_, events, 0};
    for (;;) {
        const double left = wait_->slice();  // Cancelled when the run is stopped
        if (left <= 0) stalled(events == POLLOUT ? "no progress sending" : "no answer");
        int r = ::poll(&p, 1, static_cast<int>(left * 1000) + 1);
        if (r > 0) return;
        if (r < 0 && errno != EINTR) throw DeviceError(what_ + ": poll: " + std::strerror(errno));
    }
}

void AdbConnection::write(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
        waitFor(POLLOUT);
        ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw DeviceError(what_ + ": the connection was closed (" + std::strerror(errno) + ")");
        }
        off += static_cast<size_t>(n);
    }
}

bool AdbConnection::readable(double seconds) {
    if (fd_ < 0) return true;  // the next read says why
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(seconds * 1000));
    if (r < 0 && errno != EINTR) throw DeviceError(what_ + ": poll: " + std::strerror(errno));
    return r > 0;
}

std::string AdbConnection::readSome(size_t max) {
    waitFor(POLLIN);
    std::string buf(max, '\0');
    for (;;) {
        ssize_t n = ::recv(fd_, buf.data(), max, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            waitFor(POLLIN);
            continue;
        }
        if (n < 0) throw DeviceError(what_ + ": the connection was closed (" + std::strerror(errno) + ")");
        buf.resize(static_cast<size_t>(n));
        return buf;
    }
}

std::string AdbConnection::readExact(size_t n) {
    std::string out;
    out.reserve(n);
    while (out.size() < n) {
        std::string part = readSome(std::min<size_t>(n - out.size(), 1 << 20));
        if (part.empty())
            throw DeviceError(what_ + ": the connection ended after " + std::to_string(out.size()) + " of " +
                              std::to_string(n) + " expected bytes (the device went away?)");
        out += part;
    }
    return out;
}

std::string AdbConnection::readAll() {
    std::string out;
    for (;;) {
        std::string part = readSome(1 << 20);
        if (part.empty()) return out;
        out += part;
    }
}

ByteReader AdbConnection::reader() {
    return [this](size_t n) { return readExact(n); };
}

std::string AdbConnection::readFramed() { return readHostFramed(reader(), what_); }

void AdbConnection::request(const std::string& req) {
    if (req.size() > 0xffff) throw DeviceError(what_ + ": a request longer than 65535 bytes: \"" + req.substr(0, 60) + "...\"");
    char head[5];
    std::snprintf(head, sizeof head, "%04zx", req.size());
    write(std::string(head, 4) + req);
    readHostStatus(reader(), what_, req);
}

}  // namespace eacu
