-- Window-bound verbs on real programs under openbox: xcalc covered by a zenity dialog.
-- A tap at a covered key is refused (nothing clicked), the window-bound locate finds the key
-- without raising, a click sent to xcalc as events presses its key with the dialog staying
-- in front, and raise = true brings xcalc to the front and taps. The display is read in
-- xcalc's own pixels (find_all with window =).
local calc = launch { "xcalc" }
local zen = launch { "zenity", "--info", "--title=Information", "--text=Covering xcalc" }
local c = assert(window({ class = "xcalc", pid = calc:pid() }, 20))
local z = assert(window({ title = "Information" }, 20))
c:move(40, 60)
local open = assert(locate("calculator.btn_1", 5), "xcalc's 1 key on the screen")
z:move(open.cx - 40, open.cy - 40)
z:focus()
assert(frontmost().id == z.id, "the dialog is in front")

-- What xcalc's display shows, read in its own pixels (also while covered).
local function display() return require("calculator").read_display(c) end
local function display_is(want, what)
  local shown
  verify(function() shown = display(); return shown == want end, what .. ": the display shows " .. want, 3)
end

display_is("0", "at the start")

-- 1. Covered: refused, nothing clicked.
local ok, err = pcall(tap, { "calculator.btn_1", window = "xcalc" })
assert(not ok, "a tap at a covered key should fail")
assert(err.code == "covered", "code covered, got " .. tostring(err.code) .. ": " .. tostring(err))
local msg = tostring(err)
assert(msg:find('tap "calculator.btn_1": covered by window 0x%x+ "Information" %(Zenity%) at %(%d+,%d+%); pass raise = true'),
  "the covered message: " .. msg)
print("covered: " .. msg)
display_is("0", "after the refused tap")
assert(frontmost().id == z.id, "a refused tap leaves the dialog in front")

-- 2. The window-bound verbs look in xcalc's own pixels without raising it.
local m = assert(locate("calculator.btn_1", { window = c }), "the covered key in xcalc's own pixels")
assert(math.abs(m.x - open.x) <= 1 and math.abs(m.y - open.y) <= 1, "window-bound match in screen pixels")
assert(exists({ "calculator.btn_1", window = "xcalc" }), "exists in the window")
assert(not exists("calculator.btn_1"), "not on the screen: covered")
wait("calculator.btn_1", { window = c, timeout = 2 })
verify({ "calculator.btn_1", window = c })
assert(frontmost().id == z.id, "looking in a window does not raise it")

-- 3. A click sent to xcalc as events (Xaw takes them): the key is pressed, the dialog stays in front.
tap("calculator.btn_2", { window = c, focus = false })
display_is("2", "after a click sent as events")
key("5", { window = c, focus = false })
display_is("25", "after a key sent as events")
assert(frontmost().id == z.id, "events sent to xcalc leave the dialog in front")

-- 4. raise = true: xcalc comes to the front and the key is tapped through the screen (XTest).
tap { "calculator.btn_1", window = "xcalc", raise = true }
display_is("251", "after the raised tap")
assert(frontmost().id == c.id, "raise = true brings xcalc to the front")

-- 5. A minimized window is restored by raise = true.
c:minimize()
local ok2, err2 = pcall(tap, { "calculator.btn_3", window = c })
assert(not ok2 and tostring(err2):find("is minimized; pass raise = true"), "minimized: " .. tostring(err2))
tap({ "calculator.btn_3", window = c, raise = true })
display_is("2513", "after restoring and tapping")
assert(not c:refresh().minimized, "restored")

-- 6. step{} takes the target table form; scroll{at=} and drag ends are window-bound too.
step { tap = { "calculator.btn_4", window = "xcalc" } }
display_is("25134", "after a window-bound step{}")
scroll { at = { "calculator.btn_1", window = c }, dy = 1 }
drag({ "calculator.btn_7", window = c }, { "calculator.btn_8", window = c }, 0.2)
display_is("25134", "a scroll and a drag off the key press nothing")
-- Keys to a window: focused first (XTest), from behind the dialog.
z:focus()
key("6", { window = c })
display_is("251346", "after a key to the window")
assert(frontmost().id == c.id, "key with window = focuses it")

-- 7. Bad options say what was expected.
local ok3, err3 = pcall(tap, "calculator.btn_1", { raise = true })
assert(not ok3 and tostring(err3):find("need a window"), "raise without a window: " .. tostring(err3))
local ok4, err4 = pcall(tap, "calculator.btn_1", { window = "no such window" })
assert(not ok4 and tostring(err4):find('no window matches "no such window"'), "unknown window: " .. tostring(err4))
local ok5, err5 = pcall(long_press, "calculator.btn_1", 0.2, { window = c, focus = false })
assert(not ok5 and tostring(err5):find("focus = false"), "long_press as events: " .. tostring(err5))
-- wait_vanish in a window that closes: the target vanishes with it.
wait({ text = "Covering xcalc", window = z }, 5)
z:close()
wait_vanish({ text = "Covering xcalc", window = z }, 2)
print("windows_input: covered refused, located without raising, events to xcalc, raised, restored")
