// The byte formats the adb server and a device answer in (AOSP packages/modules/adb
// protocol.txt, SERVICES.TXT, SYNC.TXT, shell_protocol.h), as functions of what was read: the
// host protocol's status and hex-length frames, shell v2 packets and sync replies. They read
// through a ByteReader so the socket (AdbConnection) and a buffer (the fuzzers, tests) share them;
// every length that comes from the far end is checked before it is used. Header-only.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device/Device.h"

namespace eacu {

/// Reads exactly `n` bytes, or throws DeviceError (the stream ended, a stall).
using ByteReader = std::function<std::string(size_t n)>;

/// A ByteReader over `bytes` (a recorded answer, a fuzzer's input): throws DeviceError("WHAT: the
/// answer ended ...") when fewer than asked are left.
inline ByteReader bytesReader(std::string bytes, std::string what);

/// A u32 stored little-endian at `p` (4 bytes).
inline uint32_t readLe32(const char* p);
/// `v` as 4 little-endian bytes.
inline std::string le32Bytes(uint32_t v);

/// The length a host-protocol frame announces: exactly 4 hex digits (either case) → 0..65535;
/// -1 for anything else (a sign, a space, fewer digits).
inline int parseHex4(std::string_view s);

/// Reads a host-protocol status: returns on "OKAY"; on "FAIL" + hex4 length + reason throws
/// DeviceError("WHAT: REQUEST: REASON"); anything else throws DeviceError saying what came.
inline void readHostStatus(const ByteReader& read, const std::string& what, const std::string& request);
/// Reads a hex4-length-prefixed string (host:devices-l, host:version, a FAIL's reason). Throws
/// DeviceError("WHAT: expected 4 hex digits of length ...") when the length is not that.
inline std::string readHostFramed(const ByteReader& read, const std::string& what);

/// One shell v2 packet: `id` (0 stdin, 1 stdout, 2 stderr, 3 exit status, 4 close stdin, 5
/// window size) and its payload.
struct ShellPacket {
    char id = 0;
    std::string data;
};
/// The longest shell v2 packet taken (adbd sends at most its buffer, 64 KiB less the header;
/// a longer announcement is a broken or hostile peer, not a packet to buffer).
constexpr uint32_t kMaxShellPacket = 1u << 20;
/// Takes the whole packets at the front of `buf` (1-byte id, u32 LE length, payload) and
/// removes them; a cut packet stays for the next bytes. Throws DeviceError("WHAT: a shell
/// packet of N bytes ...") when one announces more than kMaxShellPacket.
inline std::vector<ShellPacket> takeShellPackets(std::string& buf, const std::string& what);

/// The longest sync DATA chunk and FAIL reason taken (SYNC.TXT: SYNC_DATA_MAX, 64 KiB).
constexpr uint32_t kMaxSyncChunk = 64 * 1024;
/// Reads a sync RECV reply: DATA chunks up to DONE, returned joined. Throws DeviceError
/// ("WHAT: REASON") on FAIL, and saying what came on another id or a chunk over kMaxSyncChunk.
inline std::string readSyncRecv(const ByteReader& read, const std::string& what);
/// Reads a sync STAT reply (STAT, mode, size, mtime): the mode. Throws DeviceError on another id.
inline uint32_t readSyncStat(const ByteReader& read, const std::string& what);
/// Reads the reply to a sync SEND: returns on OKAY, throws DeviceError with FAIL's reason or
/// saying what came.
inline void readSyncDone(const ByteReader& read, const std::string& what);

// ---- definitions (inline: the fuzzers and tests take this header alone)

namespace adb_detail {

// `bytes` printable in a message: at most `max` of them, others as \xNN.
inline std::string shown(std::string_view bytes, size_t max = 40) {
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
inline std::pair<std::string, uint32_t> syncHeader(const ByteReader& read, const std::string& what) {
    const std::string head = read(8);
    const uint32_t n = readLe32(head.data() + 4);
    if (n > kMaxSyncChunk)
        throw DeviceError(what + ": expected a sync chunk of at most 64 KiB, got \"" + adb_detail::shown(head.substr(0, 4)) +
                          "\" announcing " + std::to_string(n) + " bytes");
    return {head.substr(0, 4), n};
}

}  // namespace adb_detail

inline ByteReader bytesReader(std::string bytes, std::string what) {
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

inline uint32_t readLe32(const char* p) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

inline std::string le32Bytes(uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
}

inline int parseHex4(std::string_view s) {
    if (s.size() != 4) return -1;
    int v = 0;
    for (char c : s) {
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

inline std::string readHostFramed(const ByteReader& read, const std::string& what) {
    const std::string len = read(4);
    const int n = parseHex4(len);
    if (n < 0)
        throw DeviceError(what + ": expected 4 hex digits of length from the adb server, got \"" + adb_detail::shown(len) + "\"");
    return read(static_cast<size_t>(n));
}

inline void readHostStatus(const ByteReader& read, const std::string& what, const std::string& request) {
    const std::string status = read(4);
    if (status == "OKAY") return;
    if (status == "FAIL") throw DeviceError(what + ": " + request + ": " + adb_detail::shown(readHostFramed(read, what), 400));
    throw DeviceError(what + ": expected OKAY or FAIL from the adb server for \"" + request + "\", got \"" +
                      adb_detail::shown(status) + "\"");
}

inline std::vector<ShellPacket> takeShellPackets(std::string& buf, const std::string& what) {
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

inline std::string readSyncRecv(const ByteReader& read, const std::string& what) {
    std::string data;
    for (;;) {
        const auto [id, n] = adb_detail::syncHeader(read, what);
        if (id == "DONE") return data;
        if (id == "FAIL") throw DeviceError(what + ": " + adb_detail::shown(read(n), 400));
        if (id != "DATA") throw DeviceError(what + ": expected DATA, DONE or FAIL, got \"" + adb_detail::shown(id) + "\"");
        data += read(n);
    }
}

inline uint32_t readSyncStat(const ByteReader& read, const std::string& what) {
    const std::string r = read(16);
    if (r.compare(0, 4, "STAT") != 0) throw DeviceError(what + ": expected STAT, got \"" + adb_detail::shown(r.substr(0, 4)) + "\"");
    return readLe32(r.data() + 4);
}

inline void readSyncDone(const ByteReader& read, const std::string& what) {
    const auto [id, n] = adb_detail::syncHeader(read, what);
    if (id == "OKAY") return;
    if (id == "FAIL") throw DeviceError(what + ": " + adb_detail::shown(read(n), 400));
    throw DeviceError(what + ": expected OKAY, got \"" + adb_detail::shown(id) + "\"");
}

}  // namespace eacu
