// The robust click of seed 001 §4.1 for model-driven clicks: move the pointer to the target,
// show the model the screen with the pointer marked, let it say whether the pointer is on the
// target or how far to move it, and correct up to N times; when it is still off, do not click:
// hand the click to the person.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "geometry/Rect.h"

namespace eacu {

class ModelContext;

/// True when $EACU_CLICK_CHECK is "1" (or "true", "yes", "on"): the default of the agents'
/// click_check option (`eacu serve --click-check` sets it for its workers).
bool clickCheckFromEnv();

/// Settings: `max_corrections` (N, seed 001: 4) pointer moves after the first before giving
/// up; `radius` (r, seed 001: 14 screenshot pixels): a correction the model asks for that is
/// no longer than this counts as on target.
struct ClickCheckOptions {
    int max_corrections = 4;
    double radius = 14;
};

/// Where a checked click goes: press at `point` (physical pixels, where the pointer is), or,
/// when `by_person`, nothing: the person was asked (user channel, kind "click") and said they
/// clicked (`reply`; the hand-over is recorded as a "click" step). `checks`: model checks made.
struct AimedClick {
    bool by_person = false;
    Point point;
    int checks = 0;
    std::string reply;
};

/// Aims the model-driven clicks of one autopilot run at their targets.
class ClickAimer {
public:
    /// `task`: the autopilot's task, told to the model with each check.
    ClickAimer(ModelContext& ctx, std::string task, ClickCheckOptions options = {});

    /// Aims one click at `target` (physical pixels; `box` the element's box, if known) for
    /// `intent` (the model's thought) on `label`: moves the pointer there through the run's
    /// action path (a "move" step; it counts against the run's limits), then per check captures
    /// the screen, asks the model (kind "click_check", the pointer marked and given as a field,
    /// the target as fields) and records a "click_check" step; on_target, or a correction no
    /// longer than `radius`: done; else moves to the pointer + (dx, dy) and checks again, at
    /// most `max_corrections` times. Then it hands the click to the person (Session::awaitUser
    /// kind "click"). `parent_id`: the enclosing step, if any. Throws StepError "model" when an
    /// answer is not {"on_target": bool, "dx": int, "dy": int}, "blocked" when nobody can be
    /// asked, what the action path throws (limits), model::ModelError, Cancelled.
    AimedClick aim(const std::string& intent, const std::string& label, Point target, const std::optional<Rect>& box,
                   std::optional<int64_t> parent_id = std::nullopt);

private:
    ModelContext& ctx_;
    std::string task_;
    ClickCheckOptions options_;
};

}  // namespace eacu
