-- Batched steps on a real xcalc (issue 14 part 4): one frame, inputs back to back, one settle.
local calc = require "calculator"
calc.open()
tap "AC"

-- 1. Keys found on one frame and tapped as one batch: 98 × 76 = 7448.
local r = batch { {tap = "9"}, {tap = "8"}, {tap = "×"}, {tap = "7"}, {tap = "6"}, {tap = "="} }
print(string.format("batch: %d actions, locate %.1f ms, all %.1f ms, settle %.1f ms, changed %s, %d matches",
  r.actions, r.locate_ms, r.ms, r.settle_ms, tostring(r.changed), #r.matches))
assert(r.actions == 6 and r.changed and #r.matches == 6, "expected 6 actions, a change and 6 matches")
assert(r.matches[3].x > 0 and r.matches[3].w == 32, "the × key's match: " .. tostring(r.matches[3]))
verify(function() return calc.read_display() == "7448" end, "the display shows 7448", 3)
print("display after the batch: " .. calc.read_display())

-- 2. Keyboard input and keys in a batch, with a tap: AC, then 12 typed, ×, 3 typed, = typed.
batch { {tap = "AC"}, {input = "12"}, {tap = "×"}, {input = "3"}, {input = "="} }
verify(function() return calc.read_display() == "36" end, "the display shows 36", 3)
print("display after typing in a batch: " .. calc.read_display())

-- 3. A target that is not on the frame: not_found, naming the action; nothing sent.
local before = calc.read_display()
local ok, err = pcall(batch, { {tap = "AC"}, {tap = "5"}, {tap = "browser.pydoc_quick_search"} }, { timeout = 0.5 })
assert(not ok, "a batch with a missing target passed")
print("missing: code " .. tostring(err.code) .. ": " .. tostring(err))
assert(err.code == "not_found", "expected not_found, got " .. tostring(err.code))
assert(calc.read_display() == before, "a key was pressed although a target was missing: " .. calc.read_display())

-- 4. The run's action limit reached in the middle: the batch stops there and names the action.
tap "AC"
local lim = limits()
limits { max_actions = lim.actions + 2 }
local ok2, err2 = pcall(batch, { {tap = "4"}, {tap = "2"}, {tap = "1"}, {tap = "0"} })
limits { max_actions = 0 }
assert(not ok2, "a batch past the action limit passed")
print("limit: code " .. tostring(err2.code) .. ": " .. tostring(err2))
assert(err2.code == "limit", "expected limit, got " .. tostring(err2.code))
assert(tostring(err2):find("batch action 3 of 4", 1, true), "the error does not name action 3 of 4")
verify(function() return calc.read_display() == "42" end, "the display shows the two keys sent", 3)
print("display after the limit: " .. calc.read_display())

-- 5. Bad batches: errors before anything is sent.
local function bad(list, opts)
  local ok3, e = pcall(batch, list, opts)
  assert(not ok3, "a bad batch passed")
  print("bad: " .. tostring(e))
end
bad({ {tap = "1", bogus = true} })
bad({ {tap = "1", input = "2"} })
bad({ {tap = "1"}, {key = "ctrl+no_such_key"} })
bad({ {tap = { "1", window = "xcalc" } } })
bad({ {tap = "1"} }, { timeout = -1 })
bad({})
verify(function() return calc.read_display() == "42" end, "the display still shows 42", 3)
print("batch: done")
