// One step engine for step{} (Lua) and plan() (the planner): a step as data, seed 002's
// StepPlan (action, target, verify, success, fallback, retry, timeout, wait_before/after) plus
// optional and risky, and one executor of it. Failures are StepErrors with a code; every
// decision (fallback, retry, abort) is taken on the code, never on the message text.
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/Device.h"
#include "step/StepError.h"
#include "step/Target.h"
#include "vision/Match.h"

namespace eacu {

class Session;

/// One action of a step or of a fallback.
/// - `kind`: tap | double_tap | long_press | input | key | scroll | swipe | wait | call.
/// - `target`: what tap, double_tap, long_press and wait act on; where the pointer is for a
///   scroll (none: where it is); a swipe's start (a drag to `to`).
/// - `to`: a swipe's end (a drag from `target` to `to`, in `seconds`).
/// - `text`: input's text (UTF-8); key's combo ("ctrl+s"); a scroll's or swipe's direction
///   (up | down | left | right) as the script gave it, for the label.
/// - `dx`, `dy`: wheel clicks of a scroll (dy > 0: down); scrollAction() fills them from a
///   direction.
/// - `seconds`: long_press's hold (default 1), a wait's pause when it has no target, a drag's
///   duration.
/// - `button`: the mouse button of tap, double_tap and long_press.
/// - `timeout`: seconds to find the target; negative: the step's (a fallback's: the session's
///   find_timeout).
/// - `perform`: does the action instead of the session, given the timeout in seconds (call=,
///   and targets only the caller can act on: "dynamic:" descriptions grounded by a model). It
///   may return what it found. Its exceptions are the action's failure (a StepError keeps its
///   code: a perform that did not find its target throws StepError(failure::kNotFound, ...)).
/// - `label`: how the action is shown ("tap \"OK\""); made from the fields when empty.
struct StepAction {
    std::string kind;
    std::optional<TargetSpec> target;
    std::optional<TargetSpec> to;
    std::string text;
    int dx = 0;
    int dy = 0;
    double seconds = -1;
    MouseButton button = MouseButton::Left;
    double timeout = -1;
    std::function<std::optional<Match>(double timeout)> perform;
    std::string label;
};

/// A scroll (`swipe` false) or a phone-style swipe (`swipe` true) in `direction` (up | down |
/// left | right) by `clicks` wheel clicks. A swipe moves the content: "up" shows what is below
/// (it scrolls down), "left" shows what is to the right. Throws std::invalid_argument
/// ("scroll: expected up|down|left|right, got sideways") for another direction.
StepAction scrollAction(const std::string& direction, bool swipe, int clicks = 3);

/// What must hold after a step's action, one of:
/// - `target`: on screen within the step's timeout (looked for as a "verify" step);
/// - `holds`: a condition, asked every 50 ms until it returns true or the timeout passes (an
///   exception counts as "not true" and is reported, except an abort: see isAbortCode);
/// - `check`: given the timeout in seconds; throws when it does not hold.
/// `what` names it in messages ("the step's verify condition"); `label` in the step's label.
struct StepCheck {
    std::optional<TargetSpec> target;
    std::function<bool()> holds;
    std::function<void(double timeout)> check;
    std::string what = "condition";
    std::string label;
};

/// A step (seed 002's StepPlan).
/// - `name`: its label in messages and the run log; default "<kind> <target>" of the action
///   ("verify <target>" for a step that only verifies).
/// - `action`: what it does (none: it only verifies).
/// - `verify`: must hold after the action; `success`: a predicate that must hold too.
/// - `fallback`: actions run in order when the action's target is not found (code
///   not_found); then the target is looked for again; at most `fallback_max` times in all
///   attempts together. A fallback that fails ends the fallbacks of that attempt (its message
///   is added to the reason; an abort of it aborts the step).
/// - `retry`: extra attempts when the action or its verification fails (not after an abort).
/// - `timeout`: seconds to find the target (first attempt; later attempts at most 2 s, looks
///   after a fallback at most 1 s) and to verify.
/// - `wait_before`, `wait_after`: seconds to pause before the step and after a successful action.
/// - `optional`: a failure is recorded ("skipped") and returned instead of raised.
/// - `risky`: confirmation is asked first (Session::confirmMode, or EACU_CONFIRM when set);
///   refused: the step fails with failure::kRefused and does nothing.
/// - `method`: the summary row's method ("step" for step{}, "plan" for plan()).
struct StepSpec {
    std::string name;
    std::optional<StepAction> action;
    std::optional<StepCheck> verify;
    std::optional<StepCheck> success;
    std::vector<StepAction> fallback;
    int fallback_max = 3;
    int retry = 1;
    double timeout = 5;
    double wait_before = 0;
    double wait_after = 0;
    bool optional = false;
    bool risky = false;
    std::string method = "step";
};

/// How a step ended.
/// - `ok`; `attempts` made; `fallbacks` run (in all attempts).
/// - `code`: the failure code ("" when ok): the action's failure's code (not_found, device,
///   ...), failure::kVerifyFailed when its verification failed, failure::kRefused, or the
///   abort's code (limit, cancelled, timeout, model, invalid).
/// - `reason`: why it failed; `suggestion`: retry | dismiss | replan | abort (seed 002's
///   recovery: dismiss when a target was missing and blockers are registered or there was no
///   fallback; replan when it was missing despite fallbacks, or retries did not help).
/// - `match`: what the last successful action found (tap's match, a perform's result).
/// - `step_id`: the "step" summary row (0 when nothing is recorded).
/// - `error`: the failure as raised: StepError(code, "step <name>: <reason> (suggestion:
///   <suggestion>)", step_id, frame of the failure, target label, best candidate).
/// - `cause`: the last exception as it was thrown (to rethrow a model error or a
///   cancellation unchanged).
struct StepResult {
    bool ok = false;
    int attempts = 0;
    int fallbacks = 0;
    std::string code;
    std::string reason;
    std::string suggestion;
    std::optional<Match> match;
    int64_t step_id = 0;
    std::optional<StepError> error;
    std::exception_ptr cause;
};

/// Performs one action on `session` (or by its `perform`) with `timeout` seconds to find its
/// target; returns what it found (tap's match). Throws what the action throws.
std::optional<Match> performAction(Session& session, const StepAction& action, double timeout);

/// The label of an action: `tap "OK"`, `input "hello"`, `scroll "down"`, `call (function)`.
std::string actionLabel(const StepAction& a);
/// The label of a step: its name, else its action's label, else "verify <check>".
std::string stepLabel(const StepSpec& s);

/// Runs a step on `session`: its label goes to Session::intent, then wait_before, confirmation
/// (risky), then up to 1 + retry attempts of the action (with its fallbacks) and its checks,
/// wait_after. Records a "step" summary row
/// (target: the label; params: action, retry, timeout, optional, attempts, fallbacks, reason,
/// suggestion, blockers). A failure of the step is returned, not thrown (see StepResult).
/// Throws std::invalid_argument, before doing anything, for a spec that cannot run (neither an
/// action nor a check, an unknown kind, a tap without a target, a negative retry or timeout).
StepResult executeStep(Session& session, const StepSpec& spec);

/// executeStep(), then throws `result.error` when the step failed and is not optional.
StepResult runStep(Session& session, const StepSpec& spec);

/// The failure code of an exception: a StepError's own code; LimitExceeded → limit;
/// Cancelled → cancelled or timeout; model::ModelError and model::ActionParseError → model;
/// DeviceError → device; std::invalid_argument and TargetNotFound (an unknown asset name) →
/// invalid; anything else → failed.
std::string failureCode(const std::exception_ptr& e);

/// The exception as a StepError: a StepError as it is; others with failureCode() and what().
StepError asStepError(const std::exception_ptr& e);

/// True for codes after which trying again cannot help: limit, cancelled, timeout, refused,
/// model, invalid.
bool isAbortCode(const std::string& code);

}  // namespace eacu
