// The person's own input from eacu serve's page (docs/serve-protocol.md §5.2): one event
// ({kind, x, y, ...}) as an InputAction with actor "user", performed by the run's thread
// through the session's one executor and recorded as a step with its frames before and after.
#pragma once
#include <nlohmann/json.hpp>

#include "record/RunRecords.h"
#include "task/ActionExecutor.h"

namespace eacu {

class Session;

/// The InputAction for `event`: kind move (x, y) | click | double_click | right_click (x, y) |
/// drag (x, y, to_x, to_y) | wheel (dx, dy wheel clicks, dy > 0 down; x, y optional) | key
/// (keys, a combo "ctrl+s") | text (text, UTF-8); x, y are physical pixels of the device.
/// Throws std::invalid_argument saying what was expected and what came (an unknown kind, a
/// missing or non-integer coordinate, a point outside `screen` (w, h), an empty text or combo).
InputAction userInputAction(const nlohmann::json& event, Size screen);

/// Performs `event` on `session` (userInputAction, then ActionExecutor::perform) and returns
/// the step it recorded (actor "user"). Throws what those throw (StepError "invalid" for an
/// unknown key, "device" when the pointer could not be placed).
StepRecord performUserInput(Session& session, const nlohmann::json& event);

}  // namespace eacu
