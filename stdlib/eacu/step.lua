-- step{}: one action with seed 002's StepPlan around it (verify, success, fallback, retry,
-- timeout, wait_before/after, optional, risky), blockers (on_blocker), change and stability
-- waits, run limits and confirmation. The summary of each step{} is a "step" row in the run
-- log with the reason and the suggestion (retry, dismiss, replan, abort) when it failed.
local native = require("eacu._native")
local steps = require("eacu._steps")
local target = require("eacu.target")
local match = require("eacu.match")

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

local function label_of(t)
  if type(t) == "string" then return '"' .. t .. '"' end
  if type(t) == "function" then return "(function)" end
  if type(t) == "table" then
    if match.is(t) then return string.format("match(%d,%d)", t.cx, t.cy) end
    if t.image then return '"' .. tostring(t.image) .. '"' end
    if type(t[1]) == "string" then return '"' .. t[1] .. '"' end
    if t.x then return string.format("{x=%s, y=%s}", tostring(t.x), tostring(t.y)) end
    if t.dynamic then return string.format("{dynamic=%q}", t.dynamic) end
  end
  return tostring(t)
end

-- The action forms a step or a fallback may take. Each entry: field name -> function(value,
-- spec, timeout) doing the action. Seed 002's {action=, target_ref|target=, params=} form is
-- mapped onto these by normalize().
local swipe_to_scroll = { up = { 0, 3 }, down = { 0, -3 }, left = { 3, 0 }, right = { -3, 0 } }
local scroll_dir = { up = { 0, -3 }, down = { 0, 3 }, left = { -3, 0 }, right = { 3, 0 } }

local actions
actions = {
  tap = function(v, s, timeout) return _G.eacu.tap(v, { timeout = timeout, button = s.button }) end,
  double_tap = function(v, s, timeout) return _G.eacu.double_tap(v, { timeout = timeout }) end,
  long_press = function(v, s, timeout) return _G.eacu.long_press(v, s.hold or 1, { timeout = timeout }) end,
  input = function(v) _G.eacu.input(v) end,
  key = function(v) _G.eacu.key(v) end,
  scroll = function(v)
    if type(v) == "string" then
      local d = scroll_dir[v] or error("scroll: expected up|down|left|right, got " .. v, 0)
      return _G.eacu.scroll { dx = d[1], dy = d[2] }
    end
    return _G.eacu.scroll(v)
  end,
  swipe = function(v)
    if type(v) == "string" then -- a phone-style swipe: "up" shows what is below
      local d = swipe_to_scroll[v] or error("swipe: expected up|down|left|right, got " .. v, 0)
      return _G.eacu.scroll { dx = d[1], dy = d[2] }
    end
    return _G.eacu.swipe(v)
  end,
  wait = function(v, s, timeout)
    if type(v) == "number" then return native.sleep(v) end
    return _G.eacu.wait(v, timeout)
  end,
  call = function(v) return v() end,
}
local action_names = { "tap", "double_tap", "long_press", "input", "key", "scroll", "swipe", "wait", "call" }
local seed_actions = { input_text = "input", press_key = "key", tap = "tap", double_tap = "double_tap",
  long_press = "long_press", swipe = "swipe", scroll = "scroll", wait = "wait" }

-- Returns name, value of the action a step or fallback table describes.
local function action_of(s, what)
  if type(s) == "function" then return "call", s end
  if type(s) ~= "table" then error(what .. ": expected a table or a function, got " .. type(s), 0) end
  if s.action then
    local name = seed_actions[s.action] or error(what .. ": unknown action \"" .. tostring(s.action) ..
      "\" (expected tap, double_tap, long_press, input_text, press_key, scroll, swipe, wait)", 0)
    local p = s.params or {}
    local v = s.target or s.target_ref
    if name == "input" then v = p.text or s.text
    elseif name == "key" then v = p.key or s.key
    elseif name == "swipe" or name == "scroll" then v = p.direction or v
    elseif name == "wait" and v == nil then v = (p.ms or p.duration or 1000) / 1000 end
    if v == nil then error(what .. ": action " .. s.action .. " needs its target or params", 0) end
    return name, v
  end
  for _, n in ipairs(action_names) do
    if s[n] ~= nil then return n, s[n] end
  end
  return nil
