// Writing a runnable Lua script from what was done: the actions of a person (eacu record) or
// the steps of a recorded run (eacu script), each pointer action's target proven on the
// screen as it was just before it (recorder/TargetProof.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "recorder/RecordedActions.h"
#include "recorder/ScreenHistory.h"
#include "recorder/TargetProof.h"
#include "vision/Locator.h"

namespace eacu {

/// One line's worth of work: an action and the screen just before it (null for keyboard
/// actions, which need none). `target`, when set, is a target already known (a script's own
/// step): it is written as it is instead of one proven on the screen; `comment` says whose
/// step it was ("the script's step 4").
/// `launch`: a program to start (the action is ignored).
struct ScriptItem {
    UserAction action;
    std::shared_ptr<const ScreenState> before;
    std::shared_ptr<const OcrResult> band;  // the OCR band around action.at read ahead, or null
    // The screen before the pointer set off towards action.at (ProofOptions::approach), or null.
    std::shared_ptr<const ScreenState> approach;
    std::string target;
    std::string comment;
    std::string launch;
    /// Every target proven for action.at on `before`'s very frame already (proveTargets with
    /// the script's assets_ref; eacu studio proves the point the pointer rests on ahead), or
    /// null: proven now. Image files are named after the line as if proven now.
    std::shared_ptr<const std::vector<ProvenTarget>> proven;
    /// False when `before`'s frame is not known to be the screen acted on (eacu studio: the
    /// frame the page showed is no longer kept): no image or text target is proven on it, only
    /// its tree's element, and `comment` says why.
    bool pixels = true;
    /// False when `before`'s tree was read while the screen changed (eacu studio): no tree
    /// target is taken from it; the name of its element under the point still decides what a
    /// text reading like that name writes (ProofOptions::name_tree).
    bool tree_targets = true;
};

/// `assets_dir`: the folder image crops are saved in (created when needed); `assets_ref`: how
/// the script names it (relative to the script's folder); `header`: comment lines written
/// first (without "-- "); `wait_after_s`: a pointer action that came more than this many
/// seconds after the one before (or the first after a launch) is written after a `wait` on its
/// target with twice that gap (at least 10 s) as timeout. `first_index`: the number the
/// first item's files are named with (`tap_<n>.png`; the studio writes one line at a time).
struct ScriptOptions {
    std::string assets_dir;
    std::string assets_ref = "assets";
    std::vector<std::string> header;
    double wait_after_s = 4.0;
    int first_index = 1;
    /// Leave each line's `_frame.json` (what healing keeps: a whole-frame OCR reading, 0.3-1.6 s
    /// on a 1280x800 frame on the 2-core machine) to the caller, in WrittenScript::evidence, to
    /// write with writeDeferredEvidence once the line is shown (the studio: a line is proven
    /// when its targets are, not when healing's reading of its screen is done).
    bool defer_evidence = false;
};

/// A line's screen as healing keeps it, not yet written: `path` (<action>_<n>_frame.json), the
/// screen the targets were proven on, whether its tree is the line's, and the targets.
struct DeferredEvidence {
    std::string path;
    std::shared_ptr<const ScreenState> screen;
    bool with_tree = false;
    std::vector<ProvenTarget> targets;
};

/// The script and what it took: how many targets of each kind, the proof time of each pointer
/// action (milliseconds), the image files written.
struct WrittenScript {
    std::string lua;
    int a11y = 0, relative = 0, text = 0, image = 0, points = 0, known = 0;
    int alternatives = 0;  // targets written as a line's alternatives (alt = { ... })
    /// One full-frame locate (the replay's first look: the expected scale, no other hint) of
    /// the first image crop written, on the screen it was proven on, milliseconds: the floor a
    /// proof's time is compared with (0 when no crop was written).
    double locate_ms = 0;
    std::vector<double> proof_ms;
    std::vector<std::string> images;
    /// Every file the lines own: their crops, the frames they were proven on and those frames'
    /// `_frame.json` (written, or left to write with ScriptOptions::defer_evidence).
    std::vector<std::string> files;
    std::vector<DeferredEvidence> evidence;  // with ScriptOptions::defer_evidence only
};

/// Writes the items as Lua: `launch "CMD"`; `tap(T)`, `tap(T, { button = "right" })`,
/// `double_tap(T)`, `long_press(T, S)`, `drag(A, B, S)`, `scroll { dy = N, at = T }`;
/// `input "..."` for typed text, `key "combo"` for keys. A pointer action's target is every
/// target proven for it (proveTargets): one alone as it is, several as the first with the
/// others as its alternatives, `{ FIRST, alt = { SECOND, ... } }` (docs/targets.md,
/// "Alternatives"); the screen they were proven on is saved beside the crops as
/// `<action>_<n>_frame.jpg` and named in the comment, with what healing keeps of it beside it
/// (`<action>_<n>_frame.json`, writeFrameEvidence: the OCR words in and around the line's crop,
/// read from the frame now or from OcrCache, and the tree's neighbours). Every line ends in a comment saying
/// why its target was chosen (or whose step it was). No sleep is written: a tap looks for its
/// target (5 s), and a `wait` on the next target is written before an action the person
/// reached only after a while. Throws std::runtime_error when an image cannot be saved.
WrittenScript writeScript(const std::vector<ScriptItem>& items, const Locator& locator, const ScriptOptions& o);

/// Writes a line's `_frame.json` that writeScript left (ScriptOptions::defer_evidence): the OCR
/// words in and around its crop (a whole-frame reading, from OcrCache when the frame was read)
/// and its tree's neighbours. Throws std::runtime_error when the file cannot be written.
void writeDeferredEvidence(const DeferredEvidence& e);

}  // namespace eacu
