-- Target tables mean what they say (issue 14, relative targets' last bullet), on the static
-- xcalc screenshot (tests/fixtures/xcalc.png): a field a target table does not know is an error
-- naming it, for every verb; the per-call options a verb takes work inside the target table as
-- in its options argument; a positional string means what the same string means alone.
local spec = require "spec"
local check, error_of, has, expect_has = spec.check, spec.error_of, spec.has, spec.expect_has
local target = require "eacu.target"

local known = "(known: image, text, threshold, region, offset, lang, window, raise, focus, role, name, resource_id, value, press, " ..
  "right_of, left_of, above, below, near, inside, kind, nth, "

-- Unknown fields, named with the known ones, for every verb.
local e = error_of(tap, { text = "OK", treshold = 0.9 })
expect_has(e, 'tap: unknown target field "treshold" (did you mean "threshold"?) ' .. known .. "timeout, button, x, y, label, alt)", "tap")
local _, here = pcall(function() tap { text = "OK", treshold = 0.9 } end)
expect_has(tostring(here), "target_fields_spec.lua:", "the error points at the script line")
expect_has(error_of(tap, { imgae = "ok" }), 'tap: unknown target field "imgae" (did you mean "image"?)', "misspelled image")
expect_has(error_of(double_tap, { image = "1", colour = "red" }), 'double_tap: unknown target field "colour"', "double_tap")
expect_has(error_of(long_press, { image = "1", secs = 2 }), 'long_press: unknown target field "secs"', "long_press")
expect_has(error_of(locate, { image = "1", regoin = { 0, 0, 10, 10 } }), 'locate: unknown target field "regoin" (did you mean "region"?)', "locate")
expect_has(error_of(exists, { text = "DEC", language = "eng" }), 'exists: unknown target field "language"', "exists")
expect_has(error_of(wait, { image = "1", timout = 1 }), 'wait: unknown target field "timout" (did you mean "timeout"?) ' .. known .. "timeout, x, y, label, alt)", "wait")
expect_has(error_of(wait_vanish, { image = "1", bogus = true }), 'wait_vanish: unknown target field "bogus"', "wait_vanish")
expect_has(error_of(verify, { image = "1", ofset = { 1, 1 } }), 'verify: unknown target field "ofset" (did you mean "offset"?)', "verify")
expect_has(error_of(find_all, { image = "1", limit = 3 }), 'find_all: unknown target field "limit" ' .. known .. "max, x, y, label, alt)", "find_all")
expect_has(error_of(drag, { image = "1", timeout = 1 }, "2"), 'drag: unknown target field "timeout" ' .. known .. "x, y, label, alt)", "drag: no per-call options in its ends")
expect_has(error_of(swipe, { from = "1", to = { image = "2", speed = 3 } }), 'swipe: unknown target field "speed"', "swipe end")
expect_has(error_of(scroll, { dy = 1, at = { image = "1", dy = 2 } }), 'scroll: unknown target field "dy"', "scroll at")
expect_has(error_of(eacu.resolve, { "1", treshold = 0.5 }), 'resolve: unknown target field "treshold"', "resolve")
expect_has(error_of(tap, { "1", "2" }), "tap: unknown target field [2]", "a second positional value")
expect_has(error_of(step, { tap = { image = "1", treshold = 0.5 } }), 'tap: unknown target field "treshold"', "step{tap=}")
expect_has(error_of(step, { tap = "1", verify = { image = "2", regin = { 0, 0, 1, 1 } } }), 'verify: unknown target field "regin"', "step verify=")
expect_has(error_of(step, { tap = { image = "1", timeout = 1 } }), "tap: timeout is an option of the step, not of its target: step{tap = target, timeout = ...}", "step: timeout belongs to the step")
expect_has(error_of(step, { tap = { dynamic = "the 1 key", timeout = 1 } }), "tap: timeout is an option of the step, not of its target", "step: a dynamic target's timeout belongs to the step")
expect_has(error_of(step, { wait = "1", fallback = { tap = { image = "2", bad = 1 } } }), 'tap: unknown target field "bad"', "step fallback")
expect_has(error_of(on_blocker, "popup", { dismiss = { image = "1", nme = "x" } }), 'on_blocker: unknown target field "nme"', "on_blocker dismiss")
expect_has(error_of(set_text, { name = "Name", txt = "x" }), 'set_text: unknown field "txt" (did you mean "text"?) (known: name, text, role, resource_id, timeout, label)', "set_text")
expect_has(error_of(tap, { dynamic = "the OK button", treshold = 0.5 }), 'tap: unknown dynamic target field "treshold" (known: dynamic, provider, timeout, button)', "dynamic tap")
expect_has(error_of(wait, { dynamic = "the OK button", timout = 1 }), 'wait: unknown dynamic target field "timout" (did you mean "timeout"?) (known: dynamic, provider, timeout)', "dynamic wait")
expect_has(error_of(locate, { dynamic = "the OK button", timeout = 1 }, 2), "locate: timeout is given twice, 1 in the target table and 2 in the options", "dynamic conflict")
-- The legitimate fields still pass (window options are checked after the fields).
expect_has(error_of(tap, { "1", window = "xcalc", raise = true }), "this device has no windows", "window options in the table")
check(locate({ image = "1", threshold = 0.8, region = { 0, 300, 226, 100 }, offset = { 0, 0 }, label = "one" }).found, "every image field")

-- Positional = string form.
local n = target.normalize({ "text:OK" }, "tap")
check(type(n) == "table" and n.text == "OK" and n[1] == nil and n.label == '"text:OK"', '{ "text:OK" } is a text target')
n = target.normalize({ "a11y:OK", role = "push button" }, "tap")
check(n.name == "OK" and n.role == "push button" and n[1] == nil, '{ "a11y:OK" } is an accessibility target')
n = target.normalize({ "calculator.btn_1", threshold = 0.8 }, "tap")
check(n[1] == "calculator.btn_1" and n.threshold == 0.8 and n.text == nil, "an asset with a threshold")
local s, p = locate "text:DEC", locate { "text:DEC" }
check(s and p and p.method == "ocr" and p.x == s.x and p.y == s.y and p.w == s.w, '{ "text:DEC" } finds what "text:DEC" finds')
local r = locate { "text:DEC", region = { 0, 0, 226, 60 } }
check(r and r.method == "ocr" and r.y < 60, "a text target in a region")
check(locate { "text:DEC", region = { 0, 300, 226, 100 } } == nil, "a text target outside its region: not found")
check(eacu.resolve({ "1", threshold = 0.5 }).threshold == 0.5, "positional asset with a threshold")
expect_has(error_of(wait, { "text:Library Reference" }, 0), 'wait "text:Library Reference": not found', "the string form's label")
expect_has(error_of(tap, { "text:" }), 'tap: empty text target: expected "text:<phrase>"', "empty positional phrase")
expect_has(error_of(tap, { "text:OK", text = "Cancel" }), 'tap: a target gives both "text:OK" and text = "Cancel"', "both forms")

-- Per-call options inside the target table, as in the options argument.
local absent = { image = "calculator.display_5", region = { 0, 0, 226, 60 } }
local function with(t, extra)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  for k, v in pairs(extra) do out[k] = v end
  return out
end
local t0 = os.time()
expect_has(error_of(tap, with(absent, { timeout = 0.1 })), 'tap "calculator.display_5": not found within 0.1 s', "tap timeout in the table")
expect_has(error_of(wait, with(absent, { timeout = 0.1 })), "not found within 0.1 s", "wait timeout in the table")
expect_has(error_of(verify, with(absent, { timeout = 0.1 })), "not found within 0.1 s", "verify timeout in the table")
expect_has(error_of(wait_vanish, { "1", timeout = 0.1 }), "0.1 s", "wait_vanish timeout in the table")
check(exists(with(absent, { timeout = 0 })) == false, "exists timeout in the table")
check(os.time() - t0 <= 3, "five lookups with timeouts of 0-0.1 s took " .. (os.time() - t0) .. " s (default 5 s each)")
check(#find_all({ "calculator.display_0", max = 1 }) == 1, "find_all max in the table")
check(locate({ "7", timeout = 1 }, { timeout = 1 }).cx == 70, "the same option in both places, same value")
expect_has(error_of(tap, { "7", timeout = 1 }, { timeout = 2 }), "tap: timeout is given twice, 1 in the target table and 2 in the options: give it once", "conflict")
expect_has(error_of(wait, { "7", timeout = 1 }, 2), "wait: timeout is given twice", "conflict with a timeout argument")
expect_has(error_of(tap, { "7", button = "top" }), 'invalid button "top"', "a bad button in the table is checked")
expect_has(error_of(tap, { "7", timeout = -1 }), "tap: timeout must be a number of seconds >= 0, got -1", "a bad timeout in the table")
expect_has(error_of(tap, "7", { timout = 1 }), 'tap: unknown option "timout" (did you mean "timeout"?) (known: timeout, button, window, raise, focus)', "a misspelled option")
expect_has(error_of(find_all, "7", { max = 2, timeout = 1 }), 'find_all: unknown option "timeout" (known: max, window, raise, focus)', "find_all takes no timeout")
expect_has(error_of(tap, "7", 5), "tap: expected options as a table {timeout=, window=, ...}, got number", "options not a table")

-- Relative targets (issue 14 part 3): fields checked in the anchor too, kind and nth checked natively.
expect_has(error_of(tap, { right_of = { text = "DEC", treshold = 0.5 } }), 'tap right_of: unknown target field "treshold"', "the anchor's fields")
expect_has(error_of(tap, { right_of = "7", kind = "slider" }), 'kind must be "field", "button", "checkbox", "text", "image" or "any", got "slider"', "a bad kind")
expect_has(error_of(tap, { right_of = "7", nth = 0 }), "nth must be a whole number >= 1", "a bad nth")
expect_has(error_of(tap, { image = "7", kind = "button" }), "kind = and nth = go with right_of", "kind without a relation")
expect_has(error_of(tap, { right_of = "7", below = "8" }), "not several", "two relations")
expect_has(error_of(tap, { right_of = "7", kind = "field", timeout = 0 }), "no field right_of", "a miss names what was asked")
expect_has(error_of(tap, { right_of = "7", kind = "field", timeout = 0 }), "anchor found at", "a miss names the anchor's box")

spec.finish("target_fields_spec")
