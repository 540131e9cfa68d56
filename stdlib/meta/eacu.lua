---@meta eacu
-- eacu's Lua API (stdlib/eacu/init.lua, step.lua, highlight.lua): the globals a script sees
-- and the `eacu` table, in LuaCATS annotations for lua-language-server. Editor stubs only:
-- never loaded by eacu (the build does not embed stdlib/meta/). tests/lua/stubs_spec.lua
-- fails when a public function has no stub here or a stub names a function that is gone.
--
-- Every action is a recorded step in the run log. A failure raises an `EacuError` (a failure
-- value: err.code, err.message, err.target, ...) at the script's line; tostring(err) names what
-- was sought, the best score and where, the threshold and the run-log frame.
-- Coordinates are physical pixels, origin top-left; times are seconds.

---The script's arguments: `eacu run task.lua -- a b` gives `arg[1] == "a"` (also `...`);
---`arg[0]` is the script's path.
---@type string[]
arg = {}

------------------------------------------------------------------------------------------------
-- Actions
------------------------------------------------------------------------------------------------

---Finds the target (waiting up to `opts.timeout`) and clicks its input point. Raises when it
---is not found in time (the error names the best candidate and the run-log frame).
---@param target Target
---@param opts? TapOptions `button` (default "left"), `timeout` (seconds; default `settings` find_timeout, 5; dynamic targets: 0, one look)
---@return Match match where it clicked
function tap(target, opts) end

---Finds the target and double clicks it.
---@param target Target
---@param opts? TapOptions
---@return Match
function double_tap(target, opts) end

---Finds the target and holds the button on it for `seconds`.
---@param target Target
---@param seconds? number how long to hold (default 1)
---@param opts? TapOptions
---@return Match
function long_press(target, seconds, opts) end

