// A person's input as a display saw it (XRecord on X11): the raw events a recorder turns into
// script lines (recorder/RecordedActions.h).
#pragma once
#include <cstdint>
#include <string>

#include "geometry/Rect.h"

namespace eacu {

/// One input event.
/// - `kind`: a pointer button pressed or released (`button` 1 left, 2 middle, 3 right, 4/5
///   wheel up/down, 6/7 wheel left/right), the pointer moved, a key pressed or released.
/// - `at`: the pointer's position on the screen, physical pixels.
/// - `keysym`: the key's X11 keysym at the level Shift selects; `key_name` its name
///   ("Return", "a", "Control_L"); `text` the UTF-8 character it types ("" for none: a
///   function or modifier key).
/// - `shift`, `ctrl`, `alt`, `super`: the modifiers held when it happened (the key itself not
///   counted).
/// - `time`: when it happened, on monotonicSeconds()'s clock (the server's timestamp mapped
///   onto it).
struct RecordedInput {
    enum class Kind { ButtonDown, ButtonUp, Motion, KeyDown, KeyUp };
    Kind kind = Kind::Motion;
    int button = 0;
    Point at;
    uint32_t keysym = 0;
    std::string key_name;
    std::string text;
    bool shift = false;
    bool ctrl = false;
    bool alt = false;
    bool super = false;
    double time = 0;
};

}  // namespace eacu
