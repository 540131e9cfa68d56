#include "device/adb/AdbProtocol.h"

#include <cstdio>
#include <memory>

namespace eacu {

namespace {

// `bytes` printable in a message: at most `max` of them, others as \xNN.
std::string shown(std::string_view bytes, size_t max = 40) {
    std::string out;
    for (size_t i = 0; i < bytes.size() && i < max; ++i) {
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return bytes.size() > max ? out + "..." : out;
}

// Reads a sync header (4-byte id, u32 LE length) whose payload is at most kMaxSyncChunk.
std::pair<std::string, uint32_t> syncHeader(const ByteReader& read, const std::string& what) {
    const std::string head = read(8);
    const uint32_t n = readLe32(head.data() + 4);
    if (n > kMaxSyncChunk)
        throw DeviceError(what + ": expected a sync chunk of at most 64 KiB, got \"" + shown(head.substr(0, 4)) +
                          "\" announcing " + std::to_string(n) + " bytes");
    return {head.substr(0, 4), n};
}

}  // namespace

ByteReader bytesReader(std::string bytes, std::string what) {
    auto at = std::make_shared<size_t>(0);
    return [bytes = std::move(bytes), what = std::move(what), at](size_t n) {
        if (bytes.size() - *at < n)
            throw DeviceError(what + ": the answer ended after " + std::to_string(bytes.size() - *at) + " of " +
                              std::to_string(n) + " expected bytes");
        std::string out = bytes.substr(*at, n);
        *at += n;
        return out;
    };
}

int parseHex4(std::string_view s) {
    if (s.size() != 4) return -1;
    int v = 0;
    for (char c : s) {
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

std::string readHostFramed(const ByteReader& read, const std::string& what) {
    const std::string len = read(4);
    const int n = parseHex4(len);
    if (n < 0)
        throw DeviceError(what + ": expected 4 hex digits of length from the adb server, got \"" + shown(len) + "\"");
    return read(static_cast<size_t>(n));
}

void readHostStatus(const ByteReader& read, const std::string& what, const std::string& request) {
    const std::string status = read(4);
    if (status == "OKAY") return;
    if (status == "FAIL") throw DeviceError(what + ": " + request + ": " + shown(readHostFramed(read, what), 400));
    throw DeviceError(what + ": expected OKAY or FAIL from the adb server for \"" + request + "\", got \"" +
                      shown(status) + "\"");
}

std::vector<ShellPacket> takeShellPackets(std::string& buf, const std::string& what) {
    std::vector<ShellPacket> out;
    size_t i = 0;
    while (i + 5 <= buf.size()) {
        const uint32_t n = readLe32(buf.data() + i + 1);
        if (n > kMaxShellPacket)
            throw DeviceError(what + ": expected a shell packet of at most 1 MiB, got one announcing " +
                              std::to_string(n) + " bytes");
        if (i + 5 + n > buf.size()) break;
        out.push_back({buf[i], buf.substr(i + 5, n)});
        i += 5 + n;
    }
    buf.erase(0, i);
    return out;
}

std::string readSyncRecv(const ByteReader& read, const std::string& what) {
    std::string data;
    for (;;) {
        const auto [id, n] = syncHeader(read, what);
        if (id == "DONE") return data;
        if (id == "FAIL") throw DeviceError(what + ": " + shown(read(n), 400));
        if (id != "DATA") throw DeviceError(what + ": expected DATA, DONE or FAIL, got \"" + shown(id) + "\"");
        data += read(n);
    }
}

uint32_t readSyncStat(const ByteReader& read, const std::string& what) {
    const std::string r = read(16);
    if (r.compare(0, 4, "STAT") != 0) throw DeviceError(what + ": expected STAT, got \"" + shown(r.substr(0, 4)) + "\"");
    return readLe32(r.data() + 4);
}

void readSyncDone(const ByteReader& read, const std::string& what) {
    const auto [id, n] = syncHeader(read, what);
    if (id == "OKAY") return;
    if (id == "FAIL") throw DeviceError(what + ": " + shown(read(n), 400));
    throw DeviceError(what + ": expected OKAY, got \"" + shown(id) + "\"");
}

}  // namespace eacu
