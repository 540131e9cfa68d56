// Device-neutral keys (device/Keys.h) as X11 keysyms: the X11 backend's key mapping.
#pragma once
#include <cstdint>

#include "device/Keys.h"

namespace eacu {

/// The keysym of `key`: a named key's keysym (Control -> Control_L, PageUp -> Prior,
/// KeypadAdd -> KP_Add, AudioMute -> XF86AudioMute, ...), a character's keysym
/// (keysymForCodepoint), or a platform name looked up as an X11 keysym name as given, then
/// with its first letter capitalised, then capitalised and otherwise lower-case ("prior" ->
/// Prior). Throws std::invalid_argument(`unknown key "foo" (expected a key name such as ctrl, shift,
/// Return, F5, an X11 keysym name or one character)`) for a name X11 does not know.
uint32_t keysymFor(const Key& key);

/// The keysym of one Unicode code point (Latin-1 maps to itself, others to 0x01000000 + cp,
/// per the X11 protocol's keysym encoding, Appendix A); '\b', '\t', '\n' and '\r', ESC and DEL
/// map to BackSpace, Tab, Return, Escape and Delete.
uint32_t keysymForCodepoint(uint32_t codepoint);

}  // namespace eacu
