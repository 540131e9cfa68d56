-- Prints what the calculator display shows on the screen given by --display (used on a frame
-- exported from a replay: eacu run read_display.lua --display image:frame.png).
local calc = require "calculator"
print("display=" .. calc.read_display())