end

local function is_not_found(msg)
  return type(msg) == "string" and (msg:find(": not found", 1, true) ~= nil or msg:find("not found by the model", 1, true) ~= nil)
end
local function is_abort(msg)
  return type(msg) == "string" and (msg:find("limit of", 1, true) or msg:find("time limit", 1, true) or
    msg:find("cancelled", 1, true) or msg:find("needs a confirmation", 1, true) or msg:find("refused", 1, true))
end

-- Checks verify (an image or text target, or a function) and success.
local function check_after(s, timeout)
  if s.verify ~= nil then
    if type(s.verify) == "function" then
      _G.eacu.verify(s.verify, "the step's verify condition", timeout)
    else
      _G.eacu.verify(s.verify, timeout)
    end
  end
  if s.success ~= nil then
    if type(s.success) ~= "function" then error("step: success must be a function, got " .. type(s.success), 0) end
    _G.eacu.verify(s.success, "the step's success predicate", timeout)
  end
end

local function run_fallback(fb, i)
  local list = fb
  if type(fb) == "function" or (type(fb) == "table" and (fb.action or action_of(fb, "fallback"))) then list = { fb } end
  for _, f in ipairs(list) do
    local name, v = action_of(f, "step fallback")
    if not name then error("step: fallback " .. i .. " has no action", 0) end
    actions[name](v, type(f) == "table" and f or {}, 5)
  end
end

