// The one path every input takes, whoever asks for it (script verbs, step{}, plan, autopilot,
// dynamic targets, actions replay, the REPL): the run's limits and risky-step policy, the
// pointer read-back, the input, the wait for its effect and the settle, retries that never
// repeat an input that took effect late, and the step in the run log.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/Frame.h"
#include "device/Device.h"
#include "device/Windows.h"
#include "geometry/Rect.h"
#include "runlog/RunLog.h"
#include "vision/Match.h"
#include "vision/Stability.h"

namespace eacu {

class Session;

/// One input, as data.
/// - `action`: tap | double_tap | long_press | input | key | scroll | drag, or the lower-level
///   move (the pointer only), mouse_down, mouse_up (a `button` pressed or released at `at`) and
///   hold_key (`combo` held down for `hold` seconds) that the computer tool asks for.
/// - `target`: the label of what it acts on, for the log and messages ("\"btn_1\"", "[5] asset").
/// - `at`: where the pointer goes first (physical pixels); none for keyboard input, and for a
///   scroll at the pointer's current place. `to`: a drag's end.
/// - `box`: the target's box; retried taps stay inside it.
/// - `button`, `count` (2 = double), `hold` (seconds; > 0 = long press): pointer presses.
/// - `text` (input: UTF-8), `combo` (key: "ctrl+s"), `dx`/`dy` (scroll: wheel clicks, dy > 0
///   down), `duration` (drag: seconds).
/// - `risky`: asks the run's confirm policy first (no terminal: refused).
/// - `retry_without_effect`: a single tap that changed nothing is pressed again a few pixels
///   off (SessionOptions::tap_retries, jitter), unless its effect shows up late, or at
///   least kTargetEffectPixels pixels inside `box` changed (an effect under the screen's
///   noise ratio drawn in the target itself: a check box's mark; a second press would undo it).
/// - `method`, `score`, `threshold`, `locate_ms`: how the target was found (for the step row).
/// - `params`: extra fields for the step's params (merged over the executor's own).
/// - `before`: the screen the target was found on (empty: captured just before the input);
///   `before_id`: that frame's id when it is already in the run log.
/// - `element`: an accessibility-tree element acted on through the tree, not the pointer:
///   action "set_text" sets its text to `text`, any other calls its action `element_action`
///   (device/Accessibility.h); `at` is then unset.
/// - `window`: the window a window-bound target was found in (0: none). The effect is then
///   watched on that window's own pixels (`before` is one of them), falling back to the screen
///   once the window is gone. `send_events`: the input goes to that window as synthetic
///   events (Windows::sendClick, sendKeys, sendText): the pointer does not move, the window
///   is neither raised nor focused (taps, double taps, input and key only).
/// - `wait_effect`: false for the inner actions of a batch (Session::batch): no effect wait,
///   settle or retry after the input (params "effect": "not awaited"); `before` is then the
///   batch's one frame.
/// - `parent_id`: the enclosing step (autopilot, plan), if any; `idx`: the step index reserved when
///   the target was looked for (0: the next index).
struct InputAction {
    std::string action = "tap";
    std::string target;
    std::optional<Point> at;
    std::optional<Point> to;
    std::optional<Rect> box;
    MouseButton button = MouseButton::Left;
    int count = 1;
    double hold = 0;
    std::string text;
    std::string combo;
    int dx = 0, dy = 0;
    double duration = 0.3;
    bool risky = false;
    /// input: the text is a secret (the script said so, or the focused field is a password):
    /// typed with Device::typeSecret, never written to the run log (its target and messages say
    /// "(secret, N characters)").
    bool secret = false;
    /// input and set_text: the field is read back through the tree after the text is sent
    /// (step/TypedCheck; the step's params "typed" say how it went); false: not.
    bool check = true;
    bool retry_without_effect = true;
    bool wait_effect = true;
    std::string method;
    std::optional<double> score, threshold;
    std::optional<double> locate_ms;
    nlohmann::json params = nlohmann::json::object();
    Frame before;
    int64_t before_id = 0;
    std::optional<int64_t> parent_id;
    int idx = 0;
    std::optional<A11yElement> element;
    std::string element_action;
    uint64_t window = 0;
    bool send_events = false;
    std::string actor;

    /// Sets how the target was found from the match that found it: `method`, and for a
    /// searched target (not a point) `score`, `threshold`, `box` and `locate_ms`.
    void foundBy(const Match& m) {
        method = m.method;
        if (m.method == "point") return;
        score = m.score;
        threshold = m.threshold;
        box = m.box;
        locate_ms = m.ms;
    }
};

/// What an input did: the step row written (`step_id`, 0 when nothing is recorded), the settle
/// (`settle.changed`: the screen changed beyond noise), `late_effect` (the change came only
/// after the first effect wait: recorded as such, the input was not repeated), `retries`
/// (presses repeated because nothing changed) and `input` (the last point pressed).
struct InputResult {
    int64_t step_id = 0;
    Settle settle;
    bool late_effect = false;
    int retries = 0;
    std::optional<Point> input;
};

/// Pixels inside a tapped target's box whose change counts as the tap's effect, however small
/// against the whole screen (a check box's mark in Wine is ~25 px).
constexpr int kTargetEffectPixels = 4;

/// Executes InputActions on a session's device. Owned by the Session; not thread-safe (a run
/// has one thread driving its device).
class ActionExecutor {
public:
    explicit ActionExecutor(Session& session) : session_(session) {}

    /// Checks, before a target is even looked for, that one more action may run: the run's
    /// deadline and action limit (throws StepError code "timeout" or "limit"). Does not count.
    /// It is also a step boundary: Session::checkpoint() first (a pause while the person holds
    /// the screen).
    void checkLimits(const std::string& what) const;
    /// Runs `a` and records it as one step. Throws StepError: "limit"/"timeout" (the run's
    /// limits; nothing is sent), "refused" (a risky action not confirmed), "device" (the
    /// pointer does not land where it should: not pressed), "invalid" (an unknown key or
    /// invalid UTF-8: nothing typed), "verify_failed" (an input or set_text whose field does not
    /// hold the text sent, TypedCheck); Cancelled when the run is cancelled meanwhile.
    InputResult perform(InputAction a);
    /// Moves the pointer to `p` and reads it back, correcting up to
    /// SessionOptions::cursor_attempts times (seed 001 §4). Throws StepError "device" when it
    /// is still elsewhere: an input is never sent to another place.
    Point moveExactly(Point p);
    /// The step the last perform() committed (ok or failed).
    const StepRecord& lastStep() const { return last_step_; }

private:
    void send(const InputAction& a, Point p);
    // A capture of what `a` acts on: its window's own pixels, or the screen (also once the
    // window is gone).
    Frame capture(const InputAction& a);
    Session& session_;
    bool window_gone_ = false;  // the acted-on window went away during this input
    StepRecord last_step_;
};

}  // namespace eacu
