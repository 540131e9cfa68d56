// A session drives one device for one run: every action is a recorded step.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "base/IoDeadline.h"
#include "device/Device.h"
#include "process/Process.h"
#include "runlog/RunLog.h"
#include "step/ActionExecutor.h"
#include "step/Blockers.h"
#include "step/Healer.h"
#include "step/Limits.h"
#include "step/StepError.h"
#include "step/Target.h"
#include "step/UserChannel.h"
#include "vision/Locator.h"
#include "vision/ocr/OcrResult.h"
#include "vision/ScaleEstimator.h"
#include "vision/Stability.h"

namespace eacu {

/// Timing settings, in seconds.
/// - `find_timeout`: how long tap/wait/verify look for a target by default.
/// - `poll_interval`: pause between captures while looking or settling.
/// - `effect_timeout`: how long to wait for the screen to change after an action.
/// - `settle_interval`: how long the screen must stay unchanged to count as settled.
/// - `settle_timeout`: the most an action waits for the screen to settle.
/// - `change_tolerance`: grey levels a pixel must move to count as changed (seed 000: 15).
/// - `noise_ratio`: a change ratio at or below this is noise (a blinking caret), not an effect.
/// - `tap_retries`: a single tap that changed nothing is tapped again this many times, each
///   time a few pixels (`jitter`) off the centre, inside the target's box (seed 000 §5).
/// - `late_effect_timeout`: before each such retry the screen is watched this long for a
///   late effect of the press before (then it is not pressed again).
/// - `cursor_attempts`: pointer moves read back and corrected before a press (seed 001 §4).
/// - `blocker_interval`: while a target is missing, registered blockers are checked this often.
/// - `limits`: the run's action and time limits (seed 001: 80 actions, 8 minutes; 0: none).
/// - `display`: DISPLAY for the programs launch() starts ("" = this process's own).
/// - `cancel`: the run's cancel token (waits, sleeps and model calls stop when it is cancelled).
struct SessionOptions {
    std::string script_dir;
    double find_timeout = 5.0;
    double poll_interval = 0.03;
    double effect_timeout = 0.5;
    double settle_interval = 0.1;
    double settle_timeout = 5.0;
    int change_tolerance = 15;
    double noise_ratio = 0.00005;
    int tap_retries = 2;
    double late_effect_timeout = 1.5;
    int jitter = 3;
    int cursor_attempts = 4;
    double blocker_interval = 1.0;
    RunLimits limits{kDefaultMaxActions, kDefaultMaxSeconds};
    bool record_frames = true;
    /// Healing (issue 34, docs/healing.md): when every target of a line is missing within its
    /// timeout, the installed Healer (setHealer) looks for the element the line meant; off:
    /// the line fails not_found at once. `eacu run --heal` sets it; step{heal = true} for one step.
    bool heal = false;
    std::string display;
    /// The environment launch() gives its programs on top of this process's own (DeviceHandle::env:
    /// DISPLAY and a virtual display's session and accessibility buses); `display`, when set,
    /// overrides its DISPLAY.
    std::map<std::string, std::string> env;
    /// The run's cancel token and deadline. Fixed when the Session is made (its limits hold a
    /// pointer to it): replace it through a new Session, never through options().
    std::shared_ptr<CancelToken> cancel = std::make_shared<CancelToken>();
};

/// Options of a tap: `button`, `count` (2 = double tap), `hold` seconds between press and
/// release (long press), `timeout` to find the target (negative: SessionOptions::find_timeout).
struct TapOptions {
    MouseButton button = MouseButton::Left;
    int count = 1;
    double hold = 0.0;
    double timeout = -1;
    std::string action = "tap";
};

/// One action of a batch (Session::batch): `action` tap | double_tap | long_press (the pointer
/// at `target`: an image, text or point target on the screen) | input (`text`, UTF-8) | key
/// (`text`, a key combo); `button`, and `hold` seconds for long_press.
struct BatchAction {
    std::string action;
    std::optional<TargetSpec> target;
    std::string text;
    MouseButton button = MouseButton::Left;
    double hold = 1.0;
};

/// What a batch did: `actions` run; `locate_ms` the time to find every target on one frame
/// (captures and looks, milliseconds); `ms` the whole batch up to and with its settle; the
/// settle after the last action; `matches` where each pointer action's target was found (in
/// order, physical pixels); `frame_id` the one frame they were found on (0: not recorded).
struct BatchResult {
    int actions = 0;
    double locate_ms = 0;
    double ms = 0;
    Settle settle;
    std::vector<Match> matches;
    int64_t frame_id = 0;
};

/// Runs steps on a device: resolves targets, captures, locates, injects input, waits for the
/// screen to settle and records each step (with before/after frames) in the run log.
/// Failed steps throw StepError (message: what was sought, best score and where, threshold,
/// frame id). Processes started by launch() are stopped when the session ends.
class Session {
public:
    /// `log` may be null (nothing recorded); `run_id` is the run rows belong to.
    /// Image targets are found by `locator` with hints the session keeps: where each target
    /// was last seen and at what scale, and the device scale factor learned from confident
    /// matches (until one is seen: the frame's scale factor over the image's recorded scale).
    Session(Device& device, const AssetLibrary& assets, const Locator& locator, RunLog* log,
            int64_t run_id, SessionOptions options = {});
    ~Session();