---Types UTF-8 text (any script, Chinese included) into the focused window; "\n" presses Return.
---Invalid UTF-8 is an error. `opts.secret = true` marks a password or code: typed only where no
---other program can read it (Android: never the ADB keyboard's broadcast) and logged as its length.
---Where the accessibility tree shows a focused text field, it is read back until it holds what was
---typed (`opts.check = false` skips this); a field that does not fails with code "verify_failed".
---@param text string|number
---@param opts? InputOptions
function input(text, opts) end

---Presses a key combo: "ctrl+shift+t", "alt+F4", "Return". Names: ctrl, shift, alt, super,
---enter, esc, tab, space, backspace, delete, home, end, pgup, pgdn, arrows, f1-f35, any X
---keysym name, or one character; an unknown name is an error.
---@param combo string
---@param opts? KeyboardOptions
function key(combo, opts) end

---Turns the mouse wheel: `scroll{dy=, dx=, at=}` or `scroll(dy)`. dy > 0 scrolls down, dx > 0
---right, in wheel clicks.
---@param opts ScrollOptions|integer
function scroll(opts) end

---Presses at `from`, moves to `to` over `seconds`, releases.
---@param from Target
---@param to Target
---@param seconds? number duration of the move (default 0.3)
function drag(from, to, seconds) end

---A drag with named arguments: `swipe{from=, to=, duration=}`.
---@param opts SwipeOptions
function swipe(opts) end

------------------------------------------------------------------------------------------------
-- Looking
------------------------------------------------------------------------------------------------

---The best match of the target; one look unless a timeout is given. With `{window = w}` only
---that window's own pixels are searched (XComposite: also where other windows cover it); the
---Match is in screen pixels.
---@param target Target
---@param timeout? number|LookOptions seconds to keep looking (default 0), or options
---@return Match? match nil when not found
---@return string? reason when not found: the best score and where, the threshold
---@return Match? best when not found: the best candidate (`found == false`)
function locate(target, timeout) end

---Every occurrence of the target, best first (non-maximum suppressed); one look.
---@param target Target not a dynamic target
---@param max? integer|{max?: integer, window?: Window|string|WindowQuery} at most this many (default 100), or options
---@return Match[]
function find_all(target, max) end

---Whether the target is on screen; one look unless a timeout is given.
---@param target Target
---@param timeout? number|LookOptions seconds to keep looking (default 0), or options
---@return boolean found
---@return Match? match when found
function exists(target, timeout) end

---Waits until the target appears; raises when it does not within `timeout`.
---@param target Target
---@param timeout? number|LookOptions seconds (default `settings` find_timeout, 5), or options
---@return Match
function wait(target, timeout) end

---Waits until the target is gone; raises when it is still there after `timeout`.
---@param target Target not a dynamic target
---@param timeout? number|LookOptions seconds (default `settings` find_timeout, 5), or options
function wait_vanish(target, timeout) end

---An assertion: the target must be on screen (waits up to `timeout` for it, and for the screen
---to settle); or `verify(fn [, message [, timeout]])`: `fn()` must return a true value within
---`timeout` (polled; errors inside fn count as false). Raises otherwise.
---@param target Target
---@param timeout? number|LookOptions seconds (default `settings` find_timeout, 5), or options
---@return Match
---@overload fun(condition: fun(): any, message?: string, timeout?: number): any
function verify(target, timeout) end

---Reads the text on screen (or in `region`) with Tesseract; cached per frame.
---@param region? Region where to read (default: the whole screen)
---@param langs? string Tesseract languages (default "eng+chi_sim")
---@return OcrResult
function ocr(region, langs) end

---@return integer width physical pixels
---@return integer height physical pixels
---@return number scale the device scale factor
function screen_size() end

------------------------------------------------------------------------------------------------
-- Run control
------------------------------------------------------------------------------------------------

---A pause the script asks for (actions already wait for the screen to change and settle).
---@param seconds number
function sleep(seconds) end

---Records the screen in the run log, and writes a PNG when a path is given.
---@param path? string
---@return integer frame_id the frame's id in the run log
function screenshot(path) end

---Starts a program: an argv table `{"zenity", "--entry"}`, or a command line run by /bin/sh.
---Every launched program is stopped when the run ends.
---@param cmd string|string[]
---@return Process
function launch(cmd) end

---Sets the timing of waits for the rest of the run (fields left out keep their value).
---@param opts Settings
function settings(opts) end

---Reads or sets the run's limits (defaults 80 actions and 480 s, or --max-actions/--max-time;
---0 = none). An action past a limit raises.
---@param l? LimitsOptions
---@return Limits
function limits(l) end

---Asks on the terminal before something risky; without a terminal refuses (EACU_CONFIRM=yes
---allows, no refuses).
---@param what string what is about to happen
---@return boolean ok
---@return string? reason when refused
function confirm(what) end

