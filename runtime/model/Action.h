// The JSON action a model answers with (seed 000 §3.1), parsed strictly. Nothing a model says
// is ever executed as code: an Action is plain data the step runner interprets.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "geometry/ModelImage.h"
#include "geometry/Rect.h"

namespace eacu::model {

/// Action kinds: seed 000 §3.1's set plus needs_user ("I need a human", UI-TARS call_user()).
enum class ActionType { Click, DoubleClick, RightClick, Type, Hotkey, Press, Scroll, Wait, Done, Fail, NeedsUser };

/// "click", "double_click", ... as written in the JSON.
const char* actionName(ActionType t);

/// A parsed action.
/// - `point`: where to act, physical pixels of the frame (the element's box centre, or a
///   model coordinate mapped back); set for clicks, and for type/scroll with a target.
/// - `element_id` / `box`: the element chosen (box in physical pixels).
/// - `text` (type; needs_user/fail/done message), `keys` (hotkey, e.g. {"ctrl","s"}),
///   `key` (press), `direction` (up|down|left|right) and `amount` (wheel clicks, 1..50, default
///   3) for scroll, `seconds` (wait, 0..60, default 1).
/// - `thought`: the model's reasoning, for the history line and the log. `raw`: the answer.
struct Action {
    ActionType type = ActionType::Fail;
    std::string thought;
    std::optional<int> element_id;
    std::optional<Rect> box;
    std::optional<Point> point;
    std::string text;
    std::vector<std::string> keys;
    std::string key;
    std::string direction;
    int amount = 3;
    double seconds = 1.0;
    std::string raw;

    /// {"action", "thought", "element_id", "x", "y", ...} for the run log.
    nlohmann::json toJson() const;
};

/// Coordinate space of an answer's "coordinate": [x, y] (or "x"/"y"), when coordinates are
/// allowed at all: `None` rejects them (Set-of-Marks mode: element IDs only).
enum class CoordSpace { None, Physical, ModelImage, Fraction, PerMille };

/// What an answer is checked against.
/// - `elements`: Set-of-Marks ID → box (physical pixels). An element_id not in it is an error.
/// - `screen`: the frame size (physical pixels); every resulting point must lie inside it.
/// - `coords` / `transform`: how to read a "coordinate" (transform needed for ModelImage).
struct ActionContext {
    std::map<int, Rect> elements;
    Size screen;
    CoordSpace coords = CoordSpace::None;
    std::optional<ModelImageTransform> transform;
};

/// An answer that is not a valid action. what() says what was expected and what came, and
/// ends with the raw text (truncated to 500 bytes); raw() has it whole.
class ActionParseError : public std::runtime_error {
public:
    ActionParseError(const std::string& why, std::string raw);
    const std::string& raw() const { return raw_; }

private:
    std::string raw_;
};

/// Strips one enclosing markdown code fence (```json ... ``` or ``` ... ```) and surrounding
/// whitespace. Text outside the fence is left as it is (and then fails to parse).
std::string stripCodeFence(const std::string& text);

/// Parses one action strictly: the answer must be exactly one JSON object (optionally inside a
/// single code fence) with a known "action" and only the fields that action takes ("thought"
/// allowed everywhere); types are checked; element_id must be in `ctx.elements`; points must be
/// inside the screen. Throws ActionParseError otherwise.
Action parseAction(const std::string& raw, const ActionContext& ctx);

}  // namespace eacu::model
