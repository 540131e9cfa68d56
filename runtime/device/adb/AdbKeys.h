// Android key codes (android.view.KeyEvent KEYCODE_*) for eacu's device-neutral keys, and the
// command lines `input` needs for keys and ASCII text.
#pragma once
#include <string>
#include <vector>

#include "device/Keys.h"

namespace eacu {

/// The KEYCODE for `key`, as `input keyevent` takes it (a number, or a KEYCODE_ name for a
/// Key::Platform "KEYCODE_..."). Named keys map onto the keyboard's keys, except Home, which is
/// Android's HOME (KEYCODE_HOME, 3: leave the app) — "move_home" is the text cursor's Home.
/// Platform names: back, home, app_switch (recent apps), menu, power, wakeup, sleep, volume_up,
/// volume_down, camera, search, notification, move_home, move_end, any "KEYCODE_..." name or a
/// number. Characters: a-z, A-Z (with Shift, see needsShift), 0-9, space and , . - = [ ] \ ; ' /
/// @ + * # `. Throws std::invalid_argument(`unknown key "foo" (...)`) for anything else.
std::string androidKeyCode(const Key& key);
/// True for a character key Android types with Shift held (A-Z): AdbDevice types it as text.
bool needsShift(const Key& key);
/// The `input` command lines that type ASCII text `text` (printable characters, "\n" as ENTER,
/// "\t" as TAB): `input text` with sh quoting and Android's escaping (a space is "%s"; a "%"
/// followed by "s" is typed in two commands so it is not read as a space). Throws
/// std::invalid_argument for a character outside printable ASCII, \n and \t.
std::vector<std::string> asciiTextCommands(const std::string& text);
/// True when `utf8` holds only what asciiTextCommands types.
bool isTypableAscii(const std::string& utf8);

}  // namespace eacu