---Shows `text` to the person the run works for and waits for their answer: on a terminal, a
---line typed (in a service, the chat's reply). Without anyone to ask it fails closed, as
---`confirm` does: raises an `EacuError` with code "blocked". Recorded as an "ask_user" step.
---@param text string what to show (a question, or what the person should do first)
---@return string answer the line the person typed ("" is an answer)
function ask_user(text) end

---Whether the run may open `url` (seed 001 §9; app modules call it before opening one):
---EACU_BLOCK_DOMAINS and EACU_ALLOW_DOMAINS, comma-separated domains matched with their
---subdomains; block wins; no allow list = all allowed. A URL without a host (file:, about:)
---opens no web site and is allowed. Refused: raises an `EacuError` with code "refused" naming
---the domain and the list (recorded as a failed "open_url" step).
---@param url string
---@return true
function check_url(url) end

---Opens `url` in the page of a browser device (`--device chromium`, `--device cdp:http://HOST:PORT`)
---and waits for its load event (a recorded "open_url" step). check_url's domain lists apply
---first: refused, it raises an `EacuError` with code "refused" before any request. The page's
---own navigations (links) pass the same lists; a refused one fails the step that caused it or
---the next. On a device with no page (an X11 screen) it raises code "invalid": use the browser
---app module there (`require("browser").open(url)`). On an Android device (--device adb) the
---system opens it with the app it chooses (no load wait).
---@param url string
---@param timeout? number seconds for the load (default 30)
---@return true
function open_url(url, timeout) end

---The URL of the browser device's page (a recorded "current_url" step).
---@return string url
function current_url() end

---Starts the app `package` ("com.example.chat") on a device with installed apps (--device adb:
---its launcher activity), a recorded "launch_app" step. Raises code "invalid" on other
---devices, "device" for a package that is not installed. `launch(package)` does the same there.
---@param package string
---@return true
function launch_app(package) end

---Stops the app `package` (Android: am force-stop), a recorded "stop_app" step.
---@param package string
---@return true
function stop_app(package) end

---The app in front on a device with installed apps: "package/activity" ("" when none) and its
---package (a recorded "current_app" step).
---@return string activity
---@return string package
function current_app() end

---A short-lived outline on the real screen around a Match, a box or a target (located first,
---one look), without blocking (X11; in `eacu run` scripts it needs the host to register
---eacu._highlight, which `eacu repl` does).
---@generic T: Match|Box|Target
---@param what T
---@param seconds? number how long it stays (default 1.5)
---@param colour? integer 0xRRGGBB (default 0xff2d55)
---@return T what
function highlight(what, seconds, colour) end

------------------------------------------------------------------------------------------------
-- Steps that do not flake (stdlib/eacu/step.lua)
------------------------------------------------------------------------------------------------

---One action with verify, success, fallback, retry, timeout, waits, optional and risky around
---it (see StepSpec). A failure raises `step <name>: <reason> (suggestion: retry|dismiss|replan|abort)`
---unless `optional = true`, which returns the result with `ok == false`.
---@param spec StepSpec
---@return StepResult
function step(spec) end

---Registers something that may pop up and cover targets. Before a locate gives up, each
---blocker is looked for and, when present, handled: the handler is called with its Match, or
---the dismiss target is tapped, or the key pressed (default Escape); then the locate goes on.
---@param name string the blocker's name, also the asset showing it unless `target` is given
---@param how? BlockerOptions|fun(m: Match) options, or the handler
function on_blocker(name, how) end

---@param name string
---@return boolean removed whether it was registered
function remove_blocker(name) end

---Waits for the screen (or `region`) to change by more than `threshold` of its pixels, then
---to settle. Raises when nothing changed in time.
---@param region? Region (default: the whole screen)
---@param timeout? number seconds (default `settings` find_timeout, 5)
---@param threshold? number fraction of pixels, 0..1 (default 0.02)
---@return Settle
function wait_change(region, timeout, threshold) end

---Waits until the screen stands still; raises when it kept changing.
---@param timeout? number seconds (default `settings` settle_timeout, 5)
---@return Settle
function wait_stable(timeout) end

---Runs a task template of an app module (see `eacu.apps.run_template`).
---@param qualified string "app.template", e.g. "calculator.compute"
---@param params? table<string, any>
---@return any ... what the template returns
function run_template(qualified, params) end

------------------------------------------------------------------------------------------------
-- Model-driven steps (stdlib/eacu/model.lua; see model.lua beside this file)
------------------------------------------------------------------------------------------------

---Asks the model a question about the current screen.
---@param question string
---@param opts? AskOptions
---@return any answer the text, or with `json = true` the decoded JSON value
---@return string? text with `json = true`: the raw answer
function ask(question, opts) end

---The model plans the task's steps from the screen and they run (replanned on failure).
---@param task string
---@param opts? PlanOptions
---@return PlanResult
function plan(task, opts) end

---The autopilot: the model drives, one action at a time, until it says done: Set-of-Marks
---(default), or with `protocol = "computer"` the computer tool (seed 003). Every action goes
---through the run's one action path, so its limits hold.
---@param task string
---@param opts? AutopilotOptions
---@return AutopilotResult
function autopilot(task, opts) end

---The former name of `autopilot` ("agent" now names only the device agent, eacu-agent.exe).
---@deprecated
---@param task string
---@param opts? AutopilotOptions
---@return AutopilotResult
function agent(task, opts) end

---One action of a batch: exactly one of tap, double_tap, long_press (a target), input (text)
---or key (a combo); `button` for the pointer ones, `seconds` for long_press.
---@class BatchAction
---@field tap? Target
---@field double_tap? Target
---@field long_press? Target
---@field input? string
---@field key? string
---@field button? "left"|"right"|"middle"
---@field seconds? number

---What a batch did (times in milliseconds).
---@class BatchResult
---@field actions integer actions sent
---@field locate_ms number finding every target on one frame
---@field ms number the whole batch, its settle included
---@field settle_ms number the settle after the last action
---@field changed boolean whether the screen changed
---@field matches Match[] where each pointer action's target was found, in order

---Runs actions as one batch: all targets found on one capture (up to `opts.timeout`, default
---5 s, for all to be there at once), the inputs sent back to back with no capture, effect wait
---or settle between them, one settle at the end. Each action is its own step. A missing target
---fails before anything is sent; a failure while sending stops the batch and names the action.
---@param actions BatchAction[] e.g. `{ {tap = "1"}, {tap = "+"}, {input = "hi"}, {key = "Return"} }`
---@param opts? {timeout?: number}
---@return BatchResult
function batch(actions, opts) end

---The Set-of-Marks elements of the current screen (`print(som())` shows the list).
---@return SomResult
function som() end

------------------------------------------------------------------------------------------------
-- The eacu table: every global above, and more
------------------------------------------------------------------------------------------------

---@class eacu
eacu = {}

eacu.tap = tap
eacu.double_tap = double_tap
eacu.long_press = long_press
eacu.batch = batch
eacu.input = input
eacu.key = key
eacu.scroll = scroll
eacu.drag = drag
eacu.swipe = swipe
eacu.locate = locate
eacu.find_all = find_all
eacu.exists = exists
eacu.wait = wait
eacu.wait_vanish = wait_vanish
eacu.verify = verify
eacu.ocr = ocr
eacu.screen_size = screen_size
eacu.sleep = sleep
eacu.screenshot = screenshot
eacu.launch = launch
eacu.settings = settings
eacu.limits = limits
eacu.confirm = confirm
eacu.ask_user = ask_user
eacu.check_url = check_url
eacu.open_url = open_url
eacu.current_url = current_url
eacu.launch_app = launch_app
eacu.stop_app = stop_app
eacu.current_app = current_app
eacu.highlight = highlight
eacu.step = step
eacu.on_blocker = on_blocker
eacu.remove_blocker = remove_blocker
eacu.wait_change = wait_change
eacu.wait_stable = wait_stable
eacu.run_template = run_template
eacu.ask = ask
eacu.plan = plan
eacu.autopilot = autopilot
eacu.agent = agent
eacu.som = som

---Model configuration and the dynamic-target functions (`require "eacu.model"`).
---@type eacu.model
eacu.model = {}

---Failure values: what a failed action raises (`require "eacu.failure"`).
---@type eacu.failure
eacu.failure = {}

---App modules and templates (`require "eacu.apps"`).
---@type eacu.apps
eacu.apps = {}

---What a target string names; raises, listing everything tried, when it names nothing.
---@param target Target an image target (asset name, alias, path, or ImageTarget)
---@return ResolvedTarget
function eacu.resolve(target) end

---Every asset name known, qualified ("calculator.btn_1"), sorted.
---@return string[]
function eacu.assets() end

---@return RunInfo
function eacu.run_info() end

---The best app module and template for a task sentence (see `eacu.apps.route`).
---@param task string
---@return Route
function eacu.route(task) end

---Installs the DSL functions as globals of `env` and sets `env.eacu`. The host does this for
---every script; call it for an environment of your own (setfenv).
---@param env table
function eacu.install(env) end

return eacu
