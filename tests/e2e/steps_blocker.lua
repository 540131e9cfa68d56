-- A real pop-up (a zenity question dialog covering xcalc) handled by on_blocker: the tap on
-- "1" does not find its key, the blocker is found and dismissed, and the tap goes on.
local calc = require "calculator"
calc.open()
local handled = 0
on_blocker("update_dialog", { target = "images/update_dialog.png", kind = "dialog",
  handler = function(m) handled = handled + 1; tap "images/update_later.png" end })
launch { "zenity", "--question", "--width=1200", "--height=760", "--title=Update",
  "--text=An update is available. Install it now?", "--ok-label=Later", "--cancel-label=Install" }
wait("images/update_dialog.png", 30)  -- a cold GTK start can be slow on a loaded machine
calc.press("C12×34=")
verify(function() return calc.read_display() == "408" end, "the display shows 408", 3)
print("blocker handled " .. handled .. " time(s); display 408")
