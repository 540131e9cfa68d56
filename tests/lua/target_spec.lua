-- Target resolution and error messages, run by `eacu run` on a static xcalc screenshot
-- (tests/fixtures/xcalc.png through --display image:...).
local spec = require "spec"
local check, error_of, has, expect_has = spec.check, spec.error_of, spec.has, spec.expect_has

-- Asset names, qualified names and aliases.
local r = eacu.resolve("1")
check(r.name == "calculator.btn_1", "alias 1 -> calculator.btn_1, got " .. tostring(r.name))
check(math.abs(r.threshold - 0.9) < 1e-9, "the asset's threshold comes along")
check(r.w == 32 and r.h == 18, "template size")
check(eacu.resolve("calculator.btn_1").path == r.path, "qualified name resolves to the same file")
check(eacu.resolve("btn_1").path == r.path, "bare name")
check(eacu.resolve("×").name == "calculator.btn_multiply", "UTF-8 alias")
check(eacu.resolve({ image = "1", threshold = 0.5 }).threshold == 0.5, "threshold override")
check(eacu.resolve({ image = "1", offset = { 3, -2 } }).offset[1] == 3, "offset override")

-- Image paths relative to the script, with or without .png.
local p = eacu.resolve("images/key7.png")
check(has(p.path, "tests/lua/images/key7.png"), "image path relative to the script: " .. p.path)
check(eacu.resolve("images/key7").path == p.path, "the .png may be left out")

-- An unknown target lists what was tried.
local e = error_of(eacu.resolve, "no_such_target")
expect_has(e, 'target "no_such_target" not found', "unknown target")
expect_has(e, "not an asset name or alias", "unknown target")
expect_has(e, "scripts/calculator/images/index.json", "unknown target names the index")
expect_has(e, "tests/lua/no_such_target.png", "unknown target names the paths tried")
local _, here = pcall(function() return eacu.resolve("no_such_target") end)
expect_has(tostring(here), "target_spec.lua:", "the error points at the script line")

-- Locate on the screenshot.
local m = locate "1"
check(m and m.found and m.x == 54 and m.y == 338, "locate 1 at (54,338)")
check(m.cx == 70 and m.cy == 347, "input point is the centre")
check(tostring(m):find("Match{found", 1, true) == 1, "a Match prints readably: " .. tostring(m))
local m7 = locate "images/key7.png"
check(m7 and m7.x == 54 and m7.y == 278, "locate by image path")
local none, why = locate { image = "calculator.display_5", region = { 0, 0, 226, 60 } }
check(none == nil, "absent target: nil")
expect_has(why or "", "best score", "locate reason")
check(exists("1") == true, "exists")
check(exists({ image = "calculator.display_5", region = { 0, 0, 226, 60 } }) == false, "exists false")
check(#find_all("calculator.display_0") >= 2, "find_all: display 0 and the 0 key")

-- Failures say what, best score and where, threshold, and the frame in the run log.
e = error_of(wait, { image = "calculator.display_5", region = { 0, 0, 226, 60 } }, 0.1)
expect_has(e, 'wait "calculator.display_5": not found within 0.1 s', "wait failure")
expect_has(e, "best score", "wait failure")
expect_has(e, "threshold 0.95", "wait failure")
expect_has(e, "frame ", "wait failure names the frame")
expect_has(e, "of run " .. eacu.run_info().run_id, "wait failure names the run")
e = error_of(verify, { image = "calculator.display_5", region = { 0, 0, 226, 60 } }, 0)
expect_has(e, 'verify "calculator.display_5": not found', "verify failure")
e = error_of(tap, { image = "calculator.display_5", region = { 0, 0, 226, 60 } }, { timeout = 0 })
expect_has(e, 'tap "calculator.display_5": not found', "tap failure")

-- Taps on the image device: an image target and points (pixels and fractions).
local t = tap "7"
check(t.method ~= "point" and t.cx == 70 and t.cy == 287, "tap 7 at its centre (" .. t.method .. ")")
local tp = tap { x = 10, y = 20 }
check(tp.method == "point" and tp.cx == 10 and tp.cy == 20, "tap a pixel point")
local w, h = screen_size()
local tf = tap { x = 0.5, y = 0.5 }
check(tf.cx == math.floor((w - 1) * 0.5 + 0.5) and tf.cy == math.floor((h - 1) * 0.5 + 0.5), "tap a fraction point")
check(tap(m).cx == m.cx, "tap a Match")

-- Malformed targets and arguments.
expect_has(error_of(tap, 42), "expected a target", "number target")
expect_has(error_of(tap, {}), "expected a target", "empty table target")
expect_has(error_of(tap, { x = 1 }), "expected a target", "x without y")
expect_has(error_of(tap, ""), "empty target", "empty string target")
expect_has(error_of(tap, { image = "1", threshold = 2 }), "threshold must be in 0..1", "bad threshold")
expect_has(error_of(tap, { x = 5000, y = 1 }), "outside the screen", "point off screen")
expect_has(error_of(key, "ctrl+nokey"), 'unknown key "nokey"', "unknown key")
expect_has(error_of(input, "ab\255"), "UTF-8", "invalid UTF-8")
expect_has(error_of(wait, "1", -1), "timeout must be", "negative timeout")
-- Text targets, read by OCR: a table, the text: prefix, fuzzy threshold, a phrase not there.
local sin = locate { text = "sin" }
check(sin and sin.method == "ocr" and sin.x >= 49 and sin.x < 93 and sin.y >= 93 and sin.y < 120, "locate{text=sin} on the sin key")
local dec = locate "text:DEC"
check(dec and dec.y < 60, "text:DEC in the display")
local none_t, why_t = locate { text = "Library Reference" }
check(none_t == nil and has(why_t, "best score"), "an absent phrase: nil and the best reading")
expect_has(error_of(wait, { text = "Library Reference" }, 0), 'wait {text="Library Reference"}: not found', "wait on an absent phrase")
check(ocr({ 0, 0, 226, 60 }).text:find("DEG", 1, true) ~= nil, "ocr(region) reads the display")
expect_has(error_of(tap, { text = "" }), "expected a phrase", "empty phrase")
expect_has(error_of(launch, { "eacu-no-such-program" }), 'cannot start "eacu-no-such-program"', "launch failure")
-- Window options: checked before anything is looked for; an image device has no windows.
expect_has(error_of(tap, "1", { raise = true }), "tap: raise = true and focus = false need a window", "raise without a window")
expect_has(error_of(tap, { "1", focus = false }), "need a window", "focus = false without a window, in the target table")
expect_has(error_of(tap, "1", { window = "xcalc", raise = "yes" }), "tap: raise must be true or false, got string", "raise not a boolean")
expect_has(error_of(exists, "1", { window = true }), "exists: window must be a window or a query", "a boolean is not a window")
expect_has(error_of(wait, { "1", window = "xcalc" }, 0), "this device has no windows", "window on an image device")
expect_has(error_of(key, "Return", { focus = false }), "key: focus = false needs a window", "key focus = false without a window")
expect_has(error_of(input, "a", 5), "input: expected options {window=, focus=}, got number", "input options not a table")
expect_has(error_of(tap, { dynamic = "the 1 key", window = "xcalc" }), "tap: a dynamic (model) target searches the whole screen, not {window=}", "dynamic tap in a window")
expect_has(error_of(locate, { dynamic = "the 1 key" }, { window = "xcalc" }), "locate: a dynamic (model) target searches the whole screen", "dynamic locate in a window")

spec.finish("target_spec")
