-- eacu.batch: actions found on one frame and sent back to back, with one settle at the end.
local native = require("eacu._native")
local match = require("eacu.match")
local target = require("eacu.target")
local model = require("eacu.model")
local failure = require("eacu.failure")

local M = {}

local VERBS = { tap = true, double_tap = true, long_press = true, input = true, key = true }
local FIELDS = { "tap", "double_tap", "long_press", "input", "key", "button", "seconds" }

-- One entry of the list -> {action=, target=, text=, button=, hold=} for the native module.
local function entry(i, e)
  local where = "batch: action " .. i
  if type(e) ~= "table" then
    error(string.format("%s: expected a table such as {tap = \"btn_1\"} or {input = \"text\"}, got %s", where, type(e)), 4)
  end
  target.check_fields(e, where, FIELDS, "field", 4)
  local verb
  for _, v in ipairs(FIELDS) do
    if VERBS[v] and e[v] ~= nil then
      if verb then error(string.format("%s: expected one of tap, double_tap, long_press, input, key, got both %s and %s", where, verb, v), 4) end
      verb = v
    end
  end
  if not verb then error(where .. ": expected one of tap, double_tap, long_press, input or key", 4) end
  local out = { action = verb }
  if verb == "input" or verb == "key" then
    local text = e[verb]
    if verb == "input" and type(text) == "number" then text = tostring(text) end
    if type(text) ~= "string" then error(string.format("%s: %s expects a string, got %s", where, verb, type(text)), 4) end
    if e.button ~= nil or e.seconds ~= nil then error(where .. ": button and seconds go with tap, double_tap or long_press", 4) end
    out.text = text
    return out
  end
  local t = e[verb]
  if model.is_dynamic(t) then
    error(where .. ": a dynamic (model) target is found by a model call, not on the batch's frame: use " .. verb .. " on its own", 4)
  end
  local n, o = target.normalize(t, where)
  for k in pairs(o) do
    error(string.format("%s: the option %s belongs to the whole batch (batch(list, {timeout=})), not to one target", where, k), 4)
  end
  if e.seconds ~= nil and verb ~= "long_press" then error(where .. ": seconds goes with long_press", 4) end
  if e.seconds ~= nil and (type(e.seconds) ~= "number" or e.seconds <= 0) then
    error(string.format("%s: seconds must be a number > 0, got %s", where, tostring(e.seconds)), 4)
  end
  if e.button ~= nil and type(e.button) ~= "string" then
    error(string.format("%s: button must be \"left\", \"right\" or \"middle\", got %s", where, type(e.button)), 4)
  end
  out.target, out.button, out.hold = n, e.button, e.seconds
  return out
end

--- batch(actions [, {timeout=}]) -> {actions=, ms=, locate_ms=, settle_ms=, changed=, matches=}
--- Runs a list of actions as one batch: every target is found on one capture (captured again
--- until all are there at once, up to timeout seconds, default 5), then the inputs are sent
--- back to back with no capture, effect wait or settle between them, and the screen settles
--- once after the last. Entries: {tap = T}, {double_tap = T}, {long_press = T, seconds = 1},
--- {input = "text"}, {key = "ctrl+s"}; taps may add button = "right" | "middle". T is an
--- image, text or point target (not window-bound, relative, a11y or dynamic). Each action is
--- a step of its own in the run log. A target missing from the frame fails before anything is
--- sent; a failure while sending stops the batch, its message names the action ("batch action
--- 4 of 12 (tap "btn_5"): ..."). Returns the times (milliseconds), whether the screen changed,
--- and where each pointer action's target was found (Matches, in order).
function M.batch(actions, opts)
  if type(actions) ~= "table" then error("batch: expected a list of actions, got " .. type(actions), 2) end
  local timeout
  if opts ~= nil then
    if type(opts) ~= "table" then error("batch: expected options {timeout=}, got " .. type(opts), 2) end
    target.check_fields(opts, "batch", { "timeout" }, "option", 2)
    timeout = opts.timeout
    if timeout ~= nil and (type(timeout) ~= "number" or timeout < 0) then
      error("batch: timeout must be a number of seconds >= 0, got " .. tostring(timeout), 2)
    end
  end
  local n = #actions
  for k in pairs(actions) do
    if type(k) ~= "number" or k < 1 or k > n or k % 1 ~= 0 then
      error("batch: expected a list of actions, got a table with the key " .. tostring(k), 2)
    end
  end
  if n == 0 then error("batch: expected at least one action, got none", 2) end
  local list = {}
  for i = 1, n do list[i] = entry(i, actions[i]) end
  local r = failure.call(2, native.batch, list, timeout)
  for i, m in ipairs(r.matches) do r.matches[i] = match.wrap(m) end
  return r
end

return M
