// Device-neutral keys (device/Keys.h) as the DOM key events the DevTools protocol dispatches.
#pragma once
#include <string>

#include "device/Keys.h"

namespace eacu {

/// One key as Input.dispatchKeyEvent wants it: `key` (the DOM KeyboardEvent.key, "Enter", "a"),
/// `code` (the physical key, "Enter", "KeyA"; "" when none fits), `vk` (windowsVirtualKeyCode,
/// 0 when none), `text` (what the key types without modifiers, "" for none), `modifier` (the
/// protocol's modifier bit when it is one: Alt 1, Control 2, Meta 4, Shift 8; else 0).
/// Values follow the UI Events KeyboardEvent key/code specifications (w3.org/TR/uievents-key,
/// uievents-code) and Windows' virtual-key codes.
struct DomKey {
    std::string key;
    std::string code;
    int vk = 0;
    std::string text;
    int modifier = 0;
};

/// The DOM key for `key`. With `shift`, a letter gives its upper case. Throws
/// std::invalid_argument for a Key::Platform name (`unknown key "dead_acute" (the chromium device
/// knows named keys and characters)`).
DomKey domKeyFor(const Key& key, bool shift = false);

}  // namespace eacu