--- step(spec) -> result {ok, attempts, fallbacks, reason, suggestion, value}.
--- spec: one action (tap=, double_tap=, long_press=, input=, key=, scroll=, swipe=, wait=,
--- call=function, or seed 002's action=/target=/params=), and
---   verify = target or function (must hold after the action), success = function() -> bool,
---   fallback = action table, function, or a list of them: run when the target is not found,
---     then the target is looked for again, up to `fallback_max` (3) times,
---   retry = extra attempts when the action or its verification fails (default 1),
---   timeout = seconds to find the target and to verify (default 5),
---   wait_before / wait_after = seconds to pause (only when a script asks; actions already wait
---     for the screen to change and settle),
---   optional = true: a failure is recorded and returned instead of raised,
---   risky = true: the step asks for confirmation first (no terminal: refused),
---   name = a label for the run log.
--- A failure raises "step <name>: <reason> (suggestion: retry|dismiss|replan|abort)".
function M.step(s)
  if type(s) ~= "table" then error("step: expected a step table, got " .. type(s), 2) end
  local name, value = action_of(s, "step")
  if not name and s.verify == nil and s.success == nil then
    error("step: expected an action (tap=, input=, key=, scroll=, swipe=, wait=, call=, or action=) or verify=", 2)
  end
  local label = s.name or ((name or "verify") .. " " .. label_of(name and value or s.verify))
  local timeout = s.timeout or 5
  local retry = s.retry or 1
  local fallback_max = s.fallback_max or 3
  local t0 = steps.wall()
  local res = { ok = false, attempts = 0, fallbacks = 0, reason = "", suggestion = "" }
  local log_params = { action = name, retry = retry, timeout = timeout, optional = s.optional and true or false }

  local function finish()
    log_params.attempts, log_params.fallbacks = res.attempts, res.fallbacks
    log_params.reason, log_params.suggestion = res.reason, res.suggestion
    log_params.blockers = steps.blockers()
    steps.record_step { action = "step", target = label, status = res.ok and "ok" or (s.optional and "skipped" or "failed"),
      error = res.ok and "" or res.reason .. " (suggestion: " .. res.suggestion .. ")",
      params = json(log_params), started_at = t0, method = "step" }
    return res
  end

  if s.risky then
    local ok, why = steps.confirm(label)
    if not ok then
      res.reason, res.suggestion = "refused: " .. why, "abort"
      finish()
      if s.optional then return res end
      error("step " .. label .. ": " .. res.reason .. " (suggestion: abort)", 2)
    end
  end
  if s.wait_before then native.sleep(s.wait_before) end

  for attempt = 0, retry do
    res.attempts = attempt + 1
    local ok, err = true, nil
    if name then
      ok, err = pcall(actions[name], value, s, attempt == 0 and timeout or math.min(timeout, 2))
      -- Not found: run the fallback and look again, up to fallback_max times.
      while not ok and is_not_found(err) and s.fallback ~= nil and res.fallbacks < fallback_max do
        res.fallbacks = res.fallbacks + 1
        local fok, ferr = pcall(run_fallback, s.fallback, res.fallbacks)
        if not fok then err = tostring(err) .. "; fallback " .. res.fallbacks .. ": " .. tostring(ferr); break end
        ok, err = pcall(actions[name], value, s, math.min(timeout, 1))
      end
    end
    if ok then
      if s.wait_after then native.sleep(s.wait_after) end
      ok, err = pcall(check_after, s, timeout)
      if ok then
        res.ok, res.reason, res.suggestion = true, "", ""
        res.value = err
        return finish()
      end
      res.reason = "verification failed: " .. tostring(err)
      res.suggestion = attempt < retry and "retry" or "replan"
    else
      res.reason = tostring(err)
      if is_abort(err) then res.suggestion = "abort"
      elseif is_not_found(err) then res.suggestion = (#steps.blockers() > 0 or s.fallback == nil) and "dismiss" or "replan"
      else res.suggestion = "retry" end
      if res.suggestion == "abort" then break end
    end
  end
  if res.suggestion == "retry" then res.suggestion = "replan" end
  finish()
  if s.optional then return res end
  error("step " .. label .. ": " .. res.reason .. " (suggestion: " .. res.suggestion .. ")", 2)
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
    if how.dismiss ~= nil then opts.dismiss = target.normalize(how.dismiss, "on_blocker") end
    if how.target ~= nil then tgt = target.normalize(how.target, "on_blocker") end
  elseif how ~= nil then
    error("on_blocker: expected a handler function or {dismiss=, key=, kind=}, got " .. type(how), 2)
  end
  local ok, err = pcall(steps.on_blocker, name, tgt, opts)
  if not ok then error(err, 2) end
end

--- remove_blocker(name) -> whether it was registered.
function M.remove_blocker(name) return steps.remove_blocker(name) end

--- wait_change([region [, timeout=5 [, threshold=0.02]]]) -> {change_ratio, changed, settled,
--- ms}: waits for the screen (or region {x, y, w, h}: pixels, or fractions) to change by more
--- than `threshold` of its pixels, then to settle. Error when nothing changed in time.
function M.wait_change(region, timeout, threshold)
  local ok, r = pcall(steps.wait_change, region, threshold or 0.02, timeout or -1)
  if not ok then error(r, 2) end
  return r
end

--- wait_stable([timeout=5]) -> {change_ratio, settled, ms}: waits until the screen is still.
function M.wait_stable(timeout)
  local ok, r = pcall(steps.wait_stable, timeout or -1)
  if not ok then error(r, 2) end
  return r
end

--- limits([{max_actions=, max_seconds=}]) -> {max_actions, max_seconds, actions, elapsed}:
--- reads or sets the run's limits (defaults 80 actions, 480 s; 0 = none).
function M.limits(l) return steps.limits(l) end

--- confirm(what) -> true, or false and the reason: asks on a terminal; refuses without one
--- (EACU_CONFIRM=yes allows, no refuses).
function M.confirm(what) return steps.confirm(what) end

return M
