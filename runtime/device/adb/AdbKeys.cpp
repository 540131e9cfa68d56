#include "device/adb/AdbKeys.h"

#include <cctype>
#include <map>
#include <stdexcept>

#include "base/Ascii.h"
#include "device/adb/AdbClient.h"

namespace eacu {

namespace {

int namedCode(KeyName n) {
    switch (n) {
    case KeyName::Control: return 113;
    case KeyName::ControlRight: return 114;
    case KeyName::Shift: return 59;
    case KeyName::ShiftRight: return 60;
    case KeyName::Alt: return 57;
    case KeyName::AltRight: return 58;
    case KeyName::Super: return 117;
    case KeyName::SuperRight: return 118;
    case KeyName::Return: return 66;
    case KeyName::Tab: return 61;
    case KeyName::Escape: return 111;
    case KeyName::BackSpace: return 67;
    case KeyName::Delete: return 112;
    case KeyName::Insert: return 124;
    case KeyName::Home: return 3;
    case KeyName::End: return 123;
    case KeyName::PageUp: return 92;
    case KeyName::PageDown: return 93;
    case KeyName::Up: return 19;
    case KeyName::Down: return 20;
    case KeyName::Left: return 21;
    case KeyName::Right: return 22;
    case KeyName::CapsLock: return 115;
    case KeyName::NumLock: return 143;
    case KeyName::ScrollLock: return 116;
    case KeyName::PrintScreen: return 120;
    case KeyName::Pause: return 121;
    case KeyName::Menu: return 82;
    case KeyName::KeypadAdd: return 157;
    case KeyName::KeypadSubtract: return 156;
    case KeyName::KeypadMultiply: return 155;
    case KeyName::KeypadDivide: return 154;
    case KeyName::KeypadDecimal: return 158;
    case KeyName::KeypadEnter: return 160;
    case KeyName::AudioMute: return 164;
    case KeyName::AudioLowerVolume: return 25;
    case KeyName::AudioRaiseVolume: return 24;
    case KeyName::AudioPlay: return 126;
    case KeyName::AudioPause: return 127;
    case KeyName::AudioStop: return 86;
    case KeyName::AudioNext: return 87;
    case KeyName::AudioPrev: return 88;
    default: break;
    }
    if (n >= KeyName::F1 && n <= KeyName::F12) return 131 + (static_cast<int>(n) - static_cast<int>(KeyName::F1));
    if (n >= KeyName::Keypad0 && n <= KeyName::Keypad9)
        return 144 + (static_cast<int>(n) - static_cast<int>(KeyName::Keypad0));
    return -1;
}

int charCode(char32_t c) {
    if (c >= 'a' && c <= 'z') return 29 + static_cast<int>(c - 'a');
    if (c >= 'A' && c <= 'Z') return 29 + static_cast<int>(c - 'A');
    if (c >= '0' && c <= '9') return 7 + static_cast<int>(c - '0');
    static const std::map<char32_t, int> punct = {{' ', 62}, {',', 55}, {'.', 56}, {'-', 69}, {'=', 70},
                                                  {'[', 71}, {']', 72}, {'\\', 73}, {';', 74}, {'\'', 75},
                                                  {'/', 76}, {'@', 77}, {'+', 81}, {'*', 17}, {'#', 18},
                                                  {'`', 68}, {'\n', 66}, {'\t', 61}};
    auto it = punct.find(c);
    return it == punct.end() ? -1 : it->second;
}

}  // namespace

std::string androidKeyCode(const Key& key) {
    switch (key.kind) {
    case Key::Kind::Named: {
        int c = namedCode(key.name);
        if (c < 0)
            throw std::invalid_argument(std::string("unknown key \"") + keyNameText(key.name) +
                                        "\" (Android has no key code for it)");
        return std::to_string(c);
    }
    case Key::Kind::Character: {
        int c = charCode(key.codepoint);
        if (c < 0)
            throw std::invalid_argument("unknown key \"" + describeKey(key) +
                                        "\" (no Android key types it; type text with input() instead)");
        return std::to_string(c);
    }
    case Key::Kind::Platform: break;
    }
    static const std::map<std::string, int> names = {
        {"back", 4},        {"home", 3},         {"app_switch", 187}, {"recents", 187},      {"menu", 82},
        {"power", 26},      {"wakeup", 224},     {"sleep", 223},      {"volume_up", 24},     {"volume_down", 25},
        {"camera", 27},     {"search", 84},      {"notification", 83}, {"move_home", 122},  {"move_end", 123}};
    std::string lower = asciiLower(key.platform_name);
    auto it = names.find(lower);
    if (it != names.end()) return std::to_string(it->second);
    const std::string& p = key.platform_name;
    bool digits = !p.empty() && p.size() <= 4;
    for (char c : p) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) return p;
    if (p.rfind("KEYCODE_", 0) == 0 && p.size() > 8) {
        for (char c : p)
            if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) && c != '_')
                throw std::invalid_argument("unknown key \"" + p + "\" (a KEYCODE_ name is upper case)");
        return p;
    }
    throw std::invalid_argument("unknown key \"" + p +
                                "\" (Android keys: back, home, app_switch, menu, power, volume_up, volume_down, "
                                "search, KEYCODE_... or a key code number)");
}

bool needsShift(const Key& key) {
    return key.kind == Key::Kind::Character && key.codepoint >= 'A' && key.codepoint <= 'Z';
}

bool isTypableAscii(const std::string& utf8) {
    for (unsigned char c : utf8)
        if (!(c >= 0x20 && c < 0x7f) && c != '\n' && c != '\t') return false;
    return true;
}

std::vector<std::string> asciiTextCommands(const std::string& text) {
    std::vector<std::string> out;
    std::string chunk;
    auto flush = [&] {
        if (!chunk.empty()) out.push_back("input text " + shellQuote(chunk));
        chunk.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n' || c == '\t') {
            flush();
            out.push_back(std::string("input keyevent ") + (c == '\n' ? "66" : "61"));
        } else if (c == ' ') {
            chunk += "%s";
        } else if (c >= 0x20 && c < 0x7f) {
            // "%s" typed literally: the % ends one command, the s starts the next.
            // (a space is "%s" and ends in 's', so a chunk ending in '%' ends in a typed %.)
            if (c == 's' && !chunk.empty() && chunk.back() == '%')
                flush();
            chunk += static_cast<char>(c);
        } else {
            throw std::invalid_argument("input text: expected printable ASCII, \\n or \\t, got byte " +
                                        std::to_string(c) + " at " + std::to_string(i));
        }
    }
    flush();
    return out;
}

}  // namespace eacu
