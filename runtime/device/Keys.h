// Device-neutral keys: named keys (modifiers, editing and navigation, F1..F35, keypad, media)
// and Unicode characters. Each backend maps them onto its own key codes (x11/X11Keys.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eacu {

/// Keys that have a name rather than a character. The plain modifier names are the left-hand
/// keys (Control is the left Control key); *Right are the right-hand ones.
enum class KeyName : uint16_t {
    // modifiers
    Control, Shift, Alt, Super, ControlRight, ShiftRight, AltRight, SuperRight,
    // editing and navigation
    Return, Tab, Escape, BackSpace, Delete, Insert, Home, End, PageUp, PageDown,
    Up, Down, Left, Right,
    // locks and system
    CapsLock, NumLock, ScrollLock, PrintScreen, Pause, Menu,
    // function keys
    F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12, F13, F14, F15, F16, F17, F18,
    F19, F20, F21, F22, F23, F24, F25, F26, F27, F28, F29, F30, F31, F32, F33, F34, F35,
    // keypad
    Keypad0, Keypad1, Keypad2, Keypad3, Keypad4, Keypad5, Keypad6, Keypad7, Keypad8, Keypad9,
    KeypadAdd, KeypadSubtract, KeypadMultiply, KeypadDivide, KeypadDecimal, KeypadEnter,
    // media
    AudioMute, AudioLowerVolume, AudioRaiseVolume, AudioPlay, AudioPause, AudioStop,
    AudioNext, AudioPrev,
};

/// One key of a combo, independent of any backend:
/// - Kind::Named: a key of KeyName (`name`);
/// - Kind::Character: the key that types one Unicode code point (`codepoint`; "a", "+", "é");
/// - Kind::Platform: a name only a backend knows (`platform_name`, e.g. an X11 keysym name
///   "dead_acute"). A backend that cannot resolve it throws DeviceError naming it.
struct Key {
    enum class Kind : uint8_t { Named, Character, Platform };
    Kind kind = Kind::Character;
    KeyName name = KeyName::Return;
    char32_t codepoint = 0;
    std::string platform_name;

    static Key named(KeyName n) { return {Kind::Named, n, 0, {}}; }
    static Key character(char32_t cp) { return {Kind::Character, KeyName::Return, cp, {}}; }
    static Key platform(std::string name) { return {Kind::Platform, KeyName::Return, 0, std::move(name)}; }
    bool operator==(const Key& o) const {
        if (kind != o.kind) return false;
        switch (kind) {
        case Kind::Named: return name == o.name;
        case Kind::Character: return codepoint == o.codepoint;
        case Kind::Platform: return platform_name == o.platform_name;
        }
        return false;
    }
    bool operator!=(const Key& o) const { return !(*this == o); }
};

/// F1..F35 as a KeyName; nullopt for a number outside 1..35.
std::optional<KeyName> functionKey(int number);

/// The canonical name of a named key, e.g. "Control", "PageUp", "F5", "KeypadAdd".
const char* keyNameText(KeyName name);

/// A key as text for logs: the named key's canonical name, the character itself (UTF-8;
/// "U+0009" for a control character) or the platform name.
std::string describeKey(const Key& key);

/// The named key for a case-insensitive name: eacu's aliases (ctrl, control, shift, alt,
/// super/win/cmd/meta, enter/return, esc/escape, tab, backspace, del/delete, ins/insert, home,
/// end, pgup/pageup, pgdn/pagedown, up/down/left/right, capslock, printscreen, menu), the
/// canonical names, and the X11 keysym spellings of these keys (Control_L, Prior, Next,
/// Page_Up, Caps_Lock, Scroll_Lock, Num_Lock, Print, KP_Add, KP_0, XF86AudioMute, ...), and
/// f1..f35. Nullopt for any other name (including "space" and "plus": they are characters).
std::optional<KeyName> keyNameFromText(std::string_view name);

}  // namespace eacu