    Device& device() { return device_; }
    const AssetLibrary& assets() const { return assets_; }
    /// The locator image targets are found with (the replay's own, for proofs).
    const Locator& locator() const { return locator_; }
    SessionOptions& options() { return options_; }
    RunLog* log() { return log_; }
    /// The run's cancel token (SessionOptions::cancel).
    CancelToken& cancel() const { return *options_.cancel; }
    /// The bound on device waits for a part of a step that may take `seconds` (a find's timeout,
    /// a step's): every device wait on this thread ends `seconds` + 1 s from now at the latest,
    /// or when the run's token is cancelled (base/IoDeadline.h). Hold it for the part's life.
    IoDeadlineScope ioBound(double seconds) const;
    int64_t runId() const { return run_id_; }

    /// One look for `target` on a fresh capture, or repeated looks for up to `timeout`
    /// seconds until found. Returns the best match seen (check `found`). Recorded as a step.
    Match locate(const TargetSpec& target, double timeout = 0);
    /// Reads the text of the screen (or `region` x, y, w, h: pixels, or fractions) by OCR with
    /// the Tesseract language set `langs`; results are cached per frame. Recorded as a step.
    std::shared_ptr<const OcrResult> ocr(const std::optional<std::array<double, 4>>& region,
                                         const std::string& langs = "eng+chi_sim");
    /// Every occurrence of an image target on one capture (NMS applied), best first.
    std::vector<Match> findAll(const TargetSpec& target, int max_results = 100);
    /// Waits up to `timeout` seconds (negative: find_timeout) for the target to appear;
    /// throws StepError when it does not.
    Match wait(const TargetSpec& target, double timeout = -1, const std::string& action = "wait");
    /// Waits up to `timeout` seconds for the target to be absent; throws StepError otherwise.
    void waitVanish(const TargetSpec& target, double timeout = -1);

