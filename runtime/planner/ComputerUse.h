// The computer-tool autopilot loop (seed 003): the model drives Anthropic's `computer` tool (or the
// same action set as an OpenAI-compatible function) with pixel coordinates on a screenshot
// scaled to the display size declared to the tool; each action goes through the run's one
// action path and is answered with a tool_result carrying a new screenshot.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "planner/Autopilot.h"
#include "planner/ModelContext.h"

namespace eacu {

/// Settings: `max_steps` (model calls, default 30), `keep_images` (screenshots kept, default 3),
/// `version` of the Anthropic tool ("computer_20250124" | "computer_20251124"; the latter
/// adds zoom), `provider` (a member of the fallback chain, "" = the configured order), `image`:
/// how the screen is scaled to the display size declared to the tool (default XGA/WXGA/FWXGA by
/// aspect ratio, as Anthropic's computer-use demo scales), `click_check` (seed 001 §4.1: every
/// click is aimed by the model first, ClickAimer; default $EACU_CLICK_CHECK), `click` (its N, r).
struct ComputerUseOptions {
    int max_steps = 30;
    int keep_images = 3;
    std::string version = "computer_20250124";
    std::string provider;
    ModelImagePolicy image = ModelImagePolicy::xga();
    bool click_check = clickCheckFromEnv();
    ClickCheckOptions click;
};

/// What one computer-tool action does on the session, as the tool defines it: screenshot,
/// left_click / right_click / middle_click / double_click / triple_click (at `coordinate`, or
/// where the pointer is), mouse_move, left_click_drag (start_coordinate → coordinate),
/// left_mouse_down / left_mouse_up, type (text), key (xdotool-style combo, e.g. "ctrl+s",
/// "Return"), hold_key (text held for duration seconds), scroll (coordinate,
/// scroll_direction up|down|left|right, scroll_amount wheel clicks), wait (duration seconds),
/// cursor_position, zoom (region [x1, y1, x2, y2]; computer_20251124). Coordinates are pixels
/// of the declared display (the scaled screenshot) and are mapped back to physical pixels
/// through `transform`. Returns the tool result's text ("" when the screenshot says it all) and
/// sets `*zoom` to the region to show instead of the whole screen for zoom. Throws
/// std::invalid_argument for an unknown action or a missing/out-of-range field (the model gets
/// it back as an error result), StepError from the action path (limits, refused, device).
/// With `aimer` (the click check), a click is aimed first (ClickAimer::aim, for `intent`): it is
/// pressed where the check left the pointer, or handed to the person and not pressed (the
/// result text then says the person clicked).
std::string performComputerAction(Session& s, const nlohmann::json& input, const ModelImageTransform& transform,
                                  int64_t parent_step, std::optional<Rect>* zoom, ClickAimer* aimer = nullptr,
                                  const std::string& intent = "");

/// Runs the loop for `task` until the model answers without a tool call (status "done", its
/// text as the message and the run's answer, Session::setAnswer) or max_steps. Before each
/// action its intent (the model's text, else the action) goes to Session::intent. Besides the
/// computer tool the model gets a `needs_user` tool ({text}): the person is asked through the
/// run's user channel (Session::awaitUser, as the Set-of-Marks autopilot's needs_user) and the
/// result is their reply with a new screenshot; nobody to ask (StepError "blocked") ends the
/// loop with status "needs_user". Each turn starts at a step boundary (Session::checkpoint):
/// after a take-over the model is shown the screen again. Its steps are recorded with actor
/// "model". Model calls are kind "autopilot"; the summary "autopilot" step
/// has method "computer". Throws model::ModelError when a call fails, StepError when an action
/// is stopped by the run's limits (after recording the summary).
AutopilotResult runComputerUse(ModelContext& ctx, const std::string& task, const ComputerUseOptions& opts = {});

}  // namespace eacu
