-- A target with alternatives (docs/targets.md, "Alternatives"), run by `eacu run` on a static
-- xcalc screenshot (tests/fixtures/xcalc.png): the first found wins, within one timeout; a
-- line found by an alternative says so in its method; a miss lists every target tried.
local spec = require "spec"
local check, error_of, expect_has = spec.check, spec.error_of, spec.expect_has
local native = require("eacu._native")

-- "1" looked for where it is not (the display's corner) is missing; key 7 is on the screen.
local missing = { image = "1", region = { 0, 0, 100, 50 } }

-- The first target missing, the alternative found: its place, and method alt:<kind>.
local m = locate { missing, alt = { "images/key7.png" } }
check(m and m.found and m.x == 54 and m.y == 278, "the alternative's place: " .. tostring(m))
check(m and m.method == "alt:image", "method alt:image, got " .. tostring(m and m.method))

-- The first found: it wins, with its own method (not alt:).
local first = locate { "1", alt = { "images/key7.png" } }
check(first and first.x == 54 and first.y == 338, "the first target wins when found: " .. tostring(first))
check(first and first.method:sub(1, 4) ~= "alt:", "the first target's own method, got " .. tostring(first and first.method))

-- alt beside the first target's own fields (hand-written), and a text alternative's kind.
local beside = locate { image = "1", region = { 0, 0, 100, 50 }, alt = { "images/key7.png" } }
check(beside and beside.method == "alt:image", "alt beside the fields: " .. tostring(beside and beside.method))

-- None found: one not_found error within the line's one timeout, listing what was tried.
local t0 = native.now()
local ok, err = pcall(wait, { missing, alt = { { image = "images/key7.png", region = { 0, 0, 100, 50 } } } }, 0.5)
local took = native.now() - t0
check(not ok, "none found is an error")
err = tostring(err)
expect_has(err, "not found", "the miss")
expect_has(err, "none of its 2 targets found", "the miss counts the targets")
expect_has(err, '"images/key7.png"', "the miss names the alternative")
expect_has(err, "best score", "the miss says how close each came")
check(took < 2.5, string.format("one timeout for the line, not one per alternative (%.1f s)", took))

-- Bad alternatives are errors saying what was expected.
expect_has(error_of(locate, { "1", alt = {} }), "alt must be a list of targets", "empty alt")
expect_has(error_of(locate, { "1", alt = "7" }), "alt must be a list of targets", "alt not a list")
expect_has(error_of(locate, { "1", alt = { { x = 5, y = 5 } } }), "alt 1 is a point", "a point alternative")
expect_has(error_of(locate, { { x = 5, y = 5 }, alt = { "7" } }), "cannot have alternatives", "a point with alternatives")
expect_has(error_of(locate, { "1", alt = { { "7", alt = { "8" } } } }), "alternatives of its own", "nested alternatives")
expect_has(error_of(locate, { { image = "1" }, threshold = 0.5, alt = { "7" } }), "goes inside that table",
  "a field beside a table first target")

spec.finish("alt_spec")
