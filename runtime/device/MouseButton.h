// Device-neutral mouse buttons and the numbers the run log stores for them.
#pragma once
#include <stdexcept>
#include <string>

namespace eacu {

/// Mouse buttons. Backends map them onto their own button codes.
enum class MouseButton { Left, Middle, Right };

/// The number stored for `button` in a step's params ("button": 1 left, 2 middle, 3 right).
/// These numbers are part of the run-log format: they never change.
inline int buttonNumber(MouseButton button) {
    switch (button) {
    case MouseButton::Left: return 1;
    case MouseButton::Middle: return 2;
    case MouseButton::Right: return 3;
    }
    return 1;
}

/// The button stored as `number` in a step's params (see buttonNumber). Throws
/// std::invalid_argument("mouse button: expected 1 (left), 2 (middle) or 3 (right), got 7").
inline MouseButton buttonFromNumber(int number) {
    switch (number) {
    case 1: return MouseButton::Left;
    case 2: return MouseButton::Middle;
    case 3: return MouseButton::Right;
    default: break;
    }
    throw std::invalid_argument("mouse button: expected 1 (left), 2 (middle) or 3 (right), got " +
                                std::to_string(number));
}

}  // namespace eacu
