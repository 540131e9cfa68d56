// Healing's interface on the step floor (issue 34): what a session asks when every target of a
// line is missing, answered by runtime/heal/ (installed by the run's set-up, app/), which stands
// above the step engine (it proves with recorder/TargetProof and grounds with planner/).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/Frame.h"
#include "step/Target.h"
#include "vision/Match.h"

namespace eacu {

class Session;

/// One element a heal looked at: `source` (where it came from: "tree", or the Set-of-Marks
/// source such as "box_contour_content_ocr", "box_ocr_content_ocr"), `label` (its role and words), `box` (physical pixels of the frame), `score`
/// (0..1, the similarity to what the line recorded), `why` (its features, for messages).
struct HealCandidate {
    std::string source;
    std::string label;
    Rect box;
    double score = 0;
    std::string why;
};

/// What a heal gave.
/// - `healed`: an element was found and proven; `match` is where to act (method "heal:similar"
///   or "heal:model", score the similarity or 1 for the model, box and input point in physical
///   pixels of `frame`), `targets` the proven targets as Lua source (the first is the new
///   target, the others its alternatives), `crops` the image crops they name, each
///   {file (as the script names it), frame_id (the crop's pixels, a frame of the run log),
///   scale}; `frame` the screen it was found and proven on (also when not healed: the screen
///   healing looked at).
/// - `tried`: what was tried and why it did not hold (for the not_found message).
/// - `candidates`: the best candidates, best first (at most 5).
/// - `record`: the run log's params["heal"] for the step (docs/healing.md).
struct HealResult {
    bool healed = false;
    Match match;
    Frame frame;
    std::vector<std::string> targets;
    nlohmann::json crops = nlohmann::json::array();
    std::string tried;
    std::vector<HealCandidate> candidates;
    nlohmann::json record = nlohmann::json::object();
};

/// Finds again the element a line meant when none of its targets is on screen. Implementations
/// look at the screen themselves (a fresh capture) and send no input; they must not throw for
/// an element that is not there (healed false, saying why), only for a cancelled run
/// (Cancelled) or a device that fails (DeviceError).
class Healer {
public:
    virtual ~Healer() = default;
    /// `target`: the line's target (the first and its alternatives, as the script gave them);
    /// `action`: the verb ("tap", "wait"); `step_idx`: the step's index (names new crops).
    virtual HealResult heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) = 0;
};

}  // namespace eacu
