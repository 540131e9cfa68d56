// Key combos and UTF-8 text for typing, as scripts and model answers give them: the combo
// parser, the X11 keysym and DOM key mappings of every key it returns, and the strict UTF-8
// decoder that typing goes through. Invariants: a parsed combo is never empty; decoding then
// encoding gives the input back; every decoded code point has a keysym; clipping keeps valid
// UTF-8 valid. Only std::invalid_argument (documented) may be thrown.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "FuzzCommon.h"
#include "base/Utf8.h"
#include "device/KeyCombo.h"
#include "device/Keys.h"
#include "device/chromium/CdpKeys.h"
#include "device/x11/X11Keys.h"

using namespace eacu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string s(reinterpret_cast<const char*>(data), size);
    try {
        std::vector<Key> keys = parseKeyCombo(s);
        if (keys.empty()) fuzz::broken("parseKeyCombo returned no keys");
        for (const Key& k : keys) {
            (void)describeKey(k);
            try {
                (void)keysymFor(k);
            } catch (const std::invalid_argument&) {
            }
            try {
                (void)domKeyFor(k);
                (void)domKeyFor(k, true);
            } catch (const std::invalid_argument&) {
            }
        }
    } catch (const std::invalid_argument&) {
    }
    try {
        std::u32string cps = decodeUtf8(s);
        if (encodeUtf8(cps) != s) fuzz::broken("UTF-8 decode then encode changed the text");
        for (char32_t c : cps) {
            if (keysymForCodepoint(uint32_t(c)) == 0) fuzz::broken("a code point without a keysym");
            try {
                (void)domKeyFor(Key::character(c));
            } catch (const std::invalid_argument&) {
                fuzz::broken("domKeyFor refused a character key");
            }
        }
        std::string clipped = clipUtf8(s, size / 2);
        (void)decodeUtf8(clipped);  // throws (a finding) if clipping broke a character
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).find("UTF-8") == std::string::npos) throw;
    }
    return 0;
}
