-- Option tables mean what they say (issue 14, the last bullet of relative targets), on the
-- static xcalc screenshot: scroll{}, swipe{}, step{} (and its fallbacks, its scroll= and
-- swipe= values), input's and key's options and the model verbs' options name a field they do
-- not know, with the known ones, instead of ignoring it.
local spec = require "spec"
local check, error_of, expect_has = spec.check, spec.error_of, spec.expect_has

expect_has(error_of(scroll, { dy = 1, dz = 2 }), 'scroll: unknown field "dz" (did you mean "dy"?) (known: dy, dx, at, window, raise)', "scroll")
expect_has(error_of(swipe, { from = "1", to = "2", duraton = 1 }), 'swipe: unknown field "duraton" (did you mean "duration"?) (known: from, to, duration, window, raise)', "swipe")
expect_has(error_of(input, "x", { windw = "xcalc" }), 'input: unknown option "windw" (did you mean "window"?) (known: window, focus, secret, check)', "input")
expect_has(error_of(key, "Return", { raise = true }), 'key: unknown option "raise" (known: window, focus)', "key")
expect_has(error_of(input, "x", { secret = "yes" }), "input: secret must be true or false, got string", "input secret")
expect_has(error_of(step, { tap = "1", retires = 2 }), 'step: unknown field "retires"', "step")
local e = error_of(step, { tap = "1", timeot = 2 })
expect_has(e, 'step: unknown field "timeot" (did you mean "timeout"?) (known: tap, double_tap, long_press, input, key, scroll, swipe, wait, call, action, target, target_ref, params, text, button, hold, name, timeout, retry, fallback, fallback_max, wait_before, wait_after, optional, risky, verify, success, heal)', "step lists its fields")
expect_has(error_of(step, { wait = "1", fallback = { tap = "2", retry = 1 } }), 'step fallback: unknown field "retry"', "a fallback takes no step fields")
expect_has(error_of(step, { wait = "1", fallback = { { tap = "2" }, { key = "Escape", delay = 1 } } }), 'step fallback 2: unknown field "delay"', "the second fallback of a list")
expect_has(error_of(step, { scroll = { dy = 3, window = "xcalc" } }), 'step scroll: unknown field "window" (known: dy, dx, at)', "step scroll=")
expect_has(error_of(step, { swipe = { from = "1", to = "2", speed = 2 } }), 'step swipe: unknown field "speed" (known: from, to, duration)', "step swipe=")
expect_has(error_of(eacu.model.ask, "what?", { jsn = true }), 'ask: unknown option "jsn" (did you mean "json"?) (known: json, provider)', "ask")
expect_has(error_of(eacu.model.plan, "do it", { max_step = 3 }), 'plan: unknown option "max_step" (did you mean "max_steps"?)', "plan")
expect_has(error_of(eacu.model.autopilot, "do it", { protocl = "som" }), 'autopilot: unknown option "protocl" (did you mean "protocol"?)', "autopilot")
expect_has(error_of(eacu.model.agent, "do it", { protocl = "som" }), 'autopilot: unknown option "protocl"', "agent, autopilot's former name")
assert(agent == autopilot and eacu.agent == eacu.autopilot, "agent() is autopilot() under its former name")
expect_has(error_of(eacu.model.config, { provider = "openai", key = "k" }), 'model.config: unknown field "key"', "model.config")

-- The known fields still pass.
local r = step { call = function() return 1 end, name = "one", timeout = 2, retry = 0, optional = true, wait_after = 0,
  verify = "calculator.btn_1", fallback = { { key = "Escape", button = "left" } }, fallback_max = 1 }
check(r.ok and r.value == 1, "a step with known fields runs: " .. tostring(r.reason))
spec.finish("option_fields_spec")
