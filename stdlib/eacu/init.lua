-- eacu: the public Lua API (the DSL) over the private native module eacu._native.
-- Every action is a recorded step; failures are Lua errors that name the target, the best
-- score and where, the threshold and the run-log frame: failure values (eacu.failure) with
-- err.code ("not_found", ...), err.best and err.frame_id, printing as the message.
local native = require("eacu._native")
local match = require("eacu.match")
local target = require("eacu.target")
local model = require("eacu.model")
local failure = require("eacu.failure")
local windows = require("eacu.windows")
local a11y = require("eacu.a11y")

local M = {}

-- A dynamic (model) target with window options: an error (the model sees the whole screen).
local function no_window(fname, t, opts, level)
  if (type(opts) == "table" and opts.window ~= nil) or (type(t) == "table" and t.window ~= nil) then
    error(fname .. ": a dynamic (model) target searches the whole screen, not {window=}", level or 3)
  end
end

-- A looking verb's second argument: a timeout, or {timeout=, window=} -> the options table
-- ({timeout=} for a number). A dynamic (model) target is looked for on the whole screen: with a
-- window it is an error.
local function split_opts(fname, t, arg)
  if model.is_dynamic(t) then no_window(fname, t, arg, 4) end
  if type(arg) ~= "table" then return { timeout = arg } end
  return arg
end

local function check_timeout(fname, t)
  if t ~= nil and (type(t) ~= "number" or t < 0) then
    error(string.format("%s: timeout must be a number of seconds >= 0, got %s", fname, tostring(t)), 3)
  end
  return t
end

--- tap(target [, opts]) -> Match. Finds the target (waiting up to opts.timeout seconds, default
--- 5) and clicks its centre (plus offset). opts: button ("left"|"right"|"middle"), timeout,
--- and (here or in the target table) the window options of every verb: window = a window or
--- a query as window() takes (the target is looked for in that window's own pixels, and an
--- input refused when another window covers it), raise = true (focus and raise it first),
--- focus = false (send the click to the window as events, without focusing it).
--- Every verb's per-call options (timeout, button, max) may also be given in the target table,
--- with the same effect (eacu.target: different values in both places are an error).
function M.tap(t, opts)
  if model.is_dynamic(t) then no_window("tap", t, opts); local m = model.tap(t, opts); return m end
  local n, o = target.normalize(t, "tap", opts)
  return match.wrap(failure.call(2, native.tap, n, o))
end

--- double_tap(target [, opts]) -> Match.
function M.double_tap(t, opts)
  if model.is_dynamic(t) then no_window("double_tap", t, opts); local m = model.double_tap(t, opts); return m end
  local n, o = target.normalize(t, "double_tap", opts)
  return match.wrap(failure.call(2, native.tap, n,
    { button = o.button, timeout = o.timeout, count = 2, action = "double_tap" }))
end

--- long_press(target [, seconds=1 [, opts]]) -> Match. Holds the button for `seconds`.
function M.long_press(t, seconds, opts)
  if model.is_dynamic(t) then no_window("long_press", t, opts); local m = model.long_press(t, seconds, opts); return m end
  seconds = seconds or 1
  check_timeout("long_press", seconds)
  local n, o = target.normalize(t, "long_press", opts)
  return match.wrap(failure.call(2, native.tap, n,
    { button = o.button, timeout = o.timeout, hold = seconds, action = "long_press" }))
end

-- The window id and focus flag of keyboard input's opts {window=, focus=}.
local function keyboard_opts(fname, opts, fields)
  if opts == nil then return nil, nil end
  if type(opts) ~= "table" then error(fname .. ": expected options {window=, focus=}, got " .. type(opts), 3) end
  target.check_fields(opts, fname, fields or { "window", "focus" }, "option", 3)
  if opts.focus ~= nil and type(opts.focus) ~= "boolean" then
    error(fname .. ": focus must be true or false, got " .. type(opts.focus), 3)
  end
  if opts.window == nil then
    if opts.focus == false then error(fname .. ": focus = false needs a window (window = ...)", 3) end
    return nil, nil
  end
  return windows.id_of(opts.window, fname, 4), opts.focus
end

