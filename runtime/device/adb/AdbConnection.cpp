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

#include "base/Clock.h"
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
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw DeviceError(what_ + ": socket: " + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        int e = errno;
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

uint32_t AdbConnection::le32(const char* p) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

std::string AdbConnection::le32(uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
}

void AdbConnection::waitFor(short events) {
    pollfd p{fd_, events, 0};
    int ms = timeout_ <= 0 ? -1 : static_cast<int>(timeout_ * 1000);
    for (;;) {
        int r = ::poll(&p, 1, ms);
        if (r > 0) return;
        if (r == 0) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.1f", timeout_);
            throw DeviceError(what_ + ": no answer from the adb server within " + buf + " s");
        }
        if (errno != EINTR) throw DeviceError(what_ + ": poll: " + std::strerror(errno));
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

std::string AdbConnection::readFramed() {
    std::string len = readExact(4);
    char* end = nullptr;
    unsigned long n = std::strtoul(len.c_str(), &end, 16);
    if (end != len.c_str() + 4)
        throw DeviceError(what_ + ": expected 4 hex digits of length from the adb server, got \"" + len + "\"");
    return readExact(n);
}

void AdbConnection::request(const std::string& req) {
    char head[5];
    std::snprintf(head, sizeof head, "%04zx", req.size());
    write(std::string(head, 4) + req);
    std::string status = readExact(4);
    if (status == "OKAY") return;
    if (status == "FAIL") throw DeviceError(what_ + ": " + req + ": " + readFramed());
    throw DeviceError(what_ + ": expected OKAY or FAIL from the adb server for \"" + req + "\", got \"" + status + "\"");
}

}  // namespace eacu
