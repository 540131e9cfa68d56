-- Windows of real programs under a window manager (openbox): xcalc and a zenity dialog side by
-- side, listed with class and pid, focused, moved, resized, minimized, restored, maximized
-- and closed. arg[1] = "nowm": only the listing (no window manager runs).
local function now() return require("eacu._native").now() end

local calc = launch { "xcalc" }
local zen = launch { "zenity", "--info", "--title=eacu windows test", "--text=Window test" }
local c = assert(window({ class = "xcalc", pid = calc:pid() }, 20))
local z = assert(window({ title = "eacu windows test" }, 20))
assert(c.class == "XCalc" and c.instance == "xcalc", "xcalc's class: " .. tostring(c))
assert(z.class == "Zenity", "zenity's class: " .. tostring(z))
assert(c.pid == calc:pid(), string.format("xcalc's pid: expected %d, got %d", calc:pid(), c.pid))
assert(z.pid == zen:pid(), string.format("zenity's pid: expected %d, got %d", zen:pid(), z.pid))
local all = windows()
assert(#all >= 2, "windows() should list both, got " .. #all)
print(string.format("listed: %d windows, xcalc pid %d, zenity pid %d", #all, c.pid, z.pid))
assert(window("calculator").id == c.id, "window(\"calculator\") should find xcalc by its title")
assert(window("nothing like this") == nil, "an unknown window is nil")

if arg[1] == "nowm" then
  c:focus()
  assert(frontmost().id == c.id, "xcalc should be frontmost after focus without a WM")
  print("windows without a window manager: listed and focused")
  return
end

local function timed(what, f)
  local t0 = now()
  local r = f()
  print(string.format("%s: %.1f ms", what, (now() - t0) * 1000))
  return r
end

-- Side by side.
timed("move", function() return c:move(40, 60) end)
assert(c.x == 40 and c.y == 60, "xcalc after move: " .. tostring(c))
z:move(600, 60)
assert(z.x == 600 and z.y == 60, "zenity after move: " .. tostring(z))

-- Window-bound locate: xcalc's "1" key covered by the dialog is found in xcalc's own pixels
-- (XComposite), at the same screen box as when it was uncovered.
local open = assert(locate("calculator.btn_1", 5), "xcalc's 1 key on the screen")
z:move(open.cx - 40, open.cy - 40)
z:focus()
assert(frontmost().id == z.id, "the dialog is in front")
local covered, why = locate("calculator.btn_1")
assert(covered == nil, "the covered key should not be found on the screen: " .. tostring(covered))
local t0 = now()
local inside = locate("calculator.btn_1", { window = c })
local first_ms = (now() - t0) * 1000
assert(inside, "the covered key should be found in xcalc's own pixels")
assert(math.abs(inside.x - open.x) <= 1 and math.abs(inside.y - open.y) <= 1,
  string.format("window-bound box (%d,%d) should be the screen box (%d,%d)", inside.x, inside.y, open.x, open.y))
assert(frontmost().id == z.id, "locating in a window does not raise it")
local t1 = now()
for _ = 1, 10 do assert(locate("calculator.btn_1", { window = "xcalc" })) end
local window_ms = (now() - t1) * 100
z:move(600, 60)
t1 = now()
for _ = 1, 10 do assert(locate("calculator.btn_1")) end
local screen_ms = (now() - t1) * 100
print(string.format("window-bound locate: %.1f ms first (redirect + redraw), %.1f ms after; full-screen locate %.1f ms",
  first_ms, window_ms, screen_ms))

timed("focus", function() return c:focus() end)
assert(frontmost().id == c.id, "xcalc should be frontmost, got " .. tostring(frontmost()))
z:focus()
assert(frontmost().id == z.id, "zenity should be frontmost, got " .. tostring(frontmost()))
assert(not c:refresh().focused, "xcalc is no longer focused")

timed("resize", function() return c:resize(320, 420) end)
assert(c.w == 320 and c.h == 420, "xcalc after resize: " .. tostring(c))
c:refresh()
assert(c.w == 320 and c.h == 420 and c.x == 40 and c.y == 60, "xcalc's geometry read again: " .. tostring(c))

timed("minimize", function() return c:minimize() end)
assert(c.minimized and window({ pid = calc:pid() }).minimized, "xcalc minimized: " .. tostring(c))
timed("restore", function() return c:restore() end)
assert(not c.minimized, "xcalc restored: " .. tostring(c))

local sw, sh = screen_size()
timed("maximize", function() return c:maximize() end)
assert(c.maximized and c.w > sw * 0.9 and c.h > sh * 0.8, "xcalc maximized: " .. tostring(c))
c:restore()
assert(not c.maximized and c.w == 320 and c.h == 420, "xcalc restored from maximized: " .. tostring(c))

-- Closing the dialog through the window manager's protocol: zenity exits 1 ("the user used
-- the window functions to close the dialog", zenity(1)).
timed("close", function() return z:close() end)
local code = zen:wait(10)
assert(code == 1, "zenity should exit 1 when its window is closed, got " .. tostring(code))
assert(window({ pid = zen:pid() }) == nil, "the closed dialog is no longer listed")
assert(calc:running(), "xcalc still runs")
print("windows: window-bound locate, listed, focused, moved, resized, minimized, restored, maximized, closed (zenity exit 1)")
