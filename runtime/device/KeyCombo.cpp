#include "device/KeyCombo.h"

#include "base/Utf8.h"

#include <X11/Xlib.h>
#include <X11/keysym.h>

#include <cctype>
#include <stdexcept>
#include <string_view>

namespace eacu {

namespace {

std::string toLower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

struct Alias {
    const char* name;
    uint32_t keysym;
};

// Case-insensitive aliases for the keys people name most often.
constexpr Alias kAliases[] = {
    {"ctrl", XK_Control_L},   {"control", XK_Control_L}, {"shift", XK_Shift_L},
    {"alt", XK_Alt_L},        {"super", XK_Super_L},     {"win", XK_Super_L},
    {"cmd", XK_Super_L},      {"meta", XK_Super_L},      {"enter", XK_Return},
    {"return", XK_Return},    {"esc", XK_Escape},        {"escape", XK_Escape},
    {"tab", XK_Tab},          {"space", XK_space},       {"backspace", XK_BackSpace},
    {"del", XK_Delete},       {"delete", XK_Delete},     {"ins", XK_Insert},
    {"insert", XK_Insert},    {"home", XK_Home},         {"end", XK_End},
    {"pgup", XK_Prior},       {"pageup", XK_Prior},      {"pgdn", XK_Next},
    {"pagedown", XK_Next},    {"up", XK_Up},             {"down", XK_Down},
    {"left", XK_Left},        {"right", XK_Right},       {"capslock", XK_Caps_Lock},
    {"printscreen", XK_Print}, {"menu", XK_Menu},        {"plus", XK_plus},
};

// "f1".."f35" (any case) -> XK_F1..XK_F35; 0 if `lower` is not such a name.
uint32_t functionKey(const std::string& lower) {
    if (lower.size() < 2 || lower.size() > 3 || lower[0] != 'f') return 0;
    int n = 0;
    for (size_t i = 1; i < lower.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(lower[i]))) return 0;
        n = n * 10 + (lower[i] - '0');
    }
    if (lower[1] == '0' || n < 1 || n > 35) return 0;
    return XK_F1 + uint32_t(n - 1);
}

uint32_t stringToKeysym(const std::string& name) {
    KeySym ks = XStringToKeysym(name.c_str());
    return ks == NoSymbol ? 0 : uint32_t(ks);
}

// One key name -> keysym; 0 if unknown.
uint32_t keyNameToKeysym(const std::string& name) {
    std::string lower = toLower(name);
    for (const Alias& a : kAliases)
        if (lower == a.name) return a.keysym;
    if (uint32_t f = functionKey(lower)) return f;

    // One Unicode character (only if the part is valid UTF-8 of exactly one code point).
    try {
        std::u32string cps = decodeUtf8(name);
        if (cps.size() == 1) return keysymForCodepoint(cps[0]);
    } catch (const std::invalid_argument&) {
        // Not valid UTF-8: fall through to keysym names, which are ASCII anyway.
    }

    if (uint32_t ks = stringToKeysym(name)) return ks;
    std::string cap = name;
    cap[0] = char(std::toupper(static_cast<unsigned char>(cap[0])));
    if (uint32_t ks = stringToKeysym(cap)) return ks;
    std::string capLower = lower;
    capLower[0] = char(std::toupper(static_cast<unsigned char>(capLower[0])));
    if (uint32_t ks = stringToKeysym(capLower)) return ks;
    return 0;
}

[[noreturn]] void badKey(const std::string& part, const std::string& combo) {
    throw std::invalid_argument("unknown key \"" + part + "\" in key combo \"" + combo +
                                "\" (expected a key name such as ctrl, shift, Return, F5, a "
                                "keysym name or one character)");
}


}  // namespace

std::vector<uint32_t> parseKeyCombo(const std::string& combo) {
    if (combo.empty())
        throw std::invalid_argument("empty key combo (expected e.g. \"ctrl+s\" or \"Return\")");
    std::vector<std::string> parts;
    size_t i = 0;
    const size_t n = combo.size();
    while (true) {
        std::string part;
        if (combo[i] == '+') {
            // A part that starts with '+' is the plus key itself: "ctrl++", "+".
            part = "+";
            ++i;
        } else {
            size_t end = combo.find('+', i);
            if (end == std::string::npos) end = n;
            part = combo.substr(i, end - i);
            i = end;
        }
        parts.push_back(part);
        if (i == n) break;
        if (combo[i] != '+') {
            // Only possible after a '+' part, e.g. "ctrl++x": ambiguous, refuse it.
            throw std::invalid_argument("cannot parse key combo \"" + combo + "\" at byte " +
                                        std::to_string(i) + " (use \"plus\" for the + key)");
        }
        ++i;  // the separator
        if (i == n)
            throw std::invalid_argument("empty key name at the end of key combo \"" + combo +
                                        "\"");
    }

    std::vector<uint32_t> keysyms;
    keysyms.reserve(parts.size());
    for (const std::string& part : parts) {
        if (part.empty())
            throw std::invalid_argument("empty key name in key combo \"" + combo + "\"");
        uint32_t ks = keyNameToKeysym(part);
        if (ks == 0) badKey(part, combo);
        keysyms.push_back(ks);
    }
    return keysyms;
}

uint32_t keysymForCodepoint(uint32_t cp) {
    switch (cp) {
        case '\b': return XK_BackSpace;
        case '\t': return XK_Tab;
        case '\n':
        case '\r': return XK_Return;
        case 0x1b: return XK_Escape;
        case 0x7f: return XK_Delete;
        default: break;
    }
    // Printable Latin-1 keysyms equal their code points (X11 protocol, Appendix A).
    if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
    return 0x01000000u + cp;
}


}  // namespace eacu
