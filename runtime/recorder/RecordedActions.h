// A person's raw input events (device/RecordedInput.h) as the actions a script writes: taps,
// double taps, long presses, drags, scrolls, typed text and key combinations.
#pragma once
#include <string>
#include <vector>

#include "device/RecordedInput.h"
#include "geometry/Rect.h"

namespace eacu {

/// One action a person did.
/// - `kind`: Tap, DoubleTap, LongPress (`hold` seconds), Drag (`at` to `to`), Scroll (`dx`,
///   `dy` wheel clicks, dy > 0 down, at `at`), Input (`text`, UTF-8: the characters typed in
///   a row), Key (`text`, a combo as `key` takes it: "ctrl+s", "Return", "alt+F4").
/// - `button`: "left", "middle" or "right" for pointer actions.
/// - `at`: where the pointer was pressed (physical pixels); `to`: where a drag ended.
/// - `time`: when it began (the press, the first key; monotonicSeconds()'s clock), `end` when
///   it ended.
struct UserAction {
    enum class Kind { Tap, DoubleTap, LongPress, Drag, Scroll, Input, Key };
    Kind kind = Kind::Tap;
    std::string button = "left";
    Point at;
    Point to;
    double time = 0;
    double end = 0;
    double hold = 0;
    int dx = 0;
    int dy = 0;
    std::string text;
};

/// How events are grouped: a press and release further apart than `drag_px` pixels is a drag,
/// held longer than `long_press_s` seconds a long press; two taps of one button within
/// `double_tap_s` seconds and `double_tap_px` pixels a double tap; wheel clicks within
/// `scroll_gap_s` of each other at one place (`double_tap_px`) one scroll.
struct GroupOptions {
    int drag_px = 8;
    double long_press_s = 0.8;
    double double_tap_s = 0.4;
    int double_tap_px = 6;
    double scroll_gap_s = 1.0;
};

/// The actions of `events` in order. Characters typed without Ctrl, Alt or Super (Shift is
/// part of the character) join one Input; any other key is a Key with the modifiers held
/// ("ctrl+shift+t"); modifier keys alone make nothing. Key releases and motion only end
/// drags. A press whose release is not among the events is left out.
std::vector<UserAction> groupInputs(const std::vector<RecordedInput>& events, const GroupOptions& o = {});

/// "tap", "double_tap", "long_press", "drag", "scroll", "input", "key".
const char* actionName(UserAction::Kind k);

}  // namespace eacu
