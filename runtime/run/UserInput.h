// The person's own input from eacu serve's page (docs/serve-protocol.md §5.2): one event
// ({kind, x, y, ...}) as an InputAction with actor "user", performed by the run's thread
// through the session's one executor and recorded as a step with its frames before and after.
#pragma once
#include <nlohmann/json.hpp>

#include "runlog/RunRecords.h"
#include "step/ActionExecutor.h"

namespace eacu {

class Session;

/// The InputAction for `event`: kind move (x, y) | click | double_click | right_click (x, y) |
/// long_press (x, y, hold: seconds, default 1) | drag (x, y, to_x, to_y) | wheel (dx, dy wheel clicks, dy > 0 down; x, y optional) | key
/// (keys, a combo "ctrl+s") | text (text, UTF-8); x, y are physical pixels of the device.
/// Throws std::invalid_argument saying what was expected and what came (an unknown kind, a
/// missing or non-integer coordinate, a point outside `screen` (w, h), an empty text or combo).
InputAction userInputAction(const nlohmann::json& event, Size screen);

/// Seconds between the press of a click and the double click the page sends when the person's
/// second press follows at the same place: longer than the double-click time of GTK and Qt
/// (0.4 s) and Xt (0.2 s), so the application does not count the three presses as a triple.
inline constexpr double kDoubleClickGap = 0.5;
/// Pixels a double click may be from the click before it and still be its second press.
inline constexpr int kDoubleClickSlop = 4;
/// Seconds after that click's press within which the double click counts as its second press:
/// the click's own step (its effect and settle, up to about 2 s) and the page's 0.5 s.
inline constexpr double kDoubleClickAfter = 3.0;

/// Performs `event` on `session` (userInputAction, then ActionExecutor::perform) and returns
/// the step it recorded (actor "user"). A double click right after the person's click at the
/// same place (within kDoubleClickSlop and kDoubleClickAfter) starts kDoubleClickGap after
/// that click's press and records params.after_click = the click's step idx (`eacu script`
/// writes the two as one double click). Throws what those throw (StepError "invalid" for an
/// unknown key, "device" when the pointer could not be placed).
/// `before`: the screen the person saw (empty: captured just before the input); `await_effect`
/// false: the input returns once sent, without the effect wait and settle (InputAction's
/// wait_effect; eacu studio, whose person watches the live screen).
StepRecord performUserInput(Session& session, const nlohmann::json& event, const Frame& before = {},
                            bool await_effect = true);

}  // namespace eacu
