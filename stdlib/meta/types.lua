---@meta _
-- The value types of eacu's Lua API (targets, matches, processes, results and options), in
-- LuaCATS annotations for lua-language-server. Editor stubs only: never loaded by eacu (the
-- build does not embed stdlib/meta/); tests/lua/stubs_spec.lua checks them against the live API.
-- Coordinates are physical pixels of the captured frame, origin top-left; times are seconds
-- unless a name ends in `ms`.

------------------------------------------------------------------------------------------------
-- Targets
------------------------------------------------------------------------------------------------

---What an action acts on or a lookup looks for:
---- `"btn_1"`, `"calculator.btn_1"`, `"×"`: an asset name, a qualified name (`app.name`) or an
---  alias from an asset index; then `"images/ok.png"` / `"images/ok"`: an image file relative
---  to the script's folder, then to the working directory;
---- `"text:Library Reference"`: a phrase read on screen by OCR;
---- `"a11y:OK"` or an `A11yTarget` (`{role="push button", name="OK", press=}`): an element of
---  the accessibility tree (stdlib/meta/a11y.lua);
---- an `ImageTarget` (`{image=..., threshold=, region=, offset=}` or `{"name", ...}`);
---- a `TextTarget` (`{text=..., threshold=, region=, lang=}`);
---- a `PointTarget` (`{x=, y=}`: pixels, or fractions of the screen in 0..1);
---- a `Match`: the point it found (`cx`, `cy`);
---- a `DynamicTarget` (`{dynamic="the blue Send button"}`): found by the vision model; only
---  tap, double_tap, long_press, locate, exists, wait and verify take it.
---A target table's fields are checked: a field it does not know is an error naming it and the
---known ones. A positional string means what it means alone: `{"text:OK"}` is `"text:OK"`,
---`{"a11y:OK"}` is `"a11y:OK"`. The verb's per-call options (`CallOptions`) may be given in the
---target table too, with the same effect; given in both places with different values: an error.
---- `AltTarget` (`{ T, alt = { A, B } }`, or `alt =` in any target table but a point's): the
---  target and its alternatives, the first found wins (docs/targets.md, "Alternatives").
---@alias Target string|ImageTarget|TextTarget|PointTarget|Match|DynamicTarget|A11yTarget|RelativeTarget|AltTarget

---A target with alternatives: other targets for the same element (an accessibility element, a
---phrase, an image crop...), as `eacu record` writes every target it proved for an action.
---Within the verb's one timeout each look tries the first target, then each alternative in
---order, once; the first found wins, and a step found by an alternative is logged with method
---`alt:<kind>` (`alt:text`, `alt:image`, `alt:a11y`, `alt:relative`). A miss (code
---`not_found`) lists every target tried and what it came closest to. No alternative may be a
---point or a Match (always "found"), nor have alternatives of its own. `alt` may also be given
---in a target table beside its fields: `{ text = "OK", alt = { "ok.png" } }`.
---@class AltTarget: CallOptions
---@field [1] Target the first target (a string, or a target table)
---@field alt Target[] the alternatives, tried in order
---@field label? string how errors and the run log name the target

---A region to search or read: `{x, y, w, h}` or `{x=, y=, w=, h=}`: physical pixels, or
---fractions of the screen when all four lie in 0..1 and one is fractional. Clipped to the
---screen; a region off the screen is an error.
---@alias Region number[]|{x: number, y: number, w: number, h: number}

---A box in physical pixels (a Match is one too).
---@class Box
---@field x integer left edge, pixels
---@field y integer top edge, pixels
---@field w integer width, pixels
---@field h integer height, pixels

---Where a target is looked for and how an input reaches it (every verb; in the target table
---or the verb's options).
---@class WindowOptions
---@field window? Window|string|WindowQuery look only in this window's own pixels (XComposite, also where covered); an input refused (code "covered") when another window covers the point
---@field raise? boolean focus and raise the window first (restoring it when minimized)
---@field focus? boolean false: send the input to the window as events (X11 XSendEvent) without focusing it; taps, double taps, input and key only; Xaw and Tk take clicks, GTK3 and xterm ignore them

---The per-call options a verb takes in its options argument, also accepted in its target table
---(`tap { text = "OK", timeout = 1 }`): `timeout` (tap, double_tap, long_press, locate, exists,
---wait, wait_vanish, verify), `button` (tap, double_tap, long_press), `max` (find_all). Not in a
---step{}'s targets (the step's own timeout and button apply) nor in drag, swipe and scroll ends.
---@class CallOptions
---@field timeout? number seconds to look for the target
---@field button? "left"|"right"|"middle" the mouse button
---@field max? integer find_all: how many matches at most

---An image target with settings.
---@class ImageTarget: WindowOptions, CallOptions
---@field image? string asset name, qualified name, alias or image path (or give it as `[1]`)
---@field [1] string? the same as `image`; `"text:..."` and `"a11y:..."` mean a text or accessibility target, as alone
---@field threshold? number raw score a match needs, 0..1 (default: the asset's, else 0.7)
---@field region? Region where to search (default: the whole screen)
---@field offset? integer[]|{x: integer, y: integer} `{dx, dy}`: the input point relative to the match centre, pixels (default: the asset's)
---@field label? string how errors and the run log name the target

---A phrase read on screen by OCR (Tesseract), exact or fuzzy, folding case and fullwidth forms.
---@class TextTarget: WindowOptions, CallOptions
---@field text string the phrase
---@field threshold? number similarity a reading needs, 0..1 (default 0.8)
---@field region? Region where to read (default: the whole screen)
---@field lang? string Tesseract languages: "eng", "chi_sim", "eng+chi_sim" (default: chosen from the phrase)
---@field label? string how errors and the run log name the target

---A point on the screen: physical pixels, or fractions of the screen when both lie in 0..1
---(and one is fractional).
---@class PointTarget: WindowOptions, CallOptions
---@field x number
---@field y number
---@field label? string how errors and the run log name the target

---A relative target (issue 14; SikuliX regions, Maestro's rightOf/below): the element in one
---relation to where its anchor (any target) is found, among the frame's Set-of-Marks control
---proposals and OCR lines; by default the nearest on the anchor's row (right_of/left_of) or
---column (above/below). Give one relation. A miss is an error (code not_found) naming the
---anchor's box and each candidate rejected, with why.
---@class RelativeTarget: CallOptions
---@field right_of? Target the element right of this one, on its row
---@field left_of? Target left of it, on its row
---@field above? Target above it, in its column
---@field below? Target below it, in its column
---@field near? Target nearest to it (centre distance)
---@field inside? Target inside its box, in reading order
---@field kind? "field"|"button"|"checkbox"|"text"|"image"|"any" what to take (default "any")
---@field nth? integer the nth nearest (1-based, default 1)

---An element described in words, found by the vision model (Set-of-Marks element id or a
---0-1000 box). Configure the model with the environment or `eacu.model.config{}`.
---@class DynamicTarget
---@field dynamic string the description, e.g. "the blue Send button"
---@field timeout? number seconds to keep asking while the model says it is not there (default 0: one look; wait/verify 5)
---@field provider? string which provider of the fallback chain to ask (default: the configured order)

------------------------------------------------------------------------------------------------
-- Errors
------------------------------------------------------------------------------------------------

---What a failed action raises (catch it with `pcall`): a failure value (`eacu.failure`).
---`tostring(err)` is the message `eacu run` prints, at the script's line: what was sought, why
---it failed, the best score and where, the threshold, and the run-log frame, e.g.
---`script.lua:3: tap "calculator.display_5": not found within 0.5 s: best score 0.42 (colour 0.40) at (197,12 8x11), threshold 0.95; frame 3 of run 7 in runs.db`.
---A failed `step{}` raises one printing `step <name>: <reason> (suggestion: retry|dismiss|replan|abort)`.
---String methods and `..` work on that text; tell failures apart by `err.code`. Argument errors
---(a bad target, an unknown key) stay strings.
---@class EacuError
---@field code "not_found"|"no_effect"|"verify_failed"|"limit"|"timeout"|"cancelled"|"blocked"|"refused"|"invalid"|"covered"|"device"|"model"|"failed" why it failed
---@field message string the message, without the script position
---@field target? string the target's label, when the failure has one
---@field best? Match the best candidate seen, when there was one
---@field frame_id? integer the run-log frame the failure was decided on
---@field step_id? integer the run-log step that failed
---@field where? string the script position it was raised at ("script.lua:3: "), "" when none

------------------------------------------------------------------------------------------------
-- Match
------------------------------------------------------------------------------------------------

---Where a target was found (or, with `found == false`, the best candidate). `tostring(m)` prints
---it: `Match{found box=(186,68 32x18) at=(202,77) score=1.000 ...}`.
---@class Match: Box
---@field found boolean the scores reached `threshold` and no confirm vetoed it
---@field x integer left edge of the box, physical pixels
---@field y integer top edge of the box, physical pixels
---@field w integer box width, physical pixels
---@field h integer box height, physical pixels
---@field cx integer input point x: the box centre plus the target's offset, physical pixels
---@field cy integer input point y: the box centre plus the target's offset, physical pixels
---@field score number raw grey normalized cross-correlation in [-1, 1], never rescaled (OCR: text similarity; model and point targets: 1 or 0)
---@field color_score number colour agreement (CIE a*b* chroma in SSIM's form): 1 = same colours
---@field threshold number the score the match needed, 0..1
---@field method string how it was found: "last_seen", "expected_scale", "multi_scale", "features", "template", "ocr", "point", "model-element", "model-box", "model"
---@field scale number the template scale used (1 = as captured)
---@field ms number wall time of the search, milliseconds
---@field veto? string why a candidate whose scores reached the threshold was rejected (the text confirm)
---@field element_id? integer the Set-of-Marks element the model chose (dynamic targets)
---@field reason? string the model's reason when it did not find the element (dynamic targets)
---@field from_cache? boolean the model's answer came from the model cache (dynamic targets)
local Match = {}

---The input point.
---@return integer cx physical pixels
---@return integer cy physical pixels
function Match:center() end

------------------------------------------------------------------------------------------------
-- Process
------------------------------------------------------------------------------------------------

---A program started by `launch`. Every launched program is stopped when the run ends.
---`tostring(p)` gives `Process(xcalc, pid 1234)`.
---@class Process
local Process = {}

---Waits for the program to exit.
---@param timeout? number seconds; nil or < 0 waits forever
---@return integer? code the exit code, or nil on timeout
function Process:wait(timeout) end

---Reads the program's standard output until it closes or `timeout` passes.
---@param timeout? number seconds (default 10)
---@return string output everything read
function Process:read(timeout) end

---Reads one line of standard output.
---@param timeout? number seconds (default 10)
---@return string? line the line without "\n", or nil at the end or on timeout
function Process:read_line(timeout) end

---Stops the program: SIGTERM, then SIGKILL after `grace` seconds.
---@param grace? number seconds (default 2)
function Process:stop(grace) end

---@return boolean running whether the program is still running
function Process:running() end

---@return integer pid the process id
function Process:pid() end

------------------------------------------------------------------------------------------------
-- Results and options of the actions
------------------------------------------------------------------------------------------------

---Options of a looking verb (locate, exists, wait, wait_vanish, verify) in place of its timeout.
---@class LookOptions: WindowOptions
---@field timeout? number seconds to keep looking

---Options of input and key.
---@class KeyboardOptions
---@field window? Window|string|WindowQuery type into this window: focused first, or sent as events with focus = false
---@field focus? boolean false: send the keys to the window as events without focusing it (Xaw takes them; GTK3, Tk and xterm ignore them)

---Options of input: KeyboardOptions and `secret`.
---@class InputOptions: KeyboardOptions
---@field secret? boolean a password or code: typed only where no other program can read it (on Android `input text` for ASCII, never the ADB keyboard's broadcast; other text is refused) and written to the run log as "(secret, N characters)"
---@field check? boolean false: the focused text field is not read back afterwards (default true: where the accessibility tree has a focused text field, the step waits until it holds what was typed, up to 10 s within the step's deadline, and fails with code "verify_failed" when it does not; a secret is compared by length only)

---@class TapOptions: WindowOptions
---@field button? "left"|"right"|"middle" (default "left")
---@field timeout? number seconds to find the target (default: `settings` find_timeout, 5)

---@class ScrollOptions: WindowOptions
---@field dy? integer wheel clicks; > 0 scrolls down (default 0)
---@field dx? integer wheel clicks; > 0 scrolls right (default 0)
---@field at? Target where to put the pointer first (default: where it is)

---@class SwipeOptions: WindowOptions
---@field from Target where to press
---@field to Target where to release
---@field duration? number seconds of the move (default 0.3)

---What `ocr()` read; cached per frame.
---@class OcrResult
---@field text string every line, joined by "\n"
---@field lines OcrLine[] the lines, in reading order
---@field ms number time spent reading, milliseconds
---@field langs string the Tesseract languages used ("eng+chi_sim")

---@class OcrLine: Box
---@field text string
---@field confidence number the recogniser's confidence, 0..1 (a line: of its words)
---@field x integer
---@field y integer
---@field w integer
---@field h integer
---@field words OcrWord[]

---@class OcrWord: Box
---@field text string
---@field confidence number the recogniser's confidence, 0..1
---@field x integer
---@field y integer
---@field w integer
---@field h integer

---The timing of waits (`settings{}`); seconds unless said otherwise. Fields left out keep their value.
---@class Settings
---@field find_timeout? number how long tap/wait/verify look for a target by default (5)
---@field poll_interval? number pause between captures while looking or settling (0.03)
---@field effect_timeout? number how long to wait for the screen to change after an action (0.5)
---@field settle_interval? number how long the screen must stay unchanged to count as settled (0.1)
---@field settle_timeout? number the most an action waits for the screen to settle (5)
---@field change_tolerance? integer grey levels a pixel must move to count as changed (15)
---@field noise_ratio? number a change ratio at or below this is noise, not an effect (0.00005)
---@field tap_retries? integer a tap that changed nothing is tried again this many times (2)
---@field jitter? integer pixels off the centre for those retries (3)
---@field cursor_attempts? integer pointer moves read back and corrected before a press (4)
---@field blocker_interval? number while a target is missing, blockers are checked this often (1)

---What a target string names (`eacu.resolve`).
---@class ResolvedTarget
---@field name string the qualified asset name ("calculator.btn_1"), or the path for a plain image
---@field path string the image file
---@field threshold number the score a match needs
---@field offset integer[] `{dx, dy}`: the input point relative to the centre, pixels
---@field scale number the device scale factor the image was captured at
---@field w integer image width, pixels
---@field h integer image height, pixels

---@class RunInfo
---@field run_id integer the run's id in the run log
---@field db string the run log's path ("" when not recording)
---@field device string the device, e.g. "x11 :99 1280x800"
---@field script_dir string the script's folder

---A screen change or stability wait (`wait_change`, `wait_stable`).
---@class Settle
---@field change_ratio number fraction of pixels changed, 0..1
---@field changed boolean the screen changed by more than the threshold
---@field settled boolean the screen then stood still for the settle interval
---@field ms number time waited, milliseconds
---@field frames integer frames captured

---The run's limits and use (`limits()`); 0 means no limit.
---@class Limits
---@field max_actions integer actions allowed in the run (default 80)
---@field max_seconds number seconds allowed for the run (default 480)
---@field actions integer actions done so far
---@field elapsed number seconds since the run started

---@class LimitsOptions
---@field max_actions? integer actions allowed in the run (0: none)
---@field max_seconds? number seconds allowed for the run (0: none)

---How to handle a blocker (`on_blocker(name, opts)`). With none of dismiss, key and handler,
---Escape is pressed.
---@class BlockerOptions
---@field dismiss? Target what to tap to get rid of it
---@field key? string a key combo to press instead ("Escape")
---@field handler? fun(m: Match) called with the blocker's match
---@field kind? "popup"|"dialog"|"permission"|"ad"|"error"|"loading"|"keyboard"|"unknown" (default "popup")
---@field target? Target what shows the blocker is there (default: the asset named `name`)
---@field max? integer how often it may be handled in one run (default 0: no limit)
