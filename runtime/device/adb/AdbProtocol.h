// The byte formats the adb server and a device answer in (AOSP packages/modules/adb
// protocol.txt, SERVICES.TXT, SYNC.TXT, shell_protocol.h), as functions of what was read: the
// host protocol's status and hex-length frames, shell v2 packets and sync replies. They read
// through a ByteReader so the socket (AdbConnection) and a buffer (the fuzzers, tests) share them;
// every length that comes from the far end is checked before it is used.
#pragma once
#include <cstdint>
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
ByteReader bytesReader(std::string bytes, std::string what);

/// A u32 stored little-endian at `p` (4 bytes).
inline uint32_t readLe32(const char* p) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}
/// `v` as 4 little-endian bytes.
inline std::string le32Bytes(uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
}

/// The length a host-protocol frame announces: exactly 4 hex digits (either case) → 0..65535;
/// -1 for anything else (a sign, a space, fewer digits).
int parseHex4(std::string_view s);

/// Reads a host-protocol status: returns on "OKAY"; on "FAIL" + hex4 length + reason throws
/// DeviceError("WHAT: REQUEST: REASON"); anything else throws DeviceError saying what came.
void readHostStatus(const ByteReader& read, const std::string& what, const std::string& request);
/// Reads a hex4-length-prefixed string (host:devices-l, host:version, a FAIL's reason). Throws
/// DeviceError("WHAT: expected 4 hex digits of length ...") when the length is not that.
std::string readHostFramed(const ByteReader& read, const std::string& what);

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
std::vector<ShellPacket> takeShellPackets(std::string& buf, const std::string& what);

/// The longest sync DATA chunk and FAIL reason taken (SYNC.TXT: SYNC_DATA_MAX, 64 KiB).
constexpr uint32_t kMaxSyncChunk = 64 * 1024;
/// Reads a sync RECV reply: DATA chunks up to DONE, returned joined. Throws DeviceError
/// ("WHAT: REASON") on FAIL, and saying what came on another id or a chunk over kMaxSyncChunk.
std::string readSyncRecv(const ByteReader& read, const std::string& what);
/// Reads a sync STAT reply (STAT, mode, size, mtime): the mode. Throws DeviceError on another id.
uint32_t readSyncStat(const ByteReader& read, const std::string& what);
/// Reads the reply to a sync SEND: returns on OKAY, throws DeviceError with FAIL's reason or
/// saying what came.
void readSyncDone(const ByteReader& read, const std::string& what);

}  // namespace eacu
