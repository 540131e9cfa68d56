-- Which toolkits act on input sent to a window as synthetic events (tap/input/key with
-- window = w, focus = false: X11 XSendEvent), measured on real programs: xcalc and xmessage
-- (Xaw), zenity (GTK3), Tk (python3-tk) and xterm. Each program is left unfocused behind
-- another window; its effect is read from its own output or its own pixels.
-- Prints one line per toolkit: "events: <toolkit> click=yes|no|untested keys=yes|no".
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local results = {}
-- click, keys: true, false, or nil (not measured).
local function yn(v) if v == nil then return "untested" end return v and "yes" or "no" end
local function row(toolkit, click, keys)
  results[#results + 1] = { toolkit, click, keys }
  print(string.format("events: %s click=%s keys=%s", toolkit, yn(click), yn(keys)))
end

-- A window in front that has the focus all along: nothing here may take it.
local front = launch { "xmessage", "-name", "eacufront", "-geometry", "+900+20", "the focus stays here" }
local fw = assert(window({ class = "xmessage", pid = front:pid() }, 20))
-- Gives the focus back to the front window once the window manager has given it to `new`, a
-- window just mapped (openbox focuses new windows; waiting for that keeps it from happening
-- after the events are sent), and checks it has it.
local function keep_front(new)
  if new then
    pcall(verify, function() local f = frontmost(); return f ~= nil and f.id == new.id end, "focused", 1)
  end
  fw:focus()
  assert(frontmost() and frontmost().id == fw.id, "the front window has the focus")
end
local function still_front(what)
  local f = frontmost()
  assert(f and f.id == fw.id, what .. " must not take the focus, frontmost: " .. tostring(f))
end

-- Reads the line a program prints within `t` seconds (nil when it prints none).
local function line_of(p, t) return p:read_line(t) end

-- Xaw: xcalc. A click on "1" and the key "3" sent to it, read on its display in its own pixels.
local calc = launch { "xcalc" }
local c = assert(window({ class = "xcalc", pid = calc:pid() }, 20))
keep_front(c)
c:move(20, 20)
local function digits() return require("calculator").read_display(c) end
tap({ "calculator.btn_1", window = c, focus = false })
local click_ok = digits() == "1"
key("3", { window = c, focus = false })
local keys_ok = false
for _ = 1, 20 do
  if digits() == "13" then keys_ok = true break end
  sleep(0.05)
end
still_front("events sent to xcalc")
row("Xaw (xcalc)", click_ok, keys_ok)

-- Xaw: xmessage. Its button exits with the button's code.
local xm = launch { "xmessage", "-name", "eacumsg", "-geometry", "+400+500", "-buttons", "okay:3", "-default", "okay",
  "eacu message" }
local x = assert(window({ class = "xmessage", pid = xm:pid() }, 20))
keep_front(x)
local xkeys = false
key("Return", { window = x, focus = false })  -- -default okay: Return presses it
if xm:wait(1.5) == 3 then xkeys = true end
local xclick = xkeys
if not xkeys then
  tap({ x = x.x + 20, y = x.y + x.h - 12, window = x, focus = false })
  xclick = xm:wait(2) == 3
else
  xm = launch { "xmessage", "-name", "eacumsg", "-geometry", "+400+500", "-buttons", "okay:3", "eacu message" }
  x = assert(window({ class = "xmessage", pid = xm:pid() }, 20))
  keep_front(x)
  tap({ x = x.x + 20, y = x.y + x.h - 12, window = x, focus = false })
  xclick = xm:wait(2) == 3
end
row("Xaw (xmessage)", xclick, xkeys)

-- GTK3: zenity --entry prints what was typed when OK (or Return) is pressed.
local zen = launch { "zenity", "--entry", "--title=eacu entry", "--text=Name" }
local z = assert(window({ title = "eacu entry" }, 20))
keep_front(z)
z:move(300, 200)
input("abc", { window = z, focus = false })
key("Return", { window = z, focus = false })
local zkeys = zen:wait(1.5) ~= nil
local zclick = false
if not zkeys then
  tap({ text = "OK", window = z, focus = false })
  zclick = zen:wait(1.5) ~= nil
end
still_front("events sent to zenity")
row("GTK3 (zenity)", zclick, zkeys)

-- Tk: a button that prints "clicked", an entry that prints what was typed on Return.
local tk = launch { "python3", here .. "windows_events_tk.py" }
local t = assert(window({ title = "eacu tk" }, 20))
keep_front(t)
t:move(20, 500)
tap({ text = "Press", window = t, focus = false })
local tclick = line_of(tk, 1.5) == "clicked"
input("abc", { window = t, focus = false })
key("Return", { window = t, focus = false })
local tkeys = line_of(tk, 1.5) == "typed=abc"
still_front("events sent to Tk")
row("Tk (python3-tk)", tclick, tkeys)

-- xterm: keys typed into its shell write a file (xterm's allowSendEvents is false by default).
local mark = os.tmpname()
os.remove(mark)
local xt = launch { "xterm", "-title", "eacu xterm", "-geometry", "60x10+600+300", "-e", "sh" }
local w = assert(window({ title = "eacu xterm" }, 20))
keep_front(w)
sleep(0.5)  -- the shell's prompt: nothing on screen says when sh reads its input
input("echo typed > " .. mark .. "\n", { window = w, focus = false })
local xtkeys = false
for _ = 1, 30 do
  local f = io.open(mark)
  if f then f:close(); xtkeys = true; os.remove(mark) break end
  sleep(0.05)
end
still_front("events sent to zenity, Tk and xterm")
row("Xt (xterm)", nil, xtkeys)  -- a click in a shell's xterm has no effect to check
xt:stop()
return results