--- input(text [, {window=, focus=, secret=}]): types UTF-8 text (any script, "\n" presses Return)
--- into the focused window; with `window`, that window is focused first, or with focus = false
--- the keys are sent to it as events without focusing it. secret = true: a password or code,
--- typed only where no other program can read it (on Android never through the ADB keyboard's
--- broadcast: `input text` for ASCII, else an error) and written to the run log as its length.
--- check = false: the focused text field is not read back through the accessibility tree
--- afterwards (by default it is, where there is a tree: a field that does not hold what was
--- typed fails the step with code "verify_failed"; docs/steps-and-waits.md).
function M.input(text, opts)
  if type(text) ~= "string" and type(text) ~= "number" then
    error("input: expected text (a string), got " .. type(text), 2)
  end
  local win, focus = keyboard_opts("input", opts, { "window", "focus", "secret", "check" })
  local secret = opts ~= nil and opts.secret
  if secret ~= nil and type(secret) ~= "boolean" then
    error("input: secret must be true or false, got " .. type(secret), 2)
  end
  local check = nil
  if opts ~= nil then check = opts.check end
  if check ~= nil and type(check) ~= "boolean" then
    error("input: check must be true or false, got " .. type(check), 2)
  end
  failure.call(2, native.input, tostring(text), win, focus, secret == true, check ~= false)
end

--- key(combo [, {window=, focus=}]): presses a key combo such as "ctrl+s", "alt+F4", "Return"
--- (window options as for input).
function M.key(combo, opts)
  if type(combo) ~= "string" then error("key: expected a key combo string, got " .. type(combo), 2) end
  local win, focus = keyboard_opts("key", opts)
  failure.call(2, native.key, combo, win, focus)
end

--- scroll{dy=, dx=, at=target} or scroll(dy): wheel clicks; dy > 0 scrolls down, dx > 0 right.
function M.scroll(opts)
  if type(opts) == "number" then opts = { dy = opts } end
  if type(opts) ~= "table" then error("scroll: expected {dy=, dx=, at=} or a number, got " .. type(opts), 2) end
  target.check_fields(opts, "scroll", target.SCROLL_FIELDS, "field", 2)
  local at = opts.at ~= nil and (target.normalize(opts.at, "scroll", opts)) or nil
  failure.call(2, native.scroll, opts.dx or 0, opts.dy or 0, at)
end

--- drag(from, to [, seconds=0.3]): presses at `from`, moves to `to`, releases. Either end may
--- be window-bound (a target table with window =).
function M.drag(from, to, seconds)
  failure.call(2, native.drag, (target.normalize(from, "drag")), (target.normalize(to, "drag")), seconds or 0.3)
end

--- swipe{from=, to=, duration=, window=, raise=}: drag with named arguments; the window
--- options apply to both ends.
function M.swipe(opts)
  if type(opts) ~= "table" then error("swipe: expected {from=, to=, duration=}", 2) end
  target.check_fields(opts, "swipe", target.SWIPE_FIELDS, "field", 2)
  failure.call(2, native.drag, (target.normalize(opts.from, "swipe", opts)), (target.normalize(opts.to, "swipe", opts)),
    opts.duration or 0.3)
end

--- locate(target [, timeout=0]) -> Match, or nil and the reason (with the best candidate).
--- locate(target, {timeout=, window=}): `window` (a window, or a query as window() takes)
--- searches only that window's own pixels, also where other windows cover it; the Match is
--- in screen pixels.
function M.locate(t, timeout)
  local opts = split_opts("locate", t, timeout)
  if model.is_dynamic(t) then local m, why, best = model.locate(t, opts.timeout); return m, why, best end
  check_timeout("locate", opts.timeout)
  local n, o = target.normalize(t, "locate", opts)
  local m = match.wrap(failure.call(2, native.locate, n, o.timeout or 0))
  if m.found then return m end
  return nil, string.format("%s not found: best score %.3f at (%d,%d %dx%d), threshold %.2f",
    type(t) == "string" and ('"' .. t .. '"') or "target", m.score, m.x, m.y, m.w, m.h, m.threshold), m
end