    /// Runs `actions` as one batch (seed 002's execution levels): every target is located on
    /// one capture (captured again until all are there at once, up to `timeout` seconds;
    /// negative: find_timeout), then the inputs are sent one after another with no capture,
    /// effect wait or settle between them, and the screen settles once after the last. Each
    /// action is its own step (params "batch": {"index", "of"}) on the one frame. Checked before
    /// anything is sent: the actions (std::invalid_argument naming the action: an unknown
    /// action, a key that does not exist, invalid UTF-8, a window-bound, relative or a11y
    /// target, none at all); StepError "not_found" when a target is not on the frame with the
    /// others (nothing sent). Once sending, a failure stops the batch: its StepError's message
    /// names the action ("batch action 4 of 12 (tap \"btn_5\"): ..."). The run's limits count
    /// each action.
    BatchResult batch(const std::vector<BatchAction>& actions, double timeout = -1);
    /// Finds the target (image) or resolves the point, then clicks it. Returns the match
    /// (method "point" for points).
    Match tap(const TargetSpec& target, const TapOptions& options = {});
    /// Sets the whole text of the editable element `t` (an a11y target, with a11y->editable
    /// set) to `text` through the accessibility tree (no keys typed). Recorded as a
    /// "set_text" step (method "a11y"). Throws StepError "not_found" when there is no such
    /// element within `timeout` seconds (negative: find_timeout), "device" when it refuses.
    Match setText(const TargetSpec& t, const std::string& text, double timeout = -1);
    /// The accessibility tree now: of the program owning window `window`, or of the whole
    /// screen (Device::accessibility; not recorded). A tree not readable yet is tried again
    /// until `deadline` (monotonic seconds; negative: now + find_timeout, as a find would wait).
    /// Throws DeviceError on a device without one, or when the tree is still not readable then.
    A11yElement a11ySnapshot(std::optional<uint64_t> window = std::nullopt, double deadline = -1);
    /// Types UTF-8 text into the focused window; with `window`, into that window: focused
    /// first, or (`focus` false) sent to it as events without focusing it. `secret` (or a
    /// focused password field the device knows of): typed with Device::typeSecret and written to
    /// the run log as its length only (InputAction::secret). `check`: the focused text field is
    /// read back through the tree until it holds the text (step/TypedCheck; a field that does
    /// not: StepError "verify_failed"); false: not read back.
    void input(const std::string& text, std::optional<uint64_t> window = std::nullopt, bool focus = true,
               bool secret = false, bool check = true);
    /// Presses a key combo ("ctrl+s", "Return"). Throws std::invalid_argument for unknown keys.
    /// `window` and `focus` as for input().
    void key(const std::string& combo, std::optional<uint64_t> window = std::nullopt, bool focus = true);
    /// Scrolls by wheel clicks (dy > 0: down) with the pointer over `at` (or where it is).
    /// Returns whether the screen changed (a scroll with no effect is reported, not retried).
    bool scroll(int dx, int dy, const std::optional<TargetSpec>& at = std::nullopt);
    /// Presses at `from`, moves to `to` in about `duration` seconds, releases.
    void drag(const TargetSpec& from, const TargetSpec& to, double duration = 0.3);
    /// Captures the screen; when `path` is not empty also writes it as PNG. Records the frame
    /// and returns its id (0 when nothing is recorded).
    int64_t screenshot(const std::string& path, Frame* out = nullptr);
    /// Sleeps (cancellable). A step boundary first (checkpoint(): a take-over pauses here).
    void sleep(double seconds);
    /// Starts a program with the session's display in its environment; it is stopped when
    /// the session ends. Throws std::runtime_error when it cannot start.
    /// `idx`: a step index to record it under (an actions replay keeps the original's).
    std::shared_ptr<Process> launch(const std::vector<std::string>& argv, int idx = 0);

    /// Stops every program launch() started (SIGTERM, then SIGKILL after `grace` seconds).
    void stopProcesses(double grace = 2.0);

    /// Captures until the screen changed and then stayed unchanged for settle_interval, or
    /// effect_timeout passed without change, or settle_timeout passed (vision/Stability.h).
    Settle waitSettled(const Frame& before);
    /// The session's stability settings (tolerance, noise, intervals, timeouts).
    StabilityOptions stability() const;
    /// Waits up to `timeout` seconds for the screen (or `region`) to change by more than
    /// `threshold` of its pixels against a capture taken now, then to settle. Recorded as a
    /// "wait_change" step; throws StepError when nothing changed in time.
    Settle waitChange(std::optional<Rect> region, double threshold, double timeout);
    /// Waits up to `timeout` seconds until the screen is still; recorded as "wait_stable";
    /// throws StepError when it kept changing.
    Settle waitStable(double timeout);

