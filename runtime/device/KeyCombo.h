// Parsing of key combos ("ctrl+shift+t", "Return", "F5") into device-neutral keys.
#pragma once
#include <string>
#include <vector>

#include "device/Keys.h"

namespace eacu {

/// Parses a key combo: key names joined by '+', modifiers first, e.g. "ctrl+shift+t",
/// "alt+F4", "Return", "super", "ctrl++" (the plus key). A name is, case-insensitively, one
/// of eacu's key names (keyNameFromText: ctrl/control, alt, shift, super/win/cmd/meta,
/// enter/return, esc/escape, del/delete, pgup/pageup, f1..f35, KP_Add, XF86AudioMute, ...),
/// "space" or "plus", or one Unicode character; any other name made of letters, digits and
/// '_' is kept as a platform key name (Key::Platform, e.g. an X11 keysym name such as
/// "dead_acute"), which the device resolves or refuses with DeviceError when the combo is sent.
/// Returns the keys in press order. Throws std::invalid_argument naming the bad key and the
/// whole combo, e.g. `unknown key "a-b" in key combo "ctrl+a-b" (expected a key name ...)`,
/// for a name that cannot be a key (F36, punctuation, invalid UTF-8) and for an empty combo or
/// key name. "ctrl++" is ctrl and plus; write "plus" where "+" would be ambiguous
/// ("ctrl+plus+x").
std::vector<Key> parseKeyCombo(const std::string& combo);

}  // namespace eacu