--- find_all(target [, max=100 | {max=, window=}]) -> list of Matches, best first (non-maximum
--- suppressed), in screen pixels.
function M.find_all(t, max)
  local opts = type(max) == "table" and max or { max = max }
  local n, o = target.normalize(t, "find_all", opts)
  local all = failure.call(2, native.find_all, n, o.max or 100)
  for _, m in ipairs(all) do match.wrap(m) end
  return all
end

--- exists(target [, timeout=0]) -> boolean, Match|nil. One look by default.
function M.exists(t, timeout)
  local opts = split_opts("exists", t, timeout)
  if model.is_dynamic(t) then local ok, m = model.exists(t, opts.timeout); return ok, m end
  check_timeout("exists", opts.timeout)
  local n, o = target.normalize(t, "exists", opts)
  local m = match.wrap(failure.call(2, native.locate, n, o.timeout or 0))
  if m.found then return true, m end
  return false
end

--- wait(target [, timeout=5]) -> Match; error if it does not appear in time.
function M.wait(t, timeout)
  local opts = split_opts("wait", t, timeout)
  if model.is_dynamic(t) then local m = model.wait(t, opts.timeout, "wait"); return m end
  check_timeout("wait", opts.timeout)
  local n, o = target.normalize(t, "wait", opts)
  return match.wrap(failure.call(2, native.wait, n, o.timeout or -1, "wait"))
end

--- wait_vanish(target [, timeout=5]): error if it is still there after `timeout`.
function M.wait_vanish(t, timeout)
  local opts = split_opts("wait_vanish", t, timeout)
  check_timeout("wait_vanish", opts.timeout)
  local n, o = target.normalize(t, "wait_vanish", opts)
  failure.call(2, native.wait_vanish, n, o.timeout or -1)
end

--- verify(target [, timeout=5]) -> Match: the target must be on screen (waits for it to
--- settle in up to `timeout`). verify(fn [, message [, timeout]]): fn() must return true
--- (else a failure value with code "verify_failed").
function M.verify(t, a, b)
  if type(t) == "function" then
    local message, timeout = a, b or 5
    check_timeout("verify", timeout)
    local deadline = native.now() + timeout
    local ok, res
    repeat
      ok, res = pcall(t)
      if ok and res then return res end
      if native.now() >= deadline then break end
      failure.call(2, native.sleep, 0.05)
    until false
    failure.raise(failure.new { code = "verify_failed", message = "verify: " .. (message or "condition") ..
      " is not true after " .. timeout .. " s" .. (ok and "" or (": " .. tostring(res))) }, 2)
  end
  local opts = split_opts("verify", t, a)
  check_timeout("verify", opts.timeout)
  if model.is_dynamic(t) then local m = model.wait(t, opts.timeout, "verify"); return m end
  local n, o = target.normalize(t, "verify", opts)
  return match.wrap(failure.call(2, native.wait, n, o.timeout or -1, "verify"))
end

--- sleep(seconds): waits (a script-requested pause; actions already wait for the screen).
function M.sleep(seconds)
  if type(seconds) ~= "number" then error("sleep: expected seconds, got " .. type(seconds), 2) end
  failure.call(2, native.sleep, seconds)
end

--- screenshot([path]) -> frame id in the run log; also writes a PNG when a path is given.
function M.screenshot(path)
  return failure.call(2, native.screenshot, path)
end

--- launch(cmd) -> Process. cmd: an argv table {"zenity", "--entry"} or a command line run by
--- /bin/sh. The handle has :wait([timeout]), :read([timeout]), :read_line([timeout]),
--- :stop(), :running(), :pid(). Launched programs are stopped when the run ends.
--- On an Android device (--device adb) cmd is an app's package ("com.example.chat"): it is
--- started (launch_app) and {package = cmd} returned.
function M.launch(cmd)
  local steps_lua = require("eacu.step")
  if type(cmd) == "string" and steps_lua.has_apps() then
    steps_lua.launch_app(cmd)
    return { package = cmd }
  end
  local argv
  if type(cmd) == "string" then
    argv = { "/bin/sh", "-c", "exec " .. cmd }
  elseif type(cmd) == "table" then
    argv = cmd
  else
    error("launch: expected a command string or an argv table, got " .. type(cmd), 2)
  end
  return failure.call(2, native.launch, argv)
end

