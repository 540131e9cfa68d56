#include "device/chromium/CdpKeys.h"

#include <stdexcept>

#include "base/Utf8.h"

namespace eacu {

namespace {

DomKey named(KeyName n) {
    switch (n) {
    case KeyName::Control: return {"Control", "ControlLeft", 17, "", 2};
    case KeyName::ControlRight: return {"Control", "ControlRight", 17, "", 2};
    case KeyName::Shift: return {"Shift", "ShiftLeft", 16, "", 8};
    case KeyName::ShiftRight: return {"Shift", "ShiftRight", 16, "", 8};
    case KeyName::Alt: return {"Alt", "AltLeft", 18, "", 1};
    case KeyName::AltRight: return {"Alt", "AltRight", 18, "", 1};
    case KeyName::Super: return {"Meta", "MetaLeft", 91, "", 4};
    case KeyName::SuperRight: return {"Meta", "MetaRight", 92, "", 4};
    case KeyName::Return: return {"Enter", "Enter", 13, "\r"};
    case KeyName::Tab: return {"Tab", "Tab", 9, ""};
    case KeyName::Escape: return {"Escape", "Escape", 27, ""};
    case KeyName::BackSpace: return {"Backspace", "Backspace", 8, ""};
    case KeyName::Delete: return {"Delete", "Delete", 46, ""};
    case KeyName::Insert: return {"Insert", "Insert", 45, ""};
    case KeyName::Home: return {"Home", "Home", 36, ""};
    case KeyName::End: return {"End", "End", 35, ""};
    case KeyName::PageUp: return {"PageUp", "PageUp", 33, ""};
    case KeyName::PageDown: return {"PageDown", "PageDown", 34, ""};
    case KeyName::Up: return {"ArrowUp", "ArrowUp", 38, ""};
    case KeyName::Down: return {"ArrowDown", "ArrowDown", 40, ""};
    case KeyName::Left: return {"ArrowLeft", "ArrowLeft", 37, ""};
    case KeyName::Right: return {"ArrowRight", "ArrowRight", 39, ""};
    case KeyName::CapsLock: return {"CapsLock", "CapsLock", 20, ""};
    case KeyName::NumLock: return {"NumLock", "NumLock", 144, ""};
    case KeyName::ScrollLock: return {"ScrollLock", "ScrollLock", 145, ""};
    case KeyName::PrintScreen: return {"PrintScreen", "PrintScreen", 44, ""};
    case KeyName::Pause: return {"Pause", "Pause", 19, ""};
    case KeyName::Menu: return {"ContextMenu", "ContextMenu", 93, ""};
    case KeyName::KeypadAdd: return {"+", "NumpadAdd", 107, "+"};
    case KeyName::KeypadSubtract: return {"-", "NumpadSubtract", 109, "-"};
    case KeyName::KeypadMultiply: return {"*", "NumpadMultiply", 106, "*"};
    case KeyName::KeypadDivide: return {"/", "NumpadDivide", 111, "/"};
    case KeyName::KeypadDecimal: return {".", "NumpadDecimal", 110, "."};
    case KeyName::KeypadEnter: return {"Enter", "NumpadEnter", 13, "\r"};
    case KeyName::AudioMute: return {"AudioVolumeMute", "AudioVolumeMute", 173, ""};
    case KeyName::AudioLowerVolume: return {"AudioVolumeDown", "AudioVolumeDown", 174, ""};
    case KeyName::AudioRaiseVolume: return {"AudioVolumeUp", "AudioVolumeUp", 175, ""};
    case KeyName::AudioPlay: return {"MediaPlayPause", "MediaPlayPause", 179, ""};
    case KeyName::AudioPause: return {"MediaPlayPause", "MediaPlayPause", 179, ""};
    case KeyName::AudioStop: return {"MediaStop", "MediaStop", 178, ""};
    case KeyName::AudioNext: return {"MediaTrackNext", "MediaTrackNext", 176, ""};
    case KeyName::AudioPrev: return {"MediaTrackPrevious", "MediaTrackPrevious", 177, ""};
    default: break;
    }
    int k = int(n);
    if (k >= int(KeyName::F1) && k <= int(KeyName::F35)) {
        int f = k - int(KeyName::F1) + 1;
        std::string name = "F" + std::to_string(f);
        return {name, name, f <= 24 ? 111 + f : 0, ""};
    }
    if (k >= int(KeyName::Keypad0) && k <= int(KeyName::Keypad9)) {
        int d = k - int(KeyName::Keypad0);
        std::string digit(1, char('0' + d));
        return {digit, "Numpad" + digit, 96 + d, digit};
    }
    return {keyNameText(n), "", 0, ""};
}

// US-layout codes and virtual keys of the ASCII punctuation keys (unshifted and shifted).
struct Punct {
    char c;
    const char* code;
    int vk;
};
const Punct kPunct[] = {
    {' ', "Space", 32},         {'-', "Minus", 189},        {'_', "Minus", 189},
    {'=', "Equal", 187},        {'+', "Equal", 187},        {'[', "BracketLeft", 219},
    {'{', "BracketLeft", 219},  {']', "BracketRight", 221}, {'}', "BracketRight", 221},
    {'\\', "Backslash", 220},   {'|', "Backslash", 220},    {';', "Semicolon", 186},
    {':', "Semicolon", 186},    {'\'', "Quote", 222},       {'"', "Quote", 222},
    {',', "Comma", 188},        {'<', "Comma", 188},        {'.', "Period", 190},
    {'>', "Period", 190},       {'/', "Slash", 191},        {'?', "Slash", 191},
    {'`', "Backquote", 192},    {'~', "Backquote", 192},    {'!', "Digit1", 49},
    {'@', "Digit2", 50},        {'#', "Digit3", 51},        {'$', "Digit4", 52},
    {'%', "Digit5", 53},        {'^', "Digit6", 54},        {'&', "Digit7", 55},
    {'*', "Digit8", 56},        {'(', "Digit9", 57},        {')', "Digit0", 48},
};

}  // namespace

DomKey domKeyFor(const Key& key, bool shift) {
    switch (key.kind) {
    case Key::Kind::Named: return named(key.name);
    case Key::Kind::Platform:
        throw std::invalid_argument("unknown key \"" + key.platform_name +
                                    "\" (the chromium device knows named keys and characters)");
    case Key::Kind::Character: break;
    }
    char32_t cp = key.codepoint;
    if (cp == '\n' || cp == '\r') return named(KeyName::Return);
    if (cp == '\t') return named(KeyName::Tab);
    if (cp == 0x1b) return named(KeyName::Escape);
    if (cp == 0x08) return named(KeyName::BackSpace);
    if (cp >= 'a' && cp <= 'z') {
        char up = char(cp - 'a' + 'A');
        std::string t(1, shift ? up : char(cp));
        return {t, std::string("Key") + up, int(up), t};
    }
    if (cp >= 'A' && cp <= 'Z') {
        std::string t(1, char(cp));
        return {t, "Key" + t, int(cp), t};
    }
    if (cp >= '0' && cp <= '9') {
        std::string t(1, char(cp));
        return {t, "Digit" + t, int(cp), t};
    }
    for (const Punct& p : kPunct)
        if (char32_t(p.c) == cp) {
            std::string t(1, p.c);
            return {t, p.code, p.vk, t};
        }
    std::string t = encodeUtf8(std::u32string(1, cp));
    return {t, "", 0, t};
}

}  // namespace eacu
