-- Captures the widget corpus (tests/corpus/widgets-v1): dialogs and windows of real toolkits on
-- a virtual display, each screenshot with the labels on it and their boxes, from the
-- accessibility tree (GTK3: zenity; GTK2: HexChat), from the toolkit itself (Tk: the script
-- prints winfo boxes) or from the X window tree (Xaw: xmessage's buttons are windows).
-- Run by make_widgets.sh. arg[1]: output folder (shots/ and labels.tsv are written there);
-- arg[2]: this folder (tk_widgets.py); arg[3]: a scratch folder for HexChat's configuration.
local out, here, scratch = arg[1], arg[2], arg[3]
local tsv = assert(io.open(out .. "/labels.tsv", "w"))
local sw, sh = screen_size()
local nshot = 0

local function words(s)
  local n = 0
  for _ in s:gmatch("%S+") do n = n + 1 end
  return n
end

-- One label: kept when it is on screen and a short label (1-2 words, at most 24 bytes).
local function add(toolkit, shot, text, x, y, w, h, role)
  text = text:gsub("_", ""):gsub("%s+$", "")
  if text == "" or words(text) > 2 or #text > 24 or w <= 0 or h <= 0 then return end
  if x < 0 or y < 0 or x + w > sw or y + h > sh then return end
  tsv:write(table.concat({ toolkit, shot, text, x, y, w, h, role }, "\t"), "\n")
end

local function shoot(toolkit, name)
  wait_stable(10)
  nshot = nshot + 1
  local shot = string.format("shots/%02d_%s_%s.png", nshot, toolkit, name)
  screenshot(out .. "/" .. shot)
  return shot
end

local function has(states, s)
  for _, x in ipairs(states or {}) do if x == s then return true end end
  return false
end

local roles = { ["push button"] = true, ["label"] = true, ["check box"] = true, ["radio button"] = true,
  ["page tab"] = true, ["menu item"] = true, ["table cell"] = true, ["table column header"] = true,
  ["column header"] = true, ["toggle button"] = true, ["menu"] = true }

-- The labels of `e`'s subtree; under an application, only its top-level window titled `title`
-- (a program's other windows may lie under it).
local function fromTree(toolkit, shot, e, seen, title)
  if e.role == "application" and title then
    for _, c in ipairs(e.children or {}) do
      if c.name == title then fromTree(toolkit, shot, c, seen) end
    end
    return
  end
  if roles[e.role] and e.name and e.name ~= "" and has(e.states, "showing") and e.bounds then
    local b = e.bounds
    local key = e.name .. b.x .. "," .. b.y
    if not seen[key] then
      seen[key] = true
      add(toolkit, shot, e.name, b.x, b.y, b.w, b.h, e.role)
    end
  end
  for _, c in ipairs(e.children or {}) do fromTree(toolkit, shot, c, seen, title) end
end

-- GTK3: zenity dialogs, labels from the accessibility tree.
local zen = {
  { "question", { "--question", "--text=Save the changes?", "--ok-label=OK", "--cancel-label=No" } },
  { "question_zh", { "--question", "--text=保存更改吗？", "--ok-label=确定", "--cancel-label=取消" } },
  { "forms", { "--forms", "--text=Your details", "--add-entry=Name", "--add-entry=City", "--add-password=Key",
    "--add-calendar=Date" } },
  { "list", { "--list", "--checklist", "--column=Use", "--column=Item", "--width=420", "--height=320",
    "TRUE", "Go", "FALSE", "Apples", "FALSE", "Red wine", "TRUE", "北京" } },
  { "radiolist", { "--list", "--radiolist", "--column=Pick", "--column=Size", "--width=400", "--height=300",
    "TRUE", "S", "FALSE", "XL", "FALSE", "Large box" } },
  { "entry", { "--entry", "--text=Enter a name", "--entry-text=Ab", "--extra-button=Go" } },
  { "info", { "--info", "--text=Copy done", "--ok-label=Close", "--extra-button=Undo" } },
  { "warning", { "--warning", "--text=Disk full", "--ok-label=OK" } },
}
for _, z in ipairs(zen) do
  local title = "eacu widgets " .. z[1]
  local cmd = { "zenity", "--title=" .. title }
  for _, a in ipairs(z[2]) do cmd[#cmd + 1] = a end
  local p = launch(cmd)
  local w = assert(window({ title = title }, 30))
  assert(wait({ role = "push button" }, 20))
  local shot = shoot("gtk3", z[1])
  fromTree("gtk3", shot, a11y(w), {})
  p:stop()
  wait_vanish({ role = "push button" }, 10)
end

-- GTK2: HexChat's network list (buttons with icons beside their labels).
local hex = launch { "hexchat", "--cfgdir=" .. scratch, "--no-auto" }
assert(window({ pid = hex:pid() }, 30))
local deadline = os.time() + 30
while not exists({ role = "push button", name = "Close" }) and os.time() < deadline do
  if exists({ role = "alert", name = "Warning" }) then
    local wshot = shoot("gtk2", "warning")
    fromTree("gtk2", wshot, a11y(window({ pid = hex:pid() })), {})
    tap { role = "push button", name = "OK", press = true }
    wait_vanish({ role = "alert", name = "Warning" }, 5)
  end
end
local hw = assert(window({ title = "Network List" }, 10))
fromTree("gtk2", shoot("gtk2", "networks"), a11y(hw), {}, hw.title)
tap { role = "push button", name = "Edit...", press = true }
local ew = window({ title = "Edit" }, 10)
if ew then
  fromTree("gtk2", shoot("gtk2", "edit"), a11y(ew), {}, ew.title)
end
hex:stop()

-- Tk: labels and boxes printed by the script.
for _, mode in ipairs({ "main", "menu" }) do
  local p = launch { "python3", here .. "/tk_widgets.py", mode }
  local boxes = {}
  while true do
    local l = assert(p:read_line(30), "tk_widgets.py " .. mode .. " printed no boxes")
    if l == "END" then break end
    local x, y, w, h, role, text = l:match("^BOX\t(%-?%d+)\t(%-?%d+)\t(%d+)\t(%d+)\t([^\t]*)\t(.*)$")
    if x then boxes[#boxes + 1] = { tonumber(x), tonumber(y), tonumber(w), tonumber(h), role, text } end
  end
  local shot = shoot("tk", mode)
  for _, b in ipairs(boxes) do add("tk", shot, b[6], b[1], b[2], b[3], b[4], b[5]) end
  p:stop()
end

-- Xaw: xmessage; its buttons are the last child windows of its form, in order.
local function xmessageShot(name, labels, message)
  local p = launch { "xmessage", "-name", "eacuxm", "-buttons", table.concat(labels, ","), message }
  local w = assert(window({ pid = p:pid() }, 20))
  local shot = shoot("xaw", name)
  local xw = launch { "xwininfo", "-tree", "-id", string.format("0x%x", w.id) }
  local tree = xw:read(10)
  local kids = {}
  -- Lines of the children of the form: "     0x...  (has no name): ()  WxH+X+Y  +AX+AY".
  for ww, hh, ax, ay in tree:gmatch("0x%x+ [^\n]-%s(%d+)x(%d+)%+%-?%d+%+%-?%d+%s+%+(%-?%d+)%+(%-?%d+)") do
    kids[#kids + 1] = { tonumber(ax), tonumber(ay), tonumber(ww), tonumber(hh) }
  end
  -- Buttons: the windows on the lowest row with the same height, left to right.
  local bottom = {}
  for _, k in ipairs(kids) do
    if k[3] < w.w / 2 and k[4] < 60 then bottom[#bottom + 1] = k end
  end
  table.sort(bottom, function(a, b) return a[2] ~= b[2] and a[2] > b[2] or a[1] < b[1] end)
  local row = {}
  for _, k in ipairs(bottom) do
    if k[2] == bottom[1][2] then row[#row + 1] = k end
  end
  table.sort(row, function(a, b) return a[1] < b[1] end)
  assert(#row == #labels, string.format("xmessage %s: %d button windows found, %d labels:\n%s", name, #row, #labels, tree))
  for i, k in ipairs(row) do add("xaw", shot, labels[i], k[1], k[2], k[3], k[4], "push button") end
  p:stop()
end
xmessageShot("buttons", { "OK", "No", "Go", "Retry", "Save all" }, "Choose one")
xmessageShot("more", { "Yes", "Up", "Cancel", "Open File", "Ok" }, "Another message")
tsv:close()
print("labels written: " .. out .. "/labels.tsv")
