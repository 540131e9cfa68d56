-- step{} and failure values, run by `eacu run` on a static xcalc screenshot (tests/fixtures/
-- xcalc.png through --display image:...): a failed step raises a failure value (err.code,
-- err.message, err.target, err.best, err.frame_id, err.step_id) that prints as the message did;
-- argument errors stay strings; fallbacks, retries, verify, optional, limits by code.
local spec = require "spec"
local check, has, expect_has = spec.check, spec.has, spec.expect_has

-- The display's "5" is not on the screenshot's display (it shows 0).
local ABSENT = { image = "calculator.display_5", region = { 0, 0, 226, 60 } }
-- A screenshot never changes: do not wait long for effects, nor tap again.
settings { effect_timeout = 0.02, tap_retries = 0 }

-- The error fn(...) raises, called from a line of this file (as a script calls it).
local function fails(fn, ...)
  local args = { ... }
  local ok, err = pcall(function() fn(unpack(args)) end)
  check(not ok, "expected an error")
  return err
end

-- tap: not found is a failure value.
local line = debug.getinfo(1, "l").currentline + 1
local _, err = pcall(function() tap(ABSENT, { timeout = 0.1 }) end)
check(eacu.failure.is(err), "a failed tap raises a failure value, got " .. type(err))
check(err.code == "not_found", "err.code: " .. tostring(err.code))
check(err.target == '"calculator.display_5"', "err.target: " .. tostring(err.target))
check(type(err.frame_id) == "number" and err.frame_id > 0, "err.frame_id")
check(type(err.step_id) == "number" and err.step_id > 0, "err.step_id")
check(err.best ~= nil and err.best.score < err.best.threshold, "err.best is the best candidate")
check(tostring(err.best):find("Match{NOT found", 1, true) == 1, "err.best is a Match: " .. tostring(err.best))
local text = tostring(err)
check(text == err.where .. err.message, "tostring(err) is where .. message")
expect_has(text, "step_spec.lua:" .. line .. ": ", "the text points at the script line")
expect_has(text, 'tap "calculator.display_5": not found within 0.1 s: best score', "the text is the message")
expect_has(text, "frame " .. err.frame_id .. " of run", "the text names the frame")
check(err.message:find("step_spec.lua", 1, true) == nil, "the message has no position: " .. err.message)
-- Code written for string errors still works on the text.
check(err:find("not found", 1, true) ~= nil, "err:find works on the text")
check(("error: " .. err):sub(1, 7) == "error: ", "concatenation works on the text")
-- Re-raised as it is.
local _, again = pcall(error, err)
check(again == err, "error(err) keeps the value")

-- Argument errors stay strings.
check(type(fails(tap, 42)) == "string", "a bad target is a string error")
local unknown = fails(tap, "no_such_target")
check(type(unknown) == "string" and has(unknown, 'target "no_such_target" not found'), "an unknown name is a string error")
check(type(fails(key, "ctrl+nokey")) == "string", "an unknown key is a string error")
expect_has(fails(step, { name = "nothing" }), "step: expected an action", "a step without an action")
expect_has(fails(step, { foo = 1 }), 'step: unknown field "foo"', "a step with an unknown field")
expect_has(fails(step, { tap = "1", fallback = { action = "fly" } }), 'unknown action "fly"', "a bad fallback, before anything runs")
expect_has(fails(step, { scroll = "sideways" }), "scroll: expected up|down|left|right, got sideways", "a bad direction")

-- wait, verify, wait_change: codes.
check(fails(wait, ABSENT, 0.05).code == "not_found", "wait: not_found")
err = fails(verify, function() return false end, "the answer", 0.05)
check(err.code == "verify_failed", "verify(fn): verify_failed")
expect_has(tostring(err), "verify: the answer is not true after 0.05 s", "verify(fn) message")
check(fails(wait_change, nil, 0.1).code == "no_effect", "wait_change: no_effect")

-- step: a failure value with the step's message.
line = debug.getinfo(1, "l").currentline + 1
_, err = pcall(function() step { tap = ABSENT, timeout = 0.05, retry = 0 } end)
check(err.code == "not_found", "step: not_found, got " .. tostring(err.code))
check(err.step_id ~= nil and err.frame_id ~= nil and err.best ~= nil, "step: step_id, frame_id, best")
expect_has(tostring(err), "step_spec.lua:" .. line .. ': step tap "calculator.display_5": tap "calculator.display_5": not found',
  "step message")
expect_has(tostring(err), "(suggestion: dismiss)", "no fallback: dismiss")

