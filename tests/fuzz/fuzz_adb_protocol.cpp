// What the adb server and a hostile device answer (device/adb/AdbProtocol.h, AdbDevice.h): the
// first byte picks the reader, the rest is the answer. 0: a host-protocol status (OKAY, or FAIL
// with a hex-length reason) then a hex-length frame; 1: shell v2 packets arriving in pieces of
// the second byte's size (1..256); 2: sync replies (STAT, then a RECV's DATA/DONE/FAIL, then a
// SEND's OKAY/FAIL); 3: a raw screencap (its 12- or 16-byte header and pixels).
// Invariants: only DeviceError escapes; shell packets account for every byte they took, none
// over kMaxShellPacket; a decoded screencap's sides and the byte count agree with its header.
#include <cstdint>
#include <string>

#include "FuzzCommon.h"
#include "device/Device.h"
#include "device/adb/AdbProtocol.h"
#include "device/adb/RawScreencap.h"

using namespace eacu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t mode = data[0] % 4;
    std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        if (mode == 0) {
            const ByteReader r = bytesReader(bytes, "adb fuzz");
            readHostStatus(r, "adb fuzz", "host:transport:fuzz");
            if (readHostFramed(r, "adb fuzz").size() > 0xffff) fuzz::broken("a host frame over 65535 bytes");
        } else if (mode == 1) {
            if (bytes.empty()) return 0;
            const size_t piece = static_cast<unsigned char>(bytes[0]) + 1;
            std::string buf;
            size_t taken = 0;
            for (size_t at = 1; at < bytes.size(); at += piece) {
                buf += bytes.substr(at, piece);
                for (const ShellPacket& p : takeShellPackets(buf, "adb fuzz")) {
                    if (p.data.size() > kMaxShellPacket) fuzz::broken("a shell packet over the limit");
                    taken += 5 + p.data.size();
                }
                if (taken + buf.size() != std::min(bytes.size(), at + piece) - 1)
                    fuzz::broken("shell packets lost or made up bytes");
            }
        } else if (mode == 2) {
            const ByteReader r = bytesReader(bytes, "adb fuzz");
            readSyncStat(r, "adb fuzz: stat");
            const std::string file = readSyncRecv(r, "adb fuzz: pull");
            if (file.size() > bytes.size()) fuzz::broken("a pulled file longer than the answer");
            readSyncDone(r, "adb fuzz: push");
        } else {
            const Frame f = decodeRawScreencap(bytes);
            if (!f.empty()) {
                const uint64_t pixels = uint64_t(f.width()) * uint64_t(f.height()) * 4;
                if (bytes.size() != pixels + 12 && bytes.size() != pixels + 16)
                    fuzz::broken("a screencap decoded from a byte count its header does not give");
                if (uint32_t(f.width()) != readLe32(bytes.data()) || uint32_t(f.height()) != readLe32(bytes.data() + 4))
                    fuzz::broken("a screencap decoded at other sides than its header's");
            }
        }
    } catch (const DeviceError&) {
    }
    return 0;
}