--- ocr([region [, langs="eng+chi_sim"]]) -> {text, lines = {{text, x, y, w, h, confidence,
--- words = {{text, x, y, w, h, confidence}}}}, ms}: the text on screen (or in region {x, y,
--- w, h}: pixels, or fractions), read by Tesseract; cached per frame.
function M.ocr(region, langs)
  if region ~= nil and type(region) ~= "table" then
    error("ocr: expected a region {x, y, w, h} or nothing, got " .. type(region), 2)
  end
  return failure.call(2, native.ocr, region, langs)
end

--- screen_size() -> width, height (physical pixels), device scale factor.
function M.screen_size() return failure.call(2, native.screen_size) end

--- settings{find_timeout=, poll_interval=, effect_timeout=, settle_interval=, settle_timeout=}
function M.settings(opts) failure.call(2, native.set_options, opts) end

--- resolve(target) -> what a target string names: {name, path, threshold, offset, scale, w, h}.
function M.resolve(t) return failure.call(2, native.resolve, (target.normalize(t, "resolve"))) end

--- assets() -> every asset name known (qualified: "calculator.btn_1").
function M.assets() return failure.call(2, native.assets) end

--- run_info() -> {run_id, db, device, script_dir}
function M.run_info() return failure.call(2, native.run_info) end

--- highlight(match [, seconds=1.5 [, colour]]): a short-lived outline on the real screen around
--- a Match, a box or a target (X11; see eacu.highlight).
M.highlight = require("eacu.highlight")

--- Model-driven steps (eacu.model): ask(question [, {json=true}]), plan(task), autopilot(task)
--- (agent(task), its former name),
--- som(); eacu.model.config{...} and eacu.model.info().
M.ask, M.plan, M.autopilot, M.agent, M.som = model.ask, model.plan, model.autopilot, model.agent, model.som
M.model = model

--- Steps that do not flake (eacu.step): step{...}, on_blocker, remove_blocker, wait_change,
--- wait_stable, limits, confirm, ask_user, check_url; app modules and templates (eacu.apps): run_template, route.
local stepmod = require("eacu.step")
local apps = require("eacu.apps")
M.step, M.on_blocker, M.remove_blocker = stepmod.step, stepmod.on_blocker, stepmod.remove_blocker
M.wait_change, M.wait_stable, M.limits, M.confirm = stepmod.wait_change, stepmod.wait_stable, stepmod.limits, stepmod.confirm
M.ask_user, M.check_url = stepmod.ask_user, stepmod.check_url
M.open_url, M.current_url = stepmod.open_url, stepmod.current_url
M.launch_app, M.stop_app, M.current_app = stepmod.launch_app, stepmod.stop_app, stepmod.current_app
M.run_template, M.route, M.apps = apps.run_template, apps.route, apps
M.failure = failure

--- Windows of the screen (eacu.windows): windows(), window(query), frontmost().
M.windows, M.window, M.frontmost = windows.windows, windows.window, windows.frontmost
--- Batched steps (eacu.batch): batch{ {tap = T}, {input = "text"}, ... }.
M.batch = require("eacu.batch").batch

--- The accessibility tree (eacu.a11y): a11y([window]), set_text{name=, text=}.
M.a11y, M.set_text = a11y.a11y, a11y.set_text

--- A device agent's clipboard and programs (eacu.remote): clipboard([text]), remote_launch(cmd).
M.clipboard, M.remote_launch = require("eacu.remote").clipboard, require("eacu.remote").remote_launch

local globals = {
  "tap", "double_tap", "long_press", "input", "key", "scroll", "drag", "swipe", "locate",
  "find_all", "exists", "wait", "wait_vanish", "verify", "sleep", "screenshot", "launch",
  "screen_size", "settings", "ocr", "highlight", "ask", "plan", "autopilot", "agent", "som",
  "step", "on_blocker", "remove_blocker", "wait_change", "wait_stable", "limits", "confirm", "ask_user",
  "check_url", "run_template", "windows", "window", "frontmost", "a11y", "set_text",
  "open_url", "current_url", "batch", "launch_app", "stop_app", "current_app", "clipboard", "remote_launch",
}

--- Installs the DSL functions as globals of `env` (the script environment).
function M.install(env)
  for _, name in ipairs(globals) do env[name] = M[name] end
  env.eacu = M
end

return M
