// The device agent's answers from a hostile agent (docs/agent-protocol.md): an AgentDevice
// connected to a loopback peer that sends the input (AgentConnection's framing, the hello, every
// answer the device reads: screen, capture with its rle24 pixels, windows, the accessibility
// tree). The first byte picks the form of the rest: odd, the raw bytes of the connection (hostile
// lengths); even, frames built here: lines split by '\n', each "HEADER<TAB>PAYLOAD" with "@ID" in
// the header replaced by the number of the answer (requests are numbered from 1, one at a time),
// each sent as the protocol's two little-endian lengths, the header, then the payload.
// Invariants: only DeviceError escapes.
#include <cstdint>
#include <string>

#include "FuzzCommon.h"
#include "HostilePeer.h"
#include "device/Accessibility.h"
#include "device/Device.h"
#include "device/Windows.h"
#include "device/agent/AgentDevice.h"

using namespace eacu;

namespace {

void putU32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out += char((v >> (8 * i)) & 0xff);
}

std::string frames(const uint8_t* data, size_t size) {
    std::string out, line;
    int n = 0;
    auto flush = [&] {
        std::string header = line, payload;
        if (size_t tab = line.find('\t'); tab != std::string::npos) {
            header = line.substr(0, tab);
            payload = line.substr(tab + 1);
        }
        ++n;
        for (size_t at; (at = header.find("@ID")) != std::string::npos;) header.replace(at, 3, std::to_string(n));
        putU32(out, uint32_t(header.size()));
        putU32(out, uint32_t(payload.size()));
        out += header;
        out += payload;
        line.clear();
    };
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == '\n')
            flush();
        else
            line += char(data[i]);
    }
    flush();
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // Concurrent: the device opens its live frames' connection while it holds its first one
    // (served in turn, each such input waited 2 s: 1 execution/s).
    static fuzz::HostilePeer peer(true);
    if (size < 1) return 0;
    peer.answer((data[0] & 1) ? std::string(reinterpret_cast<const char*>(data + 1), size - 1)
                              : frames(data + 1, size - 1));
    try {
        auto d = AgentDevice::connect("127.0.0.1", peer.port(), "fuzz-token", 1.0);
        auto step = [&](auto&& f) {
            try {
                f();
            } catch (const DeviceError&) {
            }
        };
        step([&] { d->capture(); });
        step([&] { d->captureLive(); });
        step([&] { d->windows().list(); });
        step([&] { d->windows().frontmost(); });
        step([&] { d->accessibility().snapshot(); });
        step([&] { d->move({1, 2}); d->click(MouseButton::Left); });
        step([&] { d->typeText("a张"); });
        step([&] { d->cursor(); });
    } catch (const DeviceError&) {
    }
    peer.join();
    return 0;
}
