-- Computes 12 × 34 on the desktop calculator by tapping its buttons, which are found by
-- image, and checks that the display shows 408.
--   eacu run examples/calculator.lua --display virtual
local calc = require "calculator"

calc.open()            -- launch xcalc, wait for its keypad
tap "AC"               -- an alias of calculator.btn_clear
tap "1"
tap "2"
tap "×"                -- alias of calculator.btn_multiply
tap "3"
tap "4"
tap "="

verify(function() return calc.read_display() == "408" end, "the display shows 408", 3)
print("12 × 34 = " .. calc.read_display())
