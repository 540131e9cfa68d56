#include "base/Utf8.h"

#include <stdexcept>

namespace eacu {
namespace {

[[noreturn]] void badUtf8(size_t offset, const char* what) {
    throw std::invalid_argument("invalid UTF-8 at byte " + std::to_string(offset) + ": " + what);
}

}  // namespace

std::u32string decodeUtf8(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    const size_t n = s.size();
    size_t i = 0;
    while (i < n) {
        const auto b0 = static_cast<unsigned char>(s[i]);
        if (b0 < 0x80) {
            out.push_back(b0);
            ++i;
            continue;
        }
        size_t len;
        char32_t cp;
        char32_t min;
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            len = 2, cp = b0 & 0x1f, min = 0x80;
        } else if (b0 >= 0xe0 && b0 <= 0xef) {
            len = 3, cp = b0 & 0x0f, min = 0x800;
        } else if (b0 >= 0xf0 && b0 <= 0xf4) {
            len = 4, cp = b0 & 0x07, min = 0x10000;
        } else if (b0 == 0xc0 || b0 == 0xc1) {
            badUtf8(i, "overlong encoding");
        } else if (b0 >= 0x80 && b0 <= 0xbf) {
            badUtf8(i, "unexpected continuation byte");
        } else {
            badUtf8(i, "invalid lead byte");
        }
        for (size_t k = 1; k < len; ++k) {
            if (i + k >= n) badUtf8(i, "truncated sequence");
            const auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xc0) != 0x80) badUtf8(i + k, "truncated sequence (expected a continuation byte)");
            cp = (cp << 6) | (b & 0x3f);
        }
        if (cp < min) badUtf8(i, "overlong encoding");
        if (cp >= 0xd800 && cp <= 0xdfff) badUtf8(i, "UTF-16 surrogate code point");
        if (cp > 0x10ffff) badUtf8(i, "code point above U+10FFFF");
        out.push_back(cp);
        i += len;
    }
    return out;
}

std::string encodeUtf8(std::u32string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char32_t cp : s) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }
    return out;
}

std::string clipUtf8(const std::string& s, size_t n) {
    if (s.size() <= n) return s;
    size_t cut = n;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return s.substr(0, cut) + "...";
}

}  // namespace eacu