    /// The device's top-level windows (Device::windows; not recorded). Throws DeviceError on a
    /// device without windows.
    std::vector<WindowInfo> windows();
    /// The frontmost window, nullopt when none has the focus (not recorded).
    std::optional<WindowInfo> frontmost();
    /// The window `id` now, nullopt when it is gone (not recorded).
    std::optional<WindowInfo> window(uint64_t id);
    /// Runs the window operation `op` on window `id` and records it as a step (action
    /// "window", target the window's title and class, params {op, id, a, b, the result}):
    /// "focus", "minimize", "maximize", "restore", "close", "move" (a, b: x, y screen pixels),
    /// "resize" (a, b: w, h pixels). Counts as an action for the run's limits. Returns the
    /// window's state afterwards (for "close": as it was before). Throws StepError "invalid"
    /// for an unknown op, "device" when the window is gone or does not reach the state in
    /// `timeout` seconds (the message says what was expected and what came).
    /// `idx`: a step index to record it under (an actions replay keeps the original's).
    WindowInfo windowOp(const std::string& op, uint64_t id, int a = 0, int b = 0, double timeout = 5,
                        int idx = 0);

    /// Registered blockers (on_blocker): looked for before a locate gives up.
    BlockerSet& blockers() { return blockers_; }
    /// Looks once for each registered blocker and handles the first one found (tap its
    /// dismiss target, press its key, or run its handler); recorded as a "blocker" step.
    /// Returns the name of the blocker handled, or "" when none was on screen. `context` says
    /// which target was missing, for the run log.
    std::string handleBlockers(const std::string& context);

    /// The run's limits: counts actions, checks time. `eacu run` sets the defaults.
    LimitGuard& limits() { return limits_; }
    /// How risky steps are confirmed (ask on a terminal, else refuse; or yes/no).
    ConfirmMode& confirmMode() { return confirm_; }
    /// Asks whether the risky action `what` may run, by $EACU_CONFIRM when set, else by
    /// confirmMode(); Ask mode asks through the user channel. Returns "" when allowed, else why
    /// not (step/Limits.h confirmRisky).
    std::string confirm(const std::string& what);
    /// How the run reaches its person (default: the terminal). A service sets its own.
    void setUserChannel(std::shared_ptr<UserChannel> channel) { user_ = std::move(channel); }
    /// ask_user: shows `text` to the person through the user channel and waits for the answer;
    /// recorded as an "ask_user" step (the question, and the answer in params). Throws
    /// StepError "blocked" when nobody can answer (no terminal), Cancelled when the run stops.
    std::string askUser(const std::string& text);
    /// Hands the screen to the person: asks them through the user channel to do something
    /// (`kind` "needs_user" | "click", UserChannel::awaitAction) and waits until they say they
    /// did. Recorded as a step with action `kind`, method "person", the text as target and
    /// `params` plus the reply ("answer"). Returns the reply. Throws StepError "blocked" when
    /// nobody can answer (no terminal), Cancelled when the run stops.
    std::string awaitUser(const std::string& kind, const std::string& text,
                          const nlohmann::json& params = nlohmann::json::object());

