// The model's side of the click check (seed 001 §4.1): before a model-driven click the pointer
// is moved to the target, the screen is shown with the pointer marked, and the model says
// whether the pointer is on the target or how far to move it: {"on_target": bool, "dx": int,
// "dy": int}.
#pragma once
#include <optional>
#include <string>

#include "geometry/Rect.h"

namespace eacu::model {

/// The model's verdict: `on_target`, else the move (`dx`, `dy`: screenshot pixels, x right,
/// y down) that puts the pointer on the target.
struct ClickCheckAnswer {
    bool on_target = false;
    int dx = 0;
    int dy = 0;
};

/// What the model is told about one check: the run's task, the intent of the click (the
/// model's thought), the target's label, its point and box and the pointer's position, all
/// in pixels of the screenshot the model is shown.
struct ClickCheckQuestion {
    std::string task;
    std::string intent;
    std::string label;
    Point target;
    std::optional<Rect> box;
    Point pointer;
};

/// The system prompt of a click check (it also names the answer's JSON form).
const std::string& clickCheckSystemPrompt();

/// The user prompt: "# Click check", then one field per line (Task, Intent, Target with
/// "x=, y=" and, when known, "box x1=, y1=, x2=, y2=", Pointer "x=, y="), then the question.
std::string clickCheckPrompt(const ClickCheckQuestion& q);

/// Parses the answer: exactly one JSON object (optionally in one markdown code fence) with
/// "on_target" (boolean), "dx" and "dy" (integers; a number with a fraction is refused);
/// other fields are ignored. Throws std::runtime_error saying what was expected and what came
/// (the raw text, up to 300 bytes).
ClickCheckAnswer parseClickCheck(const std::string& text);

}  // namespace eacu::model
