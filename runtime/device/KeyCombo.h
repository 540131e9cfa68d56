// Parsing of key combos ("ctrl+shift+t", "Return", "F5") into X11 keysyms.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace eacu {

/// Parses a key combo: key names joined by '+', modifiers first, e.g. "ctrl+shift+t",
/// "alt+F4", "Return", "super", "ctrl++" (the plus key). Names are case-insensitive aliases
/// (ctrl/control, alt, shift, super/win/cmd/meta, enter/return, esc/escape, del/delete,
/// pgup/pageup, ...), X11 keysym names ("KP_Add", "XF86AudioMute"), or one Unicode character.
/// Returns keysyms in press order. Throws std::invalid_argument naming the unknown key and the
/// whole combo, e.g. `unknown key "foo" in key combo "ctrl+foo" (expected a key name ...)`.
/// "ctrl++" is ctrl and plus; write "plus" where "+" would be ambiguous ("ctrl+plus+x").
std::vector<uint32_t> parseKeyCombo(const std::string& combo);

/// The keysym of one Unicode code point (Latin-1 maps to itself, others to 0x01000000 + cp,
/// per the X11 protocol's keysym encoding, Appendix A).
uint32_t keysymForCodepoint(uint32_t codepoint);

}  // namespace eacu
