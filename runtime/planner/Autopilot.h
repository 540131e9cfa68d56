// The Set-of-Marks autopilot loop (seed 000): capture → Set-of-Marks → model → one JSON action →
// execute → effect check → history line → ... until done, fail, needs_user or the step limit.
// Also the execution of one model action as a recorded step, shared with grounding and plans.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Action.h"
#include "planner/ClickAim.h"
#include "planner/ModelContext.h"
#include "step/Session.h"

namespace eacu {

/// What executing one model action did: the step id written (0 = none), the settle result
/// (`changed` = any pixel changed), and `did`, the history phrase ("点击了 [2] asset \"=\"").
struct ActionOutcome {
    int64_t step_id = 0;
    Settle settle;
    bool changed = false;
    std::string did;
};

/// Executes `a` (already parsed and bounds-checked) through the session's ActionExecutor (the
/// run's limits, the risky-step confirm for labels or text that look risky, the pointer
/// read-back, the settle; no jittered retries: the model sees the screen again) as recorded steps:
/// click → "tap" (button/count params as Session::tap writes them, so `eacu replay --mode
/// actions` replays it), double_click → "double_tap", right_click → "tap" with button 3,
/// type → a tap on its element (if any) then "input", hotkey/press → "key", scroll →
/// "scroll", wait → a cancellable sleep (no step). Each step has method "model", the element's
/// box, the input point, `before` as its before-frame (`before_id` in the log) and the settled
/// screen as after-frame; `params` is merged into the step's params. done/fail/needs_user do
/// nothing. With `aimer` (the click check), a click is aimed first (ClickAimer::aim): it is
/// pressed where the check left the pointer, or, handed to the person, not pressed at all
/// (`did` then says the person did it). Throws std::invalid_argument for an unknown key name.
ActionOutcome performModelAction(ModelContext& ctx, const model::Action& a, const Frame& before, int64_t before_id,
                                 const std::string& label, const nlohmann::json& params = nlohmann::json::object(),
                                 ClickAimer* aimer = nullptr);

/// The label of an element for steps and history: `[5] asset "="`, `[3] button (无文字)`.
std::string elementLabel(const SomResult& som, int id);

/// Autopilot settings: `max_steps` (model calls, default 20), `keep_images` (screenshots kept in
/// the conversation, default 3), `max_invalid` (consecutive answers that are not a valid
/// action before giving up, default 3), `provider` (a member of the fallback chain, "" = the
/// configured order), `click_check` (seed 001 §4.1: every click is aimed by the model first,
/// ClickAimer; default $EACU_CLICK_CHECK), `click` (its N and r).
struct AutopilotOptions {
    int max_steps = 20;
    int keep_images = 3;
    int max_invalid = 3;
    std::string provider;
    bool click_check = clickCheckFromEnv();
    ClickCheckOptions click;
};

/// How an autopilot run ended: `status` done | fail | needs_user | max_steps (or, in the summary
/// step only, the failure code that stopped it: limit, timeout, refused...); `message` (the
/// model's text or reason, or the last error); `steps` (model calls made); `history` (seed 000
/// §3.2 lines); `actions` (the parsed actions as JSON); `cached` (answers served from the
/// cache); `step_id` (the summary "autopilot" step).
struct AutopilotResult {
    std::string status;
    std::string message;
    int steps = 0;
    int cached = 0;
    std::vector<std::string> history;
    std::vector<nlohmann::json> actions;
    int64_t step_id = 0;
};

/// Runs the loop for `task`. Model calls are kind "autopilot" (cached in record/replay: a replayed
/// answer is used only when it is still a valid action for the live Set-of-Marks). Before each
/// action the model's thought goes to Session::intent. needs_user asks the person through the
/// run's user channel (Session::awaitUser kind "needs_user", the model's text); after their
/// reply the loop goes on with a fresh screenshot and the history line "需要用户：<text> →
/// 用户已操作: <reply>"; when nobody can be asked (StepError "blocked") the autopilot ends with
/// status needs_user. done sets the run's answer (Session::setAnswer). Ends with
/// an "autopilot" step (status ok for done, failed otherwise) whose params hold the history.
/// Throws model::ModelError when a call fails (network, HTTP, no cached answer), and
/// std::runtime_error("cancelled") on cancellation.
AutopilotResult runAutopilot(ModelContext& ctx, const std::string& task, const AutopilotOptions& opts = {});

}  // namespace eacu
