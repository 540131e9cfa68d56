-- Model-driven steps over the private native module eacu._model: ask (a question about the
-- screen), plan (seed 002's planner), autopilot (seed 000's Set-of-Marks loop), som (the element
-- list), and dynamic targets ({dynamic = "the blue Send button"}) grounded by the model.
-- The model is configured by the environment (EACU_MODEL_PROVIDER, EACU_MODEL,
-- EACU_MODEL_BASE_URL, EACU_MODEL_API_KEY, EACU_MODEL_FALLBACK_*) or by model.config{}.
local native = require("eacu._model")
local match = require("eacu.match")
local failure = require("eacu.failure")
local target = require("eacu.target")

local M = {}

-- Raises a not_found failure for the dynamic target `t` (m: the not-found Match) `level` up.
local function not_found(t, m, message, level)
  failure.raise(failure.new { code = "not_found", message = message, target = string.format("{dynamic=%q}", t.dynamic),
    best = m }, level + 1)
end

-- The options each model verb takes (any other is an error naming it).
local OPTIONS = {
  ask = { "json", "provider" },
  plan = { "max_replans", "max_steps", "provider", "raise" },
  autopilot = { "max_steps", "keep_images", "max_invalid", "provider", "raise", "protocol", "tool", "click_check" },
}

local function check_opts(fname, opts, level)
  if opts ~= nil and type(opts) ~= "table" then
    error(string.format("%s: expected an options table, got %s", fname, type(opts)), level + 1)
  end
  if opts ~= nil then target.check_fields(opts, fname, OPTIONS[fname], "option", level + 1) end
  return opts or {}
end

--- True when `t` is a dynamic target: a table with a `dynamic` description (not a Match).
function M.is_dynamic(t)
  return type(t) == "table" and t.dynamic ~= nil and not match.is(t)
end

-- The fields a dynamic target table may hold (any other is an error naming it): its
-- description, the provider to ask and the verb's per-call options (eacu.target's rules).
local TAP_VERBS = { tap = true, double_tap = true, long_press = true }

