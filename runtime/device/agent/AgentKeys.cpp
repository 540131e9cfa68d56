#include "device/agent/AgentKeys.h"

#include <stdexcept>

namespace eacu {

namespace {

// Windows virtual-key codes (WinUser.h).
int virtualKey(KeyName n) {
    switch (n) {
    case KeyName::Control: return 0xA2;       // VK_LCONTROL
    case KeyName::Shift: return 0xA0;         // VK_LSHIFT
    case KeyName::Alt: return 0xA4;           // VK_LMENU
    case KeyName::Super: return 0x5B;         // VK_LWIN
    case KeyName::ControlRight: return 0xA3;
    case KeyName::ShiftRight: return 0xA1;
    case KeyName::AltRight: return 0xA5;
    case KeyName::SuperRight: return 0x5C;
    case KeyName::Return: return 0x0D;
    case KeyName::Tab: return 0x09;
    case KeyName::Escape: return 0x1B;
    case KeyName::BackSpace: return 0x08;
    case KeyName::Delete: return 0x2E;
    case KeyName::Insert: return 0x2D;
    case KeyName::Home: return 0x24;
    case KeyName::End: return 0x23;
    case KeyName::PageUp: return 0x21;
    case KeyName::PageDown: return 0x22;
    case KeyName::Up: return 0x26;
    case KeyName::Down: return 0x28;
    case KeyName::Left: return 0x25;
    case KeyName::Right: return 0x27;
    case KeyName::CapsLock: return 0x14;
    case KeyName::NumLock: return 0x90;
    case KeyName::ScrollLock: return 0x91;
    case KeyName::PrintScreen: return 0x2C;
    case KeyName::Pause: return 0x13;
    case KeyName::Menu: return 0x5D;
    case KeyName::KeypadAdd: return 0x6B;
    case KeyName::KeypadSubtract: return 0x6D;
    case KeyName::KeypadMultiply: return 0x6A;
    case KeyName::KeypadDivide: return 0x6F;
    case KeyName::KeypadDecimal: return 0x6E;
    case KeyName::KeypadEnter: return 0x0D;
    case KeyName::AudioMute: return 0xAD;
    case KeyName::AudioLowerVolume: return 0xAE;
    case KeyName::AudioRaiseVolume: return 0xAF;
    case KeyName::AudioPlay: return 0xB3;   // VK_MEDIA_PLAY_PAUSE
    case KeyName::AudioPause: return 0xB3;
    case KeyName::AudioStop: return 0xB2;
    case KeyName::AudioNext: return 0xB0;
    case KeyName::AudioPrev: return 0xB1;
    default: break;
    }
    int k = static_cast<int>(n);
    if (k >= int(KeyName::F1) && k <= int(KeyName::F24)) return 0x70 + (k - int(KeyName::F1));
    if (k >= int(KeyName::Keypad0) && k <= int(KeyName::Keypad9)) return 0x60 + (k - int(KeyName::Keypad0));
    return 0;  // F25..F35: Windows has no key for them
}

}  // namespace

nlohmann::json agentKeyFields(const Key& key) {
    switch (key.kind) {
    case Key::Kind::Named: {
        int vk = virtualKey(key.name);
        if (vk == 0)
            throw std::invalid_argument(std::string("unknown key \"") + keyNameText(key.name) +
                                        "\" (Windows has virtual keys up to F24)");
        return {{"vk", vk}};
    }
    case Key::Kind::Character:
        return {{"char", static_cast<uint32_t>(key.codepoint)}};
    case Key::Kind::Platform:
        break;
    }
    throw std::invalid_argument("unknown key \"" + key.platform_name +
                                "\" (the agent device takes named keys and characters)");
}

}  // namespace eacu
