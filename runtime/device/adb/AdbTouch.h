// Touches written straight to the phone's touchscreen (its evdev node, with `sendevent`): no
// new Java process per touch, as `input tap` starts (0.3-0.7 s on a phone).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// One absolute axis of an input device as `getevent -p` prints it: its range.
struct TouchAxis {
    int min = 0, max = 0;
};

/// A touchscreen found in `getevent -pl` (parseTouchscreen): its device node and what it
/// reports. `x`, `y`: ABS_MT_POSITION_X/Y (the panel's natural orientation); `tracking`:
/// ABS_MT_TRACKING_ID's range; `pressure`, `touch_major`: ABS_MT_PRESSURE and
/// ABS_MT_TOUCH_MAJOR when it has them; `slot`: whether it has ABS_MT_SLOT; `btn_touch`:
/// whether it has BTN_TOUCH.
struct Touchscreen {
    std::string path;
    std::string name;
    TouchAxis x, y, tracking;
    std::optional<TouchAxis> pressure, touch_major;
    bool slot = false;
    bool btn_touch = false;
};

/// The first direct-touch multi-touch device (protocol type B) in the output of `getevent
/// -pl` (AOSP toolbox getevent.c: "add device N: PATH", `name: "..."`, then each axis as
/// `ABS_MT_POSITION_X : value V, min A, max B, fuzz F, flat L, resolution R`, then `input
/// props:`): one with ABS_MT_POSITION_X, ABS_MT_POSITION_Y and ABS_MT_TRACKING_ID whose input
/// props, when printed, include INPUT_PROP_DIRECT (a touchpad's do not). nullopt when none is
/// there (an emulator without one, or text in another format).
std::optional<Touchscreen> parseTouchscreen(const std::string& getevent_pl);

/// The axis values on `t` of the screen pixel `p` (physical pixels of the screen as it is shown
/// now: `screen` its size, `rotation` 0..3 quarter turns). The axes are those of the panel in its
/// natural orientation; this inverts AOSP TouchInputMapper's mapping (rotation 1: x = raw y,
/// y = natural width - raw x; 2: both flipped; 3: x = natural height - raw y, y = raw x), each
/// natural pixel's centre scaled onto its axis's range (min + (n + 0.5) × (max - min + 1) /
/// pixels), clamped to the range.
Point touchAxes(const Touchscreen& t, Point p, Size screen, int rotation);

/// One shell command line that touches `t` along `axes` (axis values, touchAxes): the finger
/// down at the first point, then each next point after `step_ms` (`sleep`), then up after
/// `step_ms` more when there is one point and `step_ms` > 0 (a hold), else at once. Multi-touch
/// protocol type B (the Linux kernel's Documentation/input/multi-touch-protocol.rst): slot 0,
/// ABS_MT_TRACKING_ID `id` (within its range), X, Y, pressure and touch size at mid-range and
/// BTN_TOUCH 1 when the device has them, SYN_REPORT; each move X, Y, SYN_REPORT; up:
/// ABS_MT_TRACKING_ID -1, BTN_TOUCH 0, SYN_REPORT. One `sendevent PATH TYPE CODE VALUE` per
/// event, joined with `&&` (the first that fails ends the line, its status non-zero).
/// Throws std::invalid_argument when `axes` is empty.
std::string touchCommand(const Touchscreen& t, const std::vector<Point>& axes, int step_ms, int id);

}  // namespace eacu
