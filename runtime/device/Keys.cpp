#include "device/Keys.h"

#include <cctype>
#include <cstdio>

#include "base/Ascii.h"
#include "base/Utf8.h"

namespace eacu {

namespace {

// Canonical names, in KeyName order.
constexpr const char* kCanonical[] = {
    "Control", "Shift", "Alt", "Super", "ControlRight", "ShiftRight", "AltRight", "SuperRight",
    "Return", "Tab", "Escape", "BackSpace", "Delete", "Insert", "Home", "End", "PageUp", "PageDown",
    "Up", "Down", "Left", "Right",
    "CapsLock", "NumLock", "ScrollLock", "PrintScreen", "Pause", "Menu",
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13", "F14",
    "F15", "F16", "F17", "F18", "F19", "F20", "F21", "F22", "F23", "F24", "F25", "F26", "F27",
    "F28", "F29", "F30", "F31", "F32", "F33", "F34", "F35",
    "Keypad0", "Keypad1", "Keypad2", "Keypad3", "Keypad4", "Keypad5", "Keypad6", "Keypad7",
    "Keypad8", "Keypad9",
    "KeypadAdd", "KeypadSubtract", "KeypadMultiply", "KeypadDivide", "KeypadDecimal", "KeypadEnter",
    "AudioMute", "AudioLowerVolume", "AudioRaiseVolume", "AudioPlay", "AudioPause", "AudioStop",
    "AudioNext", "AudioPrev",
};
static_assert(sizeof kCanonical / sizeof *kCanonical == size_t(KeyName::AudioPrev) + 1,
              "one canonical name per KeyName");

struct Spelling {
    const char* lower;  // compared with the lower-cased name
    KeyName key;
};

// Other accepted spellings (lower case): eacu's aliases and the X11 keysym names of these keys.
constexpr Spelling kSpellings[] = {
    {"ctrl", KeyName::Control},         {"control_l", KeyName::Control},
    {"control_r", KeyName::ControlRight}, {"shift_l", KeyName::Shift},
    {"shift_r", KeyName::ShiftRight},   {"alt_l", KeyName::Alt},
    {"alt_r", KeyName::AltRight},       {"win", KeyName::Super},
    {"cmd", KeyName::Super},            {"meta", KeyName::Super},
    {"super_l", KeyName::Super},        {"super_r", KeyName::SuperRight},
    {"enter", KeyName::Return},         {"esc", KeyName::Escape},
    {"del", KeyName::Delete},           {"ins", KeyName::Insert},
    {"pgup", KeyName::PageUp},          {"prior", KeyName::PageUp},
    {"page_up", KeyName::PageUp},       {"pgdn", KeyName::PageDown},
    {"next", KeyName::PageDown},        {"page_down", KeyName::PageDown},
    {"caps_lock", KeyName::CapsLock},   {"num_lock", KeyName::NumLock},
    {"scroll_lock", KeyName::ScrollLock}, {"print", KeyName::PrintScreen},
    {"kp_0", KeyName::Keypad0},         {"kp_1", KeyName::Keypad1},
    {"kp_2", KeyName::Keypad2},         {"kp_3", KeyName::Keypad3},
    {"kp_4", KeyName::Keypad4},         {"kp_5", KeyName::Keypad5},
    {"kp_6", KeyName::Keypad6},         {"kp_7", KeyName::Keypad7},
    {"kp_8", KeyName::Keypad8},         {"kp_9", KeyName::Keypad9},
    {"kp_add", KeyName::KeypadAdd},     {"kp_subtract", KeyName::KeypadSubtract},
    {"kp_multiply", KeyName::KeypadMultiply}, {"kp_divide", KeyName::KeypadDivide},
    {"kp_decimal", KeyName::KeypadDecimal}, {"kp_enter", KeyName::KeypadEnter},
    {"xf86audiomute", KeyName::AudioMute}, {"xf86audiolowervolume", KeyName::AudioLowerVolume},
    {"xf86audioraisevolume", KeyName::AudioRaiseVolume}, {"xf86audioplay", KeyName::AudioPlay},
    {"xf86audiopause", KeyName::AudioPause}, {"xf86audiostop", KeyName::AudioStop},
    {"xf86audionext", KeyName::AudioNext}, {"xf86audioprev", KeyName::AudioPrev},
};

// "f1".."f35" -> F1..F35; nullopt if `lower` is not such a name.
std::optional<KeyName> functionKeyName(const std::string& lower) {
    if (lower.size() < 2 || lower.size() > 3 || lower[0] != 'f' || lower[1] == '0') return std::nullopt;
    int n = 0;
    for (size_t i = 1; i < lower.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(lower[i]))) return std::nullopt;
        n = n * 10 + (lower[i] - '0');
    }
    return functionKey(n);
}

}  // namespace

std::optional<KeyName> functionKey(int number) {
    if (number < 1 || number > 35) return std::nullopt;
    return KeyName(int(KeyName::F1) + number - 1);
}

const char* keyNameText(KeyName name) { return kCanonical[size_t(name)]; }

std::string describeKey(const Key& key) {
    switch (key.kind) {
    case Key::Kind::Named: return keyNameText(key.name);
    case Key::Kind::Platform: return key.platform_name;
    case Key::Kind::Character: break;
    }
    if (key.codepoint < 0x20 || key.codepoint == 0x7f) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "U+%04X", unsigned(key.codepoint));
        return buf;
    }
    return encodeUtf8(std::u32string(1, key.codepoint));
}

std::optional<KeyName> keyNameFromText(std::string_view name) {
    std::string lower = asciiLower(name);
    for (const Spelling& s : kSpellings)
        if (lower == s.lower) return s.key;
    for (size_t i = 0; i < sizeof kCanonical / sizeof *kCanonical; ++i)
        if (lower == asciiLower(kCanonical[i])) return KeyName(i);
    return functionKeyName(lower);
}

}  // namespace eacu
