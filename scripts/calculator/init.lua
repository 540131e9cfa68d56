-- The desktop calculator (xcalc from x11-apps): open it, press its keys, read its display.
-- Keys and display digits are found by image (scripts/calculator/images/index.json).
local M = {
  name = "calculator",
  keywords = { "calculator", "calc", "xcalc", "计算器" },
  window_class = "XCalc",
}

-- Characters of a key sequence -> asset names.
local keys = {
  ["0"] = "btn_0", ["1"] = "btn_1", ["2"] = "btn_2", ["3"] = "btn_3", ["4"] = "btn_4",
  ["5"] = "btn_5", ["6"] = "btn_6", ["7"] = "btn_7", ["8"] = "btn_8", ["9"] = "btn_9",
  ["+"] = "btn_plus", ["-"] = "btn_minus", ["*"] = "btn_multiply", ["×"] = "btn_multiply",
  ["/"] = "btn_divide", ["÷"] = "btn_divide", ["="] = "btn_equals", ["."] = "btn_point",
  ["C"] = "btn_clear",
}

--- Starts xcalc and waits (up to `timeout` seconds, default 10) until its keypad is shown.
--- Returns the process handle.
-- Uses the calculator already on the screen (e.g. one `eacu serve --launch xcalc` started), else
-- launches xcalc; waits for its keypad. Returns the launched process, or nil when one was there.
function M.open(timeout)
  if exists("calculator.btn_clear", 0) then return nil end
  local proc = launch "xcalc"
  wait("calculator.btn_clear", timeout or 10)
  return proc
end

--- Presses the keys of `sequence` in order, e.g. "12×34=" ("C" is AC). UTF-8 aware.
function M.press(sequence)
  for ch in sequence:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    if ch ~= " " then
      local name = keys[ch]
      if not name then
        error(string.format("calculator.press: no key for %q (keys: 0-9 + - * × / ÷ = . C)", ch), 2)
      end
      tap("calculator." .. name)
    end
  end
end

--- Reads the digits the display shows (a string such as "408"), by finding each digit glyph
--- in the display, which lies above the keypad. Signs, points and exponents are not read.
--- With `win` (a Window from window()), reads xcalc's own pixels in that window, also while
--- other windows cover it; without, the screen.
function M.read_display(win)
  local ac = wait({ "calculator.btn_clear", window = win }, 2)
  -- The display spans the window's width above the keypad's first row (a window's region is
  -- in its own pixels).
  local ox, oy = 0, 0
  if win then ox, oy = win.x, win.y end
  local region = { x = math.max(0, ac.x - ox - 200), y = math.max(0, ac.y - oy - 65), w = 240, h = 60 }
  local found = {}
  for d = 0, 9 do
    for _, m in ipairs(find_all({ image = "calculator.display_" .. d, region = region, window = win }, 32)) do
      found[#found + 1] = { x = m.x, digit = tostring(d) }
    end
  end
  table.sort(found, function(a, b) return a.x < b.x end)
  local out = {}
  for i, f in ipairs(found) do out[i] = f.digit end
  return table.concat(out)
end

-- Task templates (eacu run --task "compute 12*34" or run_template("calculator.compute", {...})).
M.templates = {
  compute = {
    patterns = { "compute {expression}", "calculate {expression}", "计算{expression}", "用计算器算{expression}" },
    params = { "expression" },
    -- Only arithmetic: "compute 12*34 after login" is not for this template (the autopilot gets it).
    accepts = function(p) return p.expression:match("^[%d%s%.%+%-%*/x×÷=()]+$") ~= nil end,
    run = function(p)
      M.open()
      local expr = p.expression:gsub("%s", ""):gsub("=$", "")
      M.press("C" .. expr .. "=")
      local shown
      verify(function() shown = M.read_display(); return shown ~= "" end, "the display shows a result", 3)
      print(p.expression .. " = " .. shown)
      return shown
    end,
  },
}

return M
