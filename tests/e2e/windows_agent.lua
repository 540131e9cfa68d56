-- A Win32 program driven through eacu-agent.exe (--device agent:HOST:PORT): our own form with
-- Chinese labels filled by a tree target, a text target (OCR) and an image target, Chinese typed
-- through SendInput, confirmed; its window listed, moved, resized, minimized, restored, closed;
-- the clipboard round-tripped; Wine's notepad typed into and saved as UTF-8.
-- arg[1]: the form's command line (its output file after it); arg[2]: a second form's command
-- line; arg[3]: the Windows path notepad saves to; arg[4]: the check box's image.
local form_cmd, form2_cmd, note_path, agree_png = arg[1], arg[2], arg[3], arg[4]

local function find(e, pred)
  if pred(e) then return e end
  for _, c in ipairs(e.children or {}) do
    local f = find(c, pred)
    if f then return f end
  end
end

-- 1. The form, filled three ways.
local form = remote_launch(form_cmd)
local w = assert(window({ title = "eacu 测试表单" }, 30))
assert(w.pid == form.pid, string.format("the form's window belongs to pid %d, got %d", form.pid, w.pid))
-- A tree target: the text field MSAA names after its label; Chinese typed by SendInput.
tap { role = "text", name = "姓名", timeout = 20 }
input "张三"
-- A text target (OCR of the label 城市) and the field right of it.
tap { right_of = { text = "城市" }, kind = "field", timeout = 10 }
input "北京"
-- An image target: the check box with its label. Its tick changes fewer pixels than the
-- effect check counts as a change: no second tap, which would clear it again.
-- First in the window's own pixels (PrintWindow, black under Wine: the window's DC then).
local inside = locate({ image = agree_png, window = w, threshold = 0.9 }, 5)
assert(inside and inside.x >= w.x and inside.y >= w.y, "the check box found in the form's own pixels")
settings { tap_retries = 0 }
tap { image = agree_png, threshold = 0.9, timeout = 10 }
settings { tap_retries = 2 }
local tree = a11y(w)
local name = find(tree, function(e) return e.role == "text" and e.name == "姓名" end)
local city = find(tree, function(e) return e.role == "text" and e.name == "城市" end)
local agree = find(tree, function(e) return e.role == "check box" and e.name == "同意条款" end)
assert(name and name.value == "张三", "the name field holds 张三, got " .. tostring(name and name.value))
assert(city and city.value == "北京", "the city field holds 北京, got " .. tostring(city and city.value))
-- The tree's value narrows a target: a verify of what the field holds, and of what it does not.
verify { role = "text", name = "姓名", value = "张三" }
assert(not exists({ role = "text", name = "姓名", value = "李四" }, 0), "value = 李四 does not find the field holding 张三")
local checked = false
for _, s in ipairs(agree and agree.states or {}) do checked = checked or s == "checked" end
assert(checked, "the check box is checked after the image tap")
tap { role = "push button", name = "确定" }
local code = form:wait(15)
assert(code == 11, "the form exits with 11 (OK, agreed), got " .. tostring(code))
print("form: confirmed, exit code " .. code)

-- 2. Windows: list, move, resize, minimize, restore, maximize, close.
local form2 = remote_launch(form2_cmd)
local w2 = assert(window({ title = "eacu 测试表单" }, 30))
local listed = false
for _, x in ipairs(windows()) do listed = listed or x.id == w2.id end
assert(listed, "windows() lists the form")
w2:move(300, 220)
assert(w2.x == 300 and w2.y == 220, "moved to 300,220: " .. tostring(w2))
w2:resize(500, 260)
assert(w2.w == 500 and w2.h == 260, "resized to 500x260: " .. tostring(w2))
w2:minimize()
assert(w2.minimized, "minimized: " .. tostring(w2))
w2:restore()
assert(not w2.minimized, "restored: " .. tostring(w2))
w2:maximize()
assert(w2.maximized, "maximized: " .. tostring(w2))
w2:restore()
w2:focus()
assert(frontmost().id == w2.id, "the form is frontmost after focus")
w2:close()
assert(form2:wait(10) == 2, "a closed form exits with 2")
print("windows: listed, moved, resized, minimized, restored, maximized, closed")

-- 3. The clipboard, Unicode both ways.
local text = "剪贴板 eacu ✓ " .. os.time()
clipboard(text)
assert(clipboard() == text, "the clipboard gives back what was put there, got " .. tostring(clipboard()))
print("clipboard: round-tripped")

-- 4. Wine's notepad: typed text and the clipboard pasted, saved as UTF-8.
local np = remote_launch("notepad.exe")
local nw = assert(window({ class = "Notepad" }, 30))
nw:focus()
input "你好 eacu\n"
clipboard("粘贴的文字")
key "ctrl+v"
key "ctrl+s"
wait({ role = "push button", name = "Save" }, 15)
input(note_path)  -- replaces the selected "*.txt" in the file name field
tap { role = "combo box", name = "Encoding" }
key "End"
key "Return"
tap { role = "push button", name = "Save" }
wait_vanish({ role = "push button", name = "Save" }, 15)
nw:close()
assert(np:wait(15) == 0, "notepad exits with 0 once saved and closed")
print("notepad: saved")