    /// Called with every step as it is committed (after its row is written; id 0 when nothing
    /// is recorded), from the thread that commits it. Must not throw. Empty: none.
    void setStepObserver(std::function<void(const StepRecord&)> f) { step_observer_ = std::move(f); }
    /// Called by intent(). Must not throw. Empty: none.
    void setIntentObserver(std::function<void(const std::string&)> f) { intent_observer_ = std::move(f); }
    /// Says what the run is about to do ("点击 7 键"), for whoever watches it (the serve
    /// protocol's intent line). Not recorded.
    void intent(const std::string& text);
    /// The run's latest answer: what the autopilot said when it was done ("" when none yet).
    const std::string& answer() const { return answer_; }
    /// Sets the run's answer (the autopilot when it is done).
    void setAnswer(std::string text) { answer_ = std::move(text); }
    /// The healer asked when a line's targets are all missing and SessionOptions::heal is on
    /// (null: none; the run's set-up installs runtime/heal's).
    void setHealer(std::shared_ptr<Healer> h) { healer_ = std::move(h); }
    Healer* healer() const { return healer_.get(); }
    /// The one executor every input goes through (step/ActionExecutor.h).
    ActionExecutor& executor() { return executor_; }
    /// Who does the steps recorded from now on (StepRecord::actor): "script" (the default) or
    /// "model" (the autopilot's loop sets it while it runs; ActorScope). The person's input is
    /// recorded as "user" by the executor (InputAction::actor), whatever this says.
    void setActor(std::string actor) { actor_ = std::move(actor); }
    const std::string& actor() const { return actor_; }
    /// Sets what checkpoint() calls (the serve channel's take-over pause). Empty: none.
    void setCheckpoint(std::function<bool()> f) { checkpoint_ = std::move(f); }
    /// A step boundary: before an action looks for its target, and at the top of each autopilot
    /// turn. When the person took over the screen (eacu serve) it returns only once they
    /// handed it back, and returns true then (what was seen before is stale); else false at
    /// once. Not re-entered (the person's own input performed during the pause passes none).
    /// Throws Cancelled when the run stops meanwhile.
    bool checkpoint();

    /// Hooks for steps recorded outside Session (model steps: ask, plan, autopilot, grounding).
    /// beginStep: a step row with the next index (or `idx`, an index reserved earlier by a
    /// step that is written later), `action` and `target` (not yet written).
    StepRecord beginStep(const std::string& action, const std::string& target, int idx = 0);
    /// Writes a finished step (ended_at = now, status "ok" when empty); returns its id (0 when
    /// nothing is recorded).
    int64_t commitStep(StepRecord& s);
    /// Stores a frame in the run log; returns its id (0 when nothing is recorded).
    int64_t recordFrame(const Frame& f);

private:
    struct Located {
        Match match;
        Frame frame;
        std::vector<StageResult> stages;
        std::optional<A11yElement> element;  // an a11y target's element
        std::string note;                     // an a11y or relative target's miss: what was seen
        std::optional<Rect> anchor;           // a relative target's anchor box
        std::string source;                   // where a relative target's element came from
    };
    Located findRelative(const TargetSpec& t, double timeout);
    Located lookForA11y(const TargetSpec& t, double deadline);
    std::vector<Template> templatesFor(const TargetSpec& t) const;
    // A capture for looking for `t`: its window's own pixels (origin: the screen position of
    // the frame's top-left pixel) or the screen (origin 0, 0).
    Frame captureFor(const TargetSpec& t, Point& origin);
    // {id, title, class, origin: [x, y]} of window `id` for a step's params: origin is the
    // screen position of its client area, where the step's window frames start.
    nlohmann::json windowTag(uint64_t id);
    // Sets the keys of `more` in the step's params (JSON object).
    static void mergeParams(StepRecord& s, const nlohmann::json& more);
    // Before an input at a window-bound target: the window (focused and raised first with
    // t.raise). Fails the step "device" when it is gone, "covered" when minimized.
    WindowInfo prepareWindow(StepRecord& s, const TargetSpec& t, nlohmann::json& params);
    // Fails the step "covered" when another window shows at `p` instead of `w`.
    void checkUncovered(StepRecord& s, const TargetSpec& t, const WindowInfo& w, Point p,
                        const nlohmann::json& params, const Frame& seen);
    // Fails step `s` with `code` and `msg` (params and the frame `seen` recorded).
    [[noreturn]] void failStep(StepRecord& s, const char* code, const std::string& msg, const nlohmann::json& params,
                               const Frame* seen = nullptr);
    std::optional<Rect> regionFor(const TargetSpec& t) const;
    Located find(const TargetSpec& t, double timeout, bool want_present);
    // find() of a target with alternatives: each look tries it, then each alternative, once.
    Located findAny(const TargetSpec& t, double timeout, bool want_present);
    Located lookForText(const TargetSpec& t, Frame f) const;
    Located lookForImage(const TargetSpec& t, const std::vector<Template>& variants, Frame f);
    Located findOrDismiss(const TargetSpec& t, double timeout);
    // handleBlockers for a missing `sought` target: a blocker found is left alone when the
    // sought target has appeared meanwhile (looked for once more first); `*found` then
    // receives it and "" is returned.
    std::string handleBlockersFor(const std::string& context, const TargetSpec* sought, Located* found);
    Located relocateIfStale(const TargetSpec& t, Located l, bool& relocated);
    Point pointFor(const TargetSpec& t) const;
    StepRecord newStep(const std::string& action, const TargetSpec* t);
    int64_t saveFrame(const Frame& f);
    int64_t commit(StepRecord& s);
    [[noreturn]] void failLocate(StepRecord& s, const TargetSpec& t, const Located& l,
                                 double timeout, const char* verb, const std::string& extra = "");
    // A line whose targets are all missing (`l`, the last look): healed (the healer's match
    // and frame, params["heal"] its record) when healing is on, else failed not_found (with
    // what healing tried and the candidates it rejected).
    Located healOrFail(StepRecord& s, const TargetSpec& t, Located l, double timeout, nlohmann::json* params);
    // The match or point `t` resolves to for an input, with the frame it was seen on.
    Located resolveForInput(StepRecord& s, const TargetSpec& t, double timeout, nlohmann::json& params);
    // Points keyboard input `a` at `window` (focused first, or events when !focus).
    void keyboardTo(InputAction& a, std::optional<uint64_t> window, bool focus);
    // resolveForInput without the window's checks: found (or mapped) on its capture.
    Located resolveOnScreen(StepRecord& s, const TargetSpec& t, double timeout, nlohmann::json& params);