local function description(t, fname, level)
  local known = { "dynamic", "provider" }
  for _, f in ipairs(target.VERB_OPTIONS[fname] or {}) do known[#known + 1] = f end
  target.check_fields(t, fname, known, "dynamic target field", level + 1)
  if type(t.dynamic) ~= "string" or t.dynamic == "" then
    error(string.format("%s: a dynamic target needs a description string, got %s", fname, type(t.dynamic)), level + 1)
  end
  return t.dynamic
end

-- The value of per-call option `k`: from the options argument or the target table (the same
-- value in both, or an error), else `default`.
local function option(t, fname, k, v, default, level)
  if v ~= nil and t[k] ~= nil and v ~= t[k] then
    error(string.format("%s: %s is given twice, %s in the target table and %s in the options: give it once",
      fname, k, tostring(t[k]), tostring(v)), level + 1)
  end
  if v == nil then v = t[k] end
  if v == nil then v = default end
  return v
end

local function ground(t, fname, action, timeout, level, default)
  local desc = description(t, fname, level + 1)
  timeout = option(t, fname, "timeout", timeout, default or 0, level + 1)
  if timeout ~= nil and (type(timeout) ~= "number" or timeout < 0) then
    error(string.format("%s: timeout must be a number of seconds >= 0, got %s", fname, tostring(timeout)), level + 1)
  end
  -- verify is an assertion: always asked of the model, never served from the cache.
  return match.wrap(failure.call(level + 1, native.ground, desc,
    { action = action, timeout = timeout, provider = t.provider, assertion = fname == "verify" }))
end

-- Dynamic forms of the DSL's target functions. They are called by eacu (init.lua) for a
-- {dynamic=...} target, so errors point two levels up: at the script's line.

--- tap{dynamic=...} -> Match: the model finds the element (Set-of-Marks id or a 0-1000 box)
--- and it is clicked at the centre. opts: button ("left"|"right"), timeout (seconds to keep
--- asking while the model says it is not there; default 0: one look).
function M.tap(t, opts)
  opts = check_opts("tap", opts, 3)
  local action = option(t, "tap", "button", opts.button, "left", 3) == "right" and "right_tap" or "tap"
  return ground(t, "tap", action, opts.timeout, 3)
end

function M.double_tap(t, opts)
  opts = check_opts("double_tap", opts, 3)
  return ground(t, "double_tap", "double_tap", opts.timeout, 3)
end

function M.long_press(t, seconds, opts)
  opts = check_opts("long_press", opts, 3)
  local m = ground(t, "long_press", "locate", opts.timeout, 3)
  if not m.found then
    not_found(t, m, "long_press {dynamic=" .. string.format("%q", t.dynamic) .. "}: the model did not find it" ..
      (m.reason ~= "" and (": " .. m.reason) or ""), 3)
  end
  local native_dsl = require("eacu._native")
  failure.call(3, native_dsl.tap, { x = m.cx, y = m.cy, label = string.format("{dynamic=%q}", t.dynamic) },
    { hold = seconds or 1, action = "long_press" })
  return m
end

--- locate{dynamic=...} -> Match, or nil, reason, the not-found Match.
function M.locate(t, timeout)
  local m = ground(t, "locate", "locate", timeout, 3)
  if m.found then return m end
  return nil, string.format("{dynamic=%q} not found by the model%s", t.dynamic,
    m.reason ~= "" and (": " .. m.reason) or ""), m
end

function M.exists(t, timeout)
  local m = ground(t, "exists", "locate", timeout, 3)
  if m.found then return true, m end
  return false
end

--- wait/verify{dynamic=...}: error unless the model finds it within `timeout` (default 5 s).
function M.wait(t, timeout, fname)
  fname = fname or "wait"
  local m = ground(t, fname, "locate", timeout, 3, 5)
  if not m.found then
    not_found(t, m, string.format("%s {dynamic=%q}: not found by the model within %s s%s", fname, t.dynamic,
      tostring(timeout or t.timeout or 5), m.reason ~= "" and (": " .. m.reason) or ""), 3)
  end
  return m
end

--- ask(question [, {json=true, provider=}]) -> the model's answer about the current screen:
--- text, or with json=true the decoded JSON value (tables for objects and arrays) and the raw
--- text. An answer that is not JSON when JSON was asked for is an error showing the text.
function M.ask(question, opts)
  if type(question) ~= "string" or question == "" then
    error("ask: expected a question (a non-empty string), got " .. (question == "" and "an empty string" or type(question)), 2)
  end
  opts = check_opts("ask", opts, 2)
  local text, value = failure.call(2, native.ask, question, opts.json and true or false, opts.provider)
  if opts.json then return value, text end
  return text
end

--- plan(task [, {max_replans=2, max_steps=40, provider=}]) -> result {ok, steps, replans,
--- executed, plans}. The model plans steps (assets or dynamic: targets) from the screen; they
--- run with retries, fallbacks and verification; a failed step is replanned. Error on failure.
function M.plan(task, opts)
  if type(task) ~= "string" or task == "" then error("plan: expected a task (a non-empty string), got " .. type(task), 2) end
  opts = check_opts("plan", opts, 2)
  local r = failure.call(2, native.plan, task, opts)
  if not r.ok and opts.raise ~= false then
    error("plan: " .. r.error .. "\n  executed:\n    " .. table.concat(r.executed, "\n    "), 2)
  end
  return r
end

--- autopilot(task [, {max_steps=20, provider=, keep_images=3, raise=true, protocol="som"|"computer",
--- tool=, click_check=}]) -> result {status, message, steps, cached, history, actions}. The
--- Set-of-Marks loop: screenshot with numbered elements → one JSON action → executed → effect
--- checked → history line, until the model says done. protocol="computer": the model drives
--- the computer tool (tool "computer_20250124" or "computer_20251124"; an OpenAI-compatible
--- function for other providers) on a screenshot scaled to the declared display; a
--- tool_result with a new screenshot follows each action. needs_user asks the person (the
--- terminal, or the chat in eacu serve) and goes on after their reply. click_check=true (default:
--- EACU_CLICK_CHECK=1): before each click the model checks the marked pointer and corrects it
--- (up to 4 times); still off, the person is asked to click instead. fail, needs_user with
--- nobody to ask and the step limit are errors (with the history) unless raise=false.
function M.autopilot(task, opts)
  if type(task) ~= "string" or task == "" then error("autopilot: expected a task (a non-empty string), got " .. type(task), 2) end
  opts = check_opts("autopilot", opts, 2)
  local r = failure.call(2, native.autopilot, task, opts)
  if r.status ~= "done" and opts.raise ~= false then
    error("autopilot " .. r.status .. ": " .. r.message .. "\n  history:\n    " .. table.concat(r.history, "\n    "), 2)
  end
  return r
end

--- agent(task [, opts]): the former name of autopilot (eacu's "agent" is now only the device
--- agent, eacu-agent.exe); kept so that older scripts run unchanged.
M.agent = M.autopilot

--- som() -> {elements = {{id, type, kind, x, y, w, h, interactivity, content, source}...},
--- text, frame_id, ms}: the Set-of-Marks elements of the current screen; printed as text.
function M.som()
  local r = failure.call(2, native.som)
  return setmetatable(r, { __tostring = function(s) return s.text end })
end

--- model.config{provider=, model=, base_url=, api_key_env=, timeout=, max_retries=} sets the
--- model for the rest of the run (the key is read from the variable api_key_env names, or
--- given as api_key=, for local servers; keys are never logged);
--- model.config(false) removes it. Returns a description ("openai qwen, cache off").
function M.config(cfg)
  if cfg ~= false and type(cfg) ~= "table" then
    error("model.config: expected {provider=, model=, base_url=, api_key_env=} or false, got " .. type(cfg), 2)
  end
  if cfg then
    target.check_fields(cfg, "model.config", { "provider", "model", "base_url", "api_key", "api_key_env", "timeout",
      "max_retries" }, "field", 2)
  end
  return failure.call(2, native.config, cfg)
end

--- model.info() -> {provider, model, cache, calls, description}.
function M.info() return failure.call(2, native.info) end

return M
