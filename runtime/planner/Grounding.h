// Grounding: a description ("the blue Send button") → a place on the screen, by a model that
// sees the screenshot with numbered Set-of-Marks boxes and answers with an element id or a
// 0–1000 box (seed 002's VisionAgent.find_element).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "geometry/Rect.h"
#include "model/Action.h"
#include "planner/ModelContext.h"

namespace eacu {

/// Where a description was found.
/// - `found`: false when the model said it is not on screen (`reason` says why).
/// - `box`, `point` (box centre): physical pixels; `element_id` when it chose an element;
///   `method`: "model-element" | "model-box".
/// - `thought`/`reason`: the model's words; `from_cache`; `call_id` (model_calls row);
///   `frame_id` (the frame the model saw).
struct Grounding {
    bool found = false;
    Rect box;
    Point point;
    std::optional<int> element_id;
    std::string method;
    std::string reason;
    std::string raw;
    bool from_cache = false;
    int64_t call_id = 0;
    int64_t frame_id = 0;
};

/// Parses a grounding answer strictly (one JSON object, optionally in a code fence):
/// {"element_id": N} (N in `ctx.elements`), {"box": [x1, y1, x2, y2]} in 0..1000 of the
/// screen, seed 002's {"found": true, "xmin", "ymin", "xmax", "ymax"[, "confidence"]}, or
/// {"found": false, "reason": "..."}; a "thought" is allowed. Throws model::ActionParseError
/// saying what was expected and what came. `screen` is the frame size (physical pixels).
Grounding parseGrounding(const std::string& raw, const model::ActionContext& ctx);

/// The element list a grounding prompt shows: one line per element,
/// `[id] kind "content" box=[x1,y1,x2,y2]` with the box in 0..1000 of the screen.
std::string groundingElementList(const SomResult& som, const ModelImageTransform& t);

/// Looks for `description` on the live screen: observes (Set-of-Marks), asks the model (kind
/// "locate", cached in record/replay; a cached answer is used only when its element is in the
/// live element list and its point is on the screen). Retries with a fresh observation until
/// `timeout` seconds passed when the model says it is not there. An `assertion` (verify) is
/// never answered from the cache: it always asks the model (kind "assert"). Throws
/// model::ModelError on a failed call and model::ActionParseError for an answer that is not a
/// grounding. `reference`, when not empty, is an image of the element as it looked before
/// (healing: the line's recorded crop, seed 002's one-shot reference-image locator): sent after
/// the screenshot as a second image, introduced as such; such a call is never answered from
/// the cache.
Grounding ground(ModelContext& ctx, const std::string& description, double timeout = 0,
                 const std::string& provider = "", bool assertion = false, const cv::Mat& reference = cv::Mat());

/// A `{dynamic = description}` target used by a verb: grounds it (ground() above, `timeout`
/// seconds) and then, for `action` tap | double_tap | right_tap, presses it through the
/// session's ActionExecutor (limits, confirm, read-back, settle, recorded as a step with
/// method "model"); for "locate" (or when the model did not find it) records a step with
/// what the model said. Returns the grounding (`found` false: not on screen). Throws
/// std::invalid_argument for another action, std::runtime_error("<action> {dynamic=...}: the
/// model did not find it: <reason>") when an action's target is not found, StepError from the
/// executor, and what ground() throws.
Grounding groundAndAct(ModelContext& ctx, const std::string& description, const std::string& action,
                       double timeout = 0, const std::string& provider = "", bool assertion = false);

}  // namespace eacu
