// Seed 002's planner: a task → a list of steps (asset targets or "dynamic:" descriptions),
// executed one by one with retries, a fallback and verification, and replanned from the live
// screen when a step fails, up to N times.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/ModelContext.h"
#include "step/StepEngine.h"

namespace eacu {

/// One planned step (seed 002's StepPlan).
/// - `action`: tap | double_tap | long_press | input_text | press_key | scroll | swipe | wait.
/// - `target_ref`: an asset name/alias, or "dynamic:<description>" (grounded by the model).
/// - `params`: text (input_text), key (press_key), direction/amount (scroll, swipe), ms (wait).
/// - `verify_ref`: a target that must be on screen after the step (asset or dynamic:).
/// - `fallback`: an action run when the step's target is not found, then the target is looked
///   for again, up to 3 times (the step engine's rules; its own retries are 0).
/// - `timeout_ms` to find targets, `retry` extra attempts; `wait_before_ms`, `wait_after_ms`:
///   pauses before the step and after its action.
struct PlanStep {
    int step = 0;
    std::string action;
    std::string target_ref;
    std::string description;
    nlohmann::json params = nlohmann::json::object();
    std::string verify_ref;
    std::shared_ptr<PlanStep> fallback;
    int timeout_ms = 3000;
    int retry = 1;
    int wait_before_ms = 0;
    int wait_after_ms = 0;
    nlohmann::json raw;
};

/// A plan: its steps and the model's analysis/success criteria (kept as given).
struct Plan {
    std::vector<PlanStep> steps;
    nlohmann::json analysis;
    std::string success_criteria;
};

/// Parses a planner answer strictly: one JSON object (optionally in a code fence) with a
/// non-empty "steps" array of step objects in seed 002's form; every step's action known and
/// its required fields present (tap/double_tap/long_press: target_ref; input_text:
/// params.text; press_key: params.key; scroll/swipe: params.direction). Throws
/// model::ActionParseError saying what was expected and what came.
Plan parsePlan(const std::string& raw);

/// Planner settings: `max_replans` (default 2), `max_steps` (executed steps in all, default 40),
/// `provider` (a member of the fallback chain).
struct PlanOptions {
    int max_replans = 2;
    int max_steps = 40;
    std::string provider;
};

/// How a plan ended: `ok`; `steps_done`; `replans`; `plans` (each plan as the model gave it);
/// `executed` (one line per step: "1 tap \"AC\" ok"); `error` (the last failure);
/// `step_id` (the summary "plan" step).
struct PlanResult {
    bool ok = false;
    int steps_done = 0;
    int replans = 0;
    std::vector<nlohmann::json> plans;
    std::vector<std::string> executed;
    std::string error;
    int64_t step_id = 0;
};

/// Plans `task` from the live screen and the asset list (call kind "plan", cached), executes
/// the steps and replans on failure. Ends with a "plan" step (ok/failed) holding the plans
/// and the executed lines. Throws model::ModelError when a model call fails and
/// model::ActionParseError when an answer is not a plan.
PlanResult runPlan(ModelContext& ctx, const std::string& task, const PlanOptions& opts = {});

/// Executes one planned step through the step engine (step/StepEngine.h: fallbacks, then the
/// target looked for again, up to 3 times; retries; verify_ref), recorded as a "step" row with
/// method "plan". Returns the engine's result (a failure has its code and reason). Throws the
/// failure's exception as it came when the plan cannot go on: a model error
/// (model::ModelError, model::ActionParseError), a cancellation (Cancelled) or the run's
/// limits (LimitExceeded).
StepResult executePlanStep(ModelContext& ctx, const PlanStep& s, const std::string& provider = "");

}  // namespace eacu
