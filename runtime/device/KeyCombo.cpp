#include "device/KeyCombo.h"

#include "base/Ascii.h"
#include "base/Utf8.h"

#include <cctype>
#include <stdexcept>
#include <string_view>

namespace eacu {

namespace {

// "f" or "F" followed by digits: a function key name, valid or not (F36 is no key).
bool looksLikeFunctionKey(const std::string& name) {
    if (name.size() < 2 || (name[0] != 'f' && name[0] != 'F')) return false;
    for (size_t i = 1; i < name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    return true;
}

// A name a backend may know (X11 keysym names are letters, digits and '_').
bool platformNameShape(const std::string& name) {
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return !name.empty();
}

// One key name -> key; nullopt if it cannot be a key.
std::optional<Key> keyFromName(const std::string& name) {
    if (auto k = keyNameFromText(name)) return Key::named(*k);
    std::string lower = asciiLower(name);
    if (lower == "space") return Key::character(U' ');
    if (lower == "plus") return Key::character(U'+');

    // One Unicode character (only if the part is valid UTF-8 of exactly one code point).
    try {
        std::u32string cps = decodeUtf8(name);
        if (cps.size() == 1) return Key::character(cps[0]);
    } catch (const std::invalid_argument&) {
        // Not valid UTF-8: fall through to platform names, which are ASCII anyway.
    }

    if (looksLikeFunctionKey(name) || !platformNameShape(name)) return std::nullopt;
    return Key::platform(name);
}

[[noreturn]] void badKey(const std::string& part, const std::string& combo) {
    throw std::invalid_argument("unknown key \"" + part + "\" in key combo \"" + combo +
                                "\" (expected a key name such as ctrl, shift, Return, F5, a "
                                "keysym name or one character)");
}

}  // namespace

std::vector<Key> parseKeyCombo(const std::string& combo) {
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

    std::vector<Key> keys;
    keys.reserve(parts.size());
    for (const std::string& part : parts) {
        if (part.empty())
            throw std::invalid_argument("empty key name in key combo \"" + combo + "\"");
        std::optional<Key> k = keyFromName(part);
        if (!k) badKey(part, combo);
        keys.push_back(std::move(*k));
    }
    return keys;
}

}  // namespace eacu
