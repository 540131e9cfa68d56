-- step{}: one action with seed 002's StepPlan around it (verify, success, fallback, retry,
-- timeout, wait_before/after, optional, risky), run by the native step engine (the table is
-- converted there; Lua functions are called back); blockers (on_blocker), change and stability
-- waits, run limits and confirmation. The summary of each step{} is a "step" row in the run
-- log with the reason and the suggestion (retry, dismiss, replan, abort) when it failed.
local steps = require("eacu._steps")
local target = require("eacu.target")
local match = require("eacu.match")
local failure = require("eacu.failure")

local M = {}

-- Minimal JSON for run-log params (strings, numbers, booleans, arrays, objects).
local function json(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" or t == "number" then
    if t == "number" and (v ~= v or v == math.huge or v == -math.huge) then return "null" end
    return tostring(v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      local map = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
      return map[c] or string.format("\\u%04x", c:byte())
    end) .. '"'
  end
  if t == "table" then
    if #v > 0 or next(v) == nil then
      local out = {}
      for i = 1, #v do out[i] = json(v[i]) end
      return "[" .. table.concat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = json(k) .. ":" .. json(v[k]) end
    return "{" .. table.concat(out, ",") .. "}"
  end
  return json(tostring(v))
end
M.json = json

-- What the native step engine calls back: `target` normalizes a target value (a Match becomes
-- its point; a bad target raises), `dynamic` acts on a {dynamic=...} target through the model.
local hooks = {
  target = function(v, fname) return (target.normalize(v, fname, nil, true)) end,
  dynamic = function(kind, t, timeout, opts)
    local eacu = require("eacu")
    local ok, r = pcall(function()
      for _, k in ipairs({ "timeout", "button" }) do
        if t[k] ~= nil then
          error(string.format("%s: %s is an option of the step, not of its target: step{%s = target, %s = ...}",
            kind, k, kind, k), 0)
        end
      end
      if kind == "tap" then return eacu.tap(t, { timeout = timeout, button = opts.button }) end
      if kind == "double_tap" then return eacu.double_tap(t, { timeout = timeout }) end
      if kind == "long_press" then return eacu.long_press(t, opts.hold or 1, { timeout = timeout }) end
      if kind == "wait" then return eacu.wait(t, timeout) end
      return eacu.verify(t, timeout)
    end)
    if ok then return r end
    -- The failure is the step's: it is not at a line of this file.
    if failure.is(r) then rawset(r, "where", nil) end
    error(r, 0)
  end,
}

-- The fields of step{} tables (any other is an error naming it): an action (one of the kinds,
-- or seed 002's form), the action's options, and the step's own fields.
local ACTION_FIELDS = { "tap", "double_tap", "long_press", "input", "key", "scroll", "swipe", "wait", "call",
  "action", "target", "target_ref", "params", "text", "button", "hold" }
local STEP_OWN = { "name", "timeout", "retry", "fallback", "fallback_max", "wait_before", "wait_after", "optional",
  "risky", "verify", "success", "heal" }
local STEP_FIELDS = {}
for _, f in ipairs(ACTION_FIELDS) do STEP_FIELDS[#STEP_FIELDS + 1] = f end
for _, f in ipairs(STEP_OWN) do STEP_FIELDS[#STEP_FIELDS + 1] = f end

-- Checks an action table's fields (`known`: the table's field list) and its scroll= / swipe=
-- value; `what` names it in errors. A step's scroll and swipe tables have no window options
-- (the targets in them carry their own).
local function check_action(a, known, what)
  if type(a) ~= "table" or match.is(a) then return end
  target.check_fields(a, what, known, "field", 4)
  if type(a.scroll) == "table" then target.check_fields(a.scroll, what .. " scroll", { "dy", "dx", "at" }, "field", 4) end
  if type(a.swipe) == "table" then
    target.check_fields(a.swipe, what .. " swipe", { "from", "to", "duration" }, "field", 4)
  end
end

-- step{}'s table and its fallbacks (one action table or a list of them) checked for unknown fields.
local function check_step(s)
  check_action(s, STEP_FIELDS, "step")
  local fb = s.fallback
  if type(fb) ~= "table" or match.is(fb) then return end
  local any = false
  for _, f in ipairs(ACTION_FIELDS) do if fb[f] ~= nil then any = true end end
  if any then check_action(fb, ACTION_FIELDS, "step fallback"); return end
  for i, a in ipairs(fb) do check_action(a, ACTION_FIELDS, "step fallback " .. i) end
end

--- step(spec) -> result {ok, attempts, fallbacks, reason, suggestion, value, match, step_id}
--- (with code and error, a failure value, when an optional step failed).
--- spec: one action (tap=, double_tap=, long_press=, input=, key=, scroll=, swipe=, wait=,
--- call=function, or seed 002's action=/target=/params=), and
---   verify = target or function (must hold after the action), success = function() -> bool,
---   fallback = action table, function, or a list of them: run when the target is not found,
---     then the target is looked for again, up to `fallback_max` (3) times,
---   retry = extra attempts when the action or its verification fails (default 1; none after
---     an abort: the run's limits, a cancellation, a refusal, a model error, bad arguments),
---   timeout = seconds to find the target and to verify (default 5),
---   wait_before / wait_after = seconds to pause (only when a script asks; actions already wait
---     for the screen to change and settle),
---   optional = true: a failure is recorded and returned instead of raised,
---   risky = true: the step asks for confirmation first (no terminal: refused),
---   name = a label for the run log, button = tap's mouse button, hold = long_press seconds,
---   heal = true: a target that is missing is looked for again by similarity to what the line
---     recorded, as with eacu run --heal (docs/healing.md); false: not, even under --heal.
--- The step runs in the native step engine (runtime/step/StepEngine). A failure raises a
--- failure value (eacu.failure: err.code, err.message, err.target, err.best, err.frame_id,
--- err.step_id) printing as "step <name>: <reason> (suggestion: retry|dismiss|replan|abort)".
--- value: what call= returned, else what the action found (a Match).
function M.step(s)
  if type(s) ~= "table" then error("step: expected a step table, got " .. type(s), 2) end
  check_step(s)
  local before
  if s.heal ~= nil then before = steps.set_heal(s.heal and true or false) end
  local ok, res = pcall(steps.run_step, s, hooks)
  if before ~= nil then steps.set_heal(before) end
  if not ok then failure.raise(res, 2) end
  if res.match then match.wrap(res.match) end
  if res.value == nil then res.value = res.match end
  return res
end

--- on_blocker(name, handler | {dismiss=target, key=combo, kind=, target=, max=}): registers
--- something that may pop up and cover targets. `name` is the target showing the blocker
--- (an asset name) unless `target` is given. Before a locate gives up, each blocker is looked
--- for and, when present, handled: the handler function is called with its Match, or the
--- dismiss target is tapped, or the key pressed (default Escape). Then the locate goes on.
function M.on_blocker(name, how)
  if type(name) ~= "string" or name == "" then error("on_blocker: expected a blocker name, got " .. type(name), 2) end
  local opts = {}
  local tgt
  if type(how) == "function" then
    opts.handler = how
  elseif type(how) == "table" then
    opts.kind, opts.key, opts.max = how.kind, how.key, how.max
    opts.handler = how.handler
    if how.dismiss ~= nil then opts.dismiss = (target.normalize(how.dismiss, "on_blocker")) end
    if how.target ~= nil then tgt = (target.normalize(how.target, "on_blocker")) end
  elseif how ~= nil then
    error("on_blocker: expected a handler function or {dismiss=, key=, kind=}, got " .. type(how), 2)
  end
  local ok, err = pcall(steps.on_blocker, name, tgt, opts)
  if not ok then failure.raise(err, 2) end
end

--- remove_blocker(name) -> whether it was registered.
function M.remove_blocker(name) return steps.remove_blocker(name) end

--- wait_change([region [, timeout=5 [, threshold=0.02]]]) -> {change_ratio, changed, settled,
--- ms}: waits for the screen (or region {x, y, w, h}: pixels, or fractions) to change by more
--- than `threshold` of its pixels, then to settle. Error when nothing changed in time.
function M.wait_change(region, timeout, threshold)
  local ok, r = pcall(steps.wait_change, region, threshold or 0.02, timeout or -1)
  if not ok then failure.raise(r, 2) end
  return r
end

--- wait_stable([timeout=5]) -> {change_ratio, settled, ms}: waits until the screen is still.
function M.wait_stable(timeout)
  local ok, r = pcall(steps.wait_stable, timeout or -1)
  if not ok then failure.raise(r, 2) end
  return r
end

--- limits([{max_actions=, max_seconds=}]) -> {max_actions, max_seconds, actions, elapsed}:
--- reads or sets the run's limits (defaults 80 actions, 480 s; 0 = none).
function M.limits(l) return steps.limits(l) end

--- confirm(what) -> true, or false and the reason: asks on a terminal; refuses without one
--- (EACU_CONFIRM=yes allows, no refuses).
function M.confirm(what) return steps.confirm(what) end

--- ask_user(text) -> the person's answer: shows `text` and waits for an answer (on a terminal:
--- a line typed; in a service: the chat's reply). Without anyone to ask it fails closed, as
--- confirm does: a failure value with code "blocked". Recorded as an "ask_user" step.
function M.ask_user(text)
  if type(text) ~= "string" or text == "" then
    error("ask_user: expected the text to show (a non-empty string), got " .. (type(text) == "string" and "\"\"" or type(text)), 2)
  end
  local ok, r = pcall(steps.ask_user, text)
  if not ok then failure.raise(r, 2) end
  return r
end

--- check_url(url) -> true: whether the run may open `url` (seed 001 §9): EACU_BLOCK_DOMAINS and
--- EACU_ALLOW_DOMAINS (comma-separated domains, matched with their subdomains; block wins; no
--- allow list: all allowed). A URL without a host (file:, about:) opens no web site and is
--- allowed. Refused: a failure value with code "refused" naming the domain and the list,
--- recorded as a failed "open_url" step. App modules call it before they open a URL.
function M.check_url(url)
  if type(url) ~= "string" or url == "" then
    error("check_url: expected a URL (a non-empty string), got " .. (type(url) == "string" and "\"\"" or type(url)), 2)
  end
  local ok, r = pcall(steps.check_url, url)
  if not ok then failure.raise(r, 2) end
  return r
end

--- open_url(url [, timeout=30]) -> true: opens `url` in the page of a browser device (--device
--- chromium, --device cdp:http://HOST:PORT) and waits for its load event, as a recorded
--- "open_url" step. check_url's domain lists apply first (refused: a failure value "refused",
--- before any request); the page's own navigations (links) pass them too. On a device with no
--- page (an X11 screen) it fails with code "invalid": use require("browser").open(url) there.
--- On an Android device (--device adb) the system opens it with the app it chooses (no load wait).
function M.open_url(url, timeout)
  if type(url) ~= "string" or url == "" then
    error("open_url: expected a URL (a non-empty string), got " .. (type(url) == "string" and "\"\"" or type(url)), 2)
  end
  if timeout ~= nil and (type(timeout) ~= "number" or timeout <= 0) then
    error("open_url: expected a timeout in seconds (a number > 0), got " .. tostring(timeout), 2)
  end
  local ok, r = pcall(steps.open_url, url, timeout or 30)
  if not ok then failure.raise(r, 2) end
  return r
end

--- launch_app(package) -> true: starts the app `package` ("com.example.chat") on a device with
--- installed apps (--device adb: its launcher activity), as a recorded "launch_app" step.
--- Fails with code "invalid" on other devices, "device" for a package that is not installed.
function M.launch_app(package)
  if type(package) ~= "string" or package == "" then
    error("launch_app: expected a package name (\"com.example.app\"), got " .. type(package), 2)
  end
  local ok, r = pcall(steps.launch_app, package)
  if not ok then failure.raise(r, 2) end
  return r
end

--- stop_app(package) -> true: stops the app `package` (Android: am force-stop), a recorded step.
function M.stop_app(package)
  if type(package) ~= "string" or package == "" then
    error("stop_app: expected a package name (\"com.example.app\"), got " .. type(package), 2)
  end
  local ok, r = pcall(steps.stop_app, package)
  if not ok then failure.raise(r, 2) end
  return r
end

--- current_app() -> "package/activity" of the app in front ("" when none), and its package
--- (a recorded "current_app" step; devices with installed apps only).
function M.current_app()
  local ok, r = pcall(steps.current_app)
  if not ok then failure.raise(r, 2) end
  return r, (r:match("^([^/]+)/") or "")
end

--- has_apps() -> true on a device with installed apps (Android through adb).
function M.has_apps() return steps.has_apps() end

--- current_url() -> string: the URL of the browser device's page (a recorded "current_url" step).
function M.current_url()
  local ok, r = pcall(steps.current_url)
  if not ok then failure.raise(r, 2) end
  return r
end

return M
