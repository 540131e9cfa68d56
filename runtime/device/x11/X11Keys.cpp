#include "device/x11/X11Keys.h"

// Device.h (OpenCV) before Xlib, whose macros break OpenCV's headers.
#include "device/Device.h"

#include <X11/Xlib.h>
#include <X11/XF86keysym.h>
#include <X11/keysym.h>

#include <cctype>
#include <stdexcept>
#include <string>

namespace eacu {

namespace {

uint32_t namedKeysym(KeyName k) {
    using K = KeyName;
    if (k >= K::F1 && k <= K::F35) return XK_F1 + uint32_t(int(k) - int(K::F1));
    if (k >= K::Keypad0 && k <= K::Keypad9) return XK_KP_0 + uint32_t(int(k) - int(K::Keypad0));
    switch (k) {
    case K::Control: return XK_Control_L;
    case K::Shift: return XK_Shift_L;
    case K::Alt: return XK_Alt_L;
    case K::Super: return XK_Super_L;
    case K::ControlRight: return XK_Control_R;
    case K::ShiftRight: return XK_Shift_R;
    case K::AltRight: return XK_Alt_R;
    case K::SuperRight: return XK_Super_R;
    case K::Return: return XK_Return;
    case K::Tab: return XK_Tab;
    case K::Escape: return XK_Escape;
    case K::BackSpace: return XK_BackSpace;
    case K::Delete: return XK_Delete;
    case K::Insert: return XK_Insert;
    case K::Home: return XK_Home;
    case K::End: return XK_End;
    case K::PageUp: return XK_Prior;
    case K::PageDown: return XK_Next;
    case K::Up: return XK_Up;
    case K::Down: return XK_Down;
    case K::Left: return XK_Left;
    case K::Right: return XK_Right;
    case K::CapsLock: return XK_Caps_Lock;
    case K::NumLock: return XK_Num_Lock;
    case K::ScrollLock: return XK_Scroll_Lock;
    case K::PrintScreen: return XK_Print;
    case K::Pause: return XK_Pause;
    case K::Menu: return XK_Menu;
    case K::KeypadAdd: return XK_KP_Add;
    case K::KeypadSubtract: return XK_KP_Subtract;
    case K::KeypadMultiply: return XK_KP_Multiply;
    case K::KeypadDivide: return XK_KP_Divide;
    case K::KeypadDecimal: return XK_KP_Decimal;
    case K::KeypadEnter: return XK_KP_Enter;
    case K::AudioMute: return XF86XK_AudioMute;
    case K::AudioLowerVolume: return XF86XK_AudioLowerVolume;
    case K::AudioRaiseVolume: return XF86XK_AudioRaiseVolume;
    case K::AudioPlay: return XF86XK_AudioPlay;
    case K::AudioPause: return XF86XK_AudioPause;
    case K::AudioStop: return XF86XK_AudioStop;
    case K::AudioNext: return XF86XK_AudioNext;
    case K::AudioPrev: return XF86XK_AudioPrev;
    default: break;
    }
    return 0;
}

uint32_t stringToKeysym(const std::string& name) {
    KeySym ks = XStringToKeysym(name.c_str());
    return ks == NoSymbol ? 0 : uint32_t(ks);
}

// A keysym name -> keysym, also tried capitalised and capitalised lower-case; 0 if unknown.
uint32_t keysymFromName(const std::string& name) {
    if (name.empty()) return 0;
    if (uint32_t ks = stringToKeysym(name)) return ks;
    std::string cap = name;
    cap[0] = char(std::toupper(static_cast<unsigned char>(cap[0])));
    if (uint32_t ks = stringToKeysym(cap)) return ks;
    std::string capLower = name;
    for (char& c : capLower) c = char(std::tolower(static_cast<unsigned char>(c)));
    capLower[0] = char(std::toupper(static_cast<unsigned char>(capLower[0])));
    if (uint32_t ks = stringToKeysym(capLower)) return ks;
    return 0;
}

}  // namespace

uint32_t keysymFor(const Key& key) {
    switch (key.kind) {
    case Key::Kind::Named:
        if (uint32_t ks = namedKeysym(key.name)) return ks;
        break;
    case Key::Kind::Character: return keysymForCodepoint(key.codepoint);
    case Key::Kind::Platform:
        if (uint32_t ks = keysymFromName(key.platform_name)) return ks;
        break;
    }
    throw std::invalid_argument("unknown key \"" + describeKey(key) +
                      "\" (expected a key name such as ctrl, shift, Return, F5, an X11 keysym "
                      "name or one character)");
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