-- Fallbacks: then the target is looked for again, up to 3 times.
local res = step { tap = ABSENT, timeout = 0.05, retry = 1, fallback = { key = "Escape" }, optional = true }
check(res.ok == false and res.code == "not_found", "optional: returned, not raised")
check(res.fallbacks == 3, "fallbacks: 3, got " .. res.fallbacks)
check(res.attempts == 2, "attempts: 2, got " .. res.attempts)
check(res.suggestion == "replan", "replan after fallbacks")
check(eacu.failure.is(res.error) and res.error.code == "not_found", "res.error is the failure value")
res = step { tap = ABSENT, timeout = 0.05, retry = 0, fallback = { { key = "Escape" }, function() end }, fallback_max = 2,
  optional = true }
check(res.fallbacks == 2, "fallback_max = 2, got " .. res.fallbacks)

-- Retries: a failing call runs 1 + retry times.
local calls = 0
err = fails(step, { call = function() calls = calls + 1; error("boom") end, retry = 2 })
check(calls == 3, "call ran 1 + retry times, got " .. calls)
check(err.code == "failed", "a Lua error in a callback: failed")
expect_has(tostring(err), "step call (function): ", "call label")
expect_has(tostring(err), "step_spec.lua:", "the callback's error keeps its line")
expect_has(tostring(err), ": boom (suggestion: replan)", "the callback's message")
-- A failure inside a callback keeps its code.
err = fails(step, { call = function() tap(ABSENT, { timeout = 0.05 }) end, retry = 0 })
check(err.code == "not_found", "a failure in a callback keeps its code, got " .. tostring(err.code))
-- Succeeding: the value is what call returned, or what the action found.
res = step { call = function() return 42 end }
check(res.ok and res.value == 42 and res.attempts == 1, "call's value")
res = step { tap = "1" }
check(res.ok and res.value.found and res.value.cx > 0, "tap's Match")
check(tostring(res.match):find("Match{found", 1, true) == 1, "res.match is a Match")

-- Verify: a target or a function that must hold after the action.
err = fails(step, { tap = "1", verify = ABSENT, timeout = 0.05, retry = 1 })
check(err.code == "verify_failed", "verify target: verify_failed, got " .. tostring(err.code))
expect_has(tostring(err), 'verification failed: verify "calculator.display_5": not found', "verify message")
err = fails(step, { tap = "1", success = function() return false end, timeout = 0.05, retry = 0 })
check(err.code == "verify_failed", "success: verify_failed")
expect_has(tostring(err), "verify: the step's success predicate is not true after 0.05 s", "success message")
check(step { tap = "1", verify = "1", success = function() return true end }.ok, "verify and success hold")

-- The seed's form.
res = step { action = "tap", target = ABSENT, timeout = 0.05, retry = 0, optional = true,
  fallback = { action = "swipe", params = { direction = "left" } } }
check(res.code == "not_found" and res.fallbacks == 3, "seed form: fallbacks on not found, got " .. tostring(res.code) ..
  " after " .. res.fallbacks)
check(step { action = "wait", params = { ms = 10 } }.ok, "seed form: wait ms")

-- The run's limits: no retry.
local used = limits().actions
limits { max_actions = used }
calls = 0
err = fails(step, { call = function() calls = calls + 1; key("a") end, retry = 3 })
check(err.code == "limit", "limit, got " .. tostring(err.code))
check(calls == 1, "no retry after the limit, got " .. calls)
expect_has(tostring(err), "(suggestion: abort)", "limit: abort")
check(fails(key, "a").code == "limit", "key over the limit: limit")
limits { max_actions = 0 }

-- Failure values made in Lua.
local mine = eacu.failure.new { code = "blocked", message = "the dialog stayed" }
check(eacu.failure.is(mine) and tostring(mine) == "the dialog stayed", "failure.new")
local ok, raised = pcall(function() eacu.failure.raise(mine, 1) end)
check(not ok and raised.code == "blocked" and has(tostring(raised), "step_spec.lua:"), "failure.raise adds the position")

-- ask_user without a terminal fails closed: a failure value "blocked", recorded as a step. (The
-- terminal case is in tests/e2e/repl.sh, on a real pseudo-terminal.)
if os.execute("test -t 0 && test -t 2") ~= 0 then
  local asked = fails(ask_user, "Who gets the message?")
  check(eacu.failure.is(asked) and asked.code == "blocked", "ask_user without a terminal: blocked, got " .. tostring(asked))
  expect_has(tostring(asked), 'ask_user "Who gets the message?": it needs an answer and there is no terminal', "ask_user's message")
  check(type(asked.step_id) == "number" and asked.step_id > 0, "ask_user is recorded as a step")
else
  print("step_spec: stdin is a terminal, ask_user's no-terminal case not run here")
end
check(type(fails(ask_user, "")) == "string", "ask_user with no text is an argument error")

spec.finish("step_spec")