    Device& device_;
    const AssetLibrary& assets_;
    const Locator& locator_;
    ScaleEstimator scales_;
    std::map<std::string, Match> last_seen_;  // target key -> where (box, scale, score) it was last found
    RunLog* log_;
    int64_t run_id_;
    SessionOptions options_;
    int step_counter_ = 0;
    std::vector<std::shared_ptr<Process>> processes_;
    BlockerSet blockers_;
    bool in_blocker_ = false;
    LimitGuard limits_;
    ConfirmMode confirm_ = ConfirmMode::Ask;
    std::shared_ptr<UserChannel> user_ = std::make_shared<TerminalChannel>();
    std::function<void(const StepRecord&)> step_observer_;
    std::function<void(const std::string&)> intent_observer_;
    std::string answer_;
    std::string actor_ = "script";
    std::function<bool()> checkpoint_;
    bool in_checkpoint_ = false;
    std::shared_ptr<Healer> healer_;
    // Records what a person was asked (`action`, `text`) and answered; `wait` asks them.
    std::string personStep(const std::string& action, const std::string& text, nlohmann::json params,
                           const std::function<std::string()>& wait);
    ActionExecutor executor_{*this};
};

/// Sets the session's actor (Session::setActor) for its lifetime, restoring the one before.
class ActorScope {
public:
    ActorScope(Session& s, std::string actor) : s_(s), before_(s.actor()) { s.setActor(std::move(actor)); }
    ~ActorScope() { s_.setActor(before_); }
    ActorScope(const ActorScope&) = delete;
    ActorScope& operator=(const ActorScope&) = delete;

private:
    Session& s_;
    std::string before_;
};

/// The label of a target for messages: `"btn_1"`, `{x=10, y=20}`; with alternatives as a script
/// writes them, `{ "text:OK", alt = { "ok.png" } }`.
std::string describeTarget(const TargetSpec& t);

/// An a11y query as the run log keeps it in a step's params ("query": {role, name, press}), and
/// back (for an actions replay).
nlohmann::json queryJson(const A11yQuery& q);
A11yQuery queryFromJson(const nlohmann::json& j);

}  // namespace eacu
