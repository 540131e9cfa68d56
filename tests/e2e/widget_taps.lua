-- Buttons of real dialogs tapped by their text (OCR: the page pass and the single-line reading
-- of text proposals): short labels (OK, No, Go, 确定) on GTK3 (zenity), Xaw (xmessage) and Tk.
-- Each program reports the button pressed. arg[1]: the folder of tk_widgets.py.
local function tapped(label)
  local m = tap("text:" .. label)
  print(string.format("tapped %s at %d,%d (%s, score %.2f)", label, m.cx, m.cy, m.method, m.score))
end

-- GTK3: zenity's exit code says which button: 0 the OK label, 1 the cancel label or an extra
-- button (whose label it prints).
for _, case in ipairs({ { "No", 1 }, { "OK", 0 } }) do
  local q = launch { "zenity", "--question", "--title=eacu widget taps", "--text=Save the changes?",
    "--ok-label=OK", "--cancel-label=No" }
  wait({ text = "Save the changes?" }, 30)
  tapped(case[1])
  local code = q:wait(10)
  assert(code == case[2], "zenity should exit " .. case[2] .. " after " .. case[1] .. ", got " .. tostring(code))
end
local info = launch { "zenity", "--info", "--title=eacu widget taps", "--text=Copy done", "--extra-button=Go" }
wait({ text = "Copy done" }, 30)
tapped("Go")
local said = info:read(10)
assert(said == "Go\n", "zenity printed " .. string.format("%q", said) .. ", expected Go")

-- Xaw: xmessage -print prints the label of the button pressed.
for _, label in ipairs({ "Go", "No" }) do
  local x = launch { "xmessage", "-print", "-buttons", "OK,No,Go,Retry", "Pick a button" }
  assert(window({ pid = x:pid() }, 30), "xmessage shows its window")
  wait_stable(5)
  tapped(label)
  local out = x:read(10)
  assert(out == label .. "\n", "xmessage printed " .. string.format("%q", out) .. ", expected " .. label)
end

-- Tk: the script prints "pressed LABEL" for each press.
local tk = launch { "python3", arg[1] .. "/tk_widgets.py", "main" }
repeat
  local l = assert(tk:read_line(30), "tk_widgets.py printed no boxes")
until l == "END"
wait_stable(5)
for _, label in ipairs({ "OK", "确定", "Go", "Run" }) do
  tapped(label)
  local l = tk:read_line(10)
  assert(l == "pressed " .. label, "the Tk window said " .. string.format("%q", l) .. " after " .. label)
end
print("widget taps: zenity No/OK/Go, xmessage Go/No, Tk OK/确定/Go/Run reported")
