-- WeChat (微信): open the app, search a contact, send a message, go back to the Chats tab.
-- Two paths:
-- - On an Android phone (--device adb, has_apps()): targets come from the element tree
--   (uiautomator: names, content-desc, roles), never from images, so they hold on any phone's
--   size, density and theme: M.android below.
-- - Elsewhere (WeChat for Windows/macOS on a screen): reference images that must be captured on
--   that device (see README.md); none ship with eacu.
-- Loading the module and routing tasks to it work anywhere.
local M = {
  name = "wechat",
  keywords = { "微信", "wechat", "发消息", "发微信", "聊天", "联系人" },
  package = "com.tencent.mm",
  -- The key that goes back one screen: "Escape" on a desktop, the BACK key on a phone.
  back_key = "Escape",
  home_key = "super",
}

local function a(name) return "wechat." .. name end

--- The Android path's targets, all in WeChat's element tree (uiautomator dump). WeChat's own
--- resource-ids are obfuscated and change with each release ("com.tencent.mm:id/b4a"), so the
--- targets are the texts and descriptions a person reads, which do not: the bottom tabs, the
--- search button's content-desc, the contact's row, the 发送 button. A script may replace any
--- entry (e.g. a resource_id target for one WeChat version).
M.android = {
  tab_chats = { name = "微信" },             -- the first bottom tab (the module's home)
  tab_contacts = { name = "通讯录" },        -- beside it: both showing = the Chats tab is up
  search = { name = "搜索" },                -- the magnifier (content-desc) at the top right
  search_box = { role = "text" },           -- the search screen's field (EditText)
  chat_input = { role = "text" },           -- the message field of a chat (EditText)
  send_button = { role = "button", name = "发送" },
}
local droid = M.android

--- on_phone() -> true when the device is an Android phone (the tree path), false on a screen.
function M.on_phone() return require("eacu.step").has_apps() end

--- phone_row(name) -> {x=, y=} or nil: the centre of the element showing `name` on the phone's
--- screen that is not a text field (after a search the field holds the name too, and a field
--- is found before a row's text), from the element tree now.
function M.phone_row(name)
  local function walk(e)
    local b = e.bounds
    if e.name == name and not e.editable and b and b.w > 0 and b.h > 0 then return e end
    for _, c in ipairs(e.children or {}) do
      local found = walk(c)
      if found then return found end
    end
  end
  local e = walk(a11y())
  if e then return { x = e.bounds.x + math.floor(e.bounds.w / 2), y = e.bounds.y + math.floor(e.bounds.h / 2) } end
end

--- in_chat(name) -> true when the phone shows the chat with `name`: its name as a text of its
--- own (the title) and a text field that does not hold the name (the search screen's field,
--- holding it, and its result row are not a chat).
function M.in_chat(name)
  local title, field = false, false
  local function walk(e)
    if e.editable then field = field or e.name ~= name
    elseif e.name == name then title = true end
    for _, c in ipairs(e.children or {}) do walk(c) end
  end
  walk(a11y())
  return title and field
end

-- Android: the Chats tab is up when the tabs 微信 and 通讯录 both show.
local function phone_at_home() return exists(droid.tab_chats, 0) and exists(droid.tab_contacts, 0) end

--- go_home: seed 002's loop: look for the Chats tab; if it is not there press back, wait for
--- the screen to settle and look again, at most `max` (10) times.
function M.go_home(max)
  max = max or 10
  if M.on_phone() then
    for i = 1, max do
      if phone_at_home() then return i - 1 end
      key("back")
      exists(droid.tab_chats, 2) -- waits for the screen to come back; checked again above
    end
    verify(droid.tab_contacts, 1)
    return max
  end
  for i = 1, max do
    if exists(a "tab_chats", 0) then return i - 1 end
    key(M.back_key)
    wait_stable(3)
  end
  verify(a "tab_chats", 1)
  return max
end

--- open_app: from anywhere, open WeChat and verify its Chats tab (seed 002, task type 1).
function M.open_app()
  if M.on_phone() then
    -- In front, on whatever screen it was left (go_home then goes back to the Chats tab).
    local function in_front() local _, package = current_app(); return package == M.package end
    if in_front() then return end
    launch_app(M.package)
    verify(in_front, M.package .. " in front", 20)
    return
  end
  if exists(a "tab_chats", 0) then return end
  key(M.home_key) -- seed 002: home twice reaches the home screen from anywhere
  key(M.home_key)
  step { tap = a "wechat", fallback = { swipe = "left" }, fallback_max = 3, timeout = 3,
         verify = a "tab_chats", name = "open WeChat" }
end

--- search_contact{contact}: opens the chat with `contact` through the search box.
function M.search_contact(p)
  if M.on_phone() then
    -- A row of the chat list when the contact has one, else a result of the search.
    local row = M.phone_row(p.contact)
    if not row then
      step { tap = droid.search, verify = droid.search_box, name = "open search" }
      step { tap = droid.search_box, name = "focus the search box" }
      input(p.contact)
      row = verify(function() return M.phone_row(p.contact) end, "a search result named " .. p.contact, 10)
    end
    step { tap = row, verify = function() return M.in_chat(p.contact) end, name = "open the chat with " .. p.contact }
    return
  end
  step { tap = a "search", verify = a "search_box", name = "open search" }
  step { tap = a "search_box", name = "focus the search box" }
  input(p.contact)
  wait_stable(3)
  -- The result row: a captured image of the contact if there is one, else the model finds it.
  local row = M.has_image("contact_" .. p.contact) and a("contact_" .. p.contact)
    or { dynamic = "搜索结果中的联系人 " .. p.contact }
  step { tap = row, verify = a "chat_input", name = "open the chat with " .. p.contact }
end

--- send_message{contact, text}: seed 002 task type 2.
function M.send_message(p)
  M.open_app()
  M.go_home()
  M.search_contact(p)
  if M.on_phone() then
    step { tap = droid.chat_input, name = "focus the message box" }
    input(p.text)
    step { tap = droid.send_button, name = "send", risky = false }
    -- Sent: the message shows in the chat as a text of its own (not in the field: it is emptied).
    verify({ role = "label", name = p.text }, 10)
    M.go_home()
    return
  end
  step { tap = a "chat_input", name = "focus the message box" }
  input(p.text)
  step { tap = a "send_button", name = "send", risky = false }
  M.go_home()
end

--- True when the asset `wechat.<name>` has been captured and listed in images/index.json.
function M.has_image(name)
  for _, n in ipairs(eacu.assets()) do if n == "wechat." .. name then return true end end
  return false
end

M.templates = {
  open_app = { patterns = { "打开微信", "open wechat" }, run = function() M.open_app() end },
  go_home = { patterns = { "返回微信首页", "回到微信首页" }, run = function() return M.go_home() end },
  search_contact = {
    patterns = { "在微信搜索{contact}", "打开和{contact}的聊天", "找{contact}聊天" },
    params = { "contact" },
    run = function(p) M.open_app(); M.search_contact(p) end,
  },
  send_message = {
    patterns = { "给{contact}发消息说{text}", "给{contact}发微信消息说{text}", "给{contact}发微信说{text}",
                 "给{contact}发消息：{text}", "给{contact}发消息 {text}", "send {contact} a message saying {text}" },
    params = { "contact", "text" },
    risky = true, -- sending a message to a person needs a yes (fails closed without a terminal)
    run = function(p) M.send_message(p) end,
  },
}

return M
