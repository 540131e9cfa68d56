-- WeChat (微信): open the app, search a contact, send a message, go back to the Chats tab.
-- STRUCTURE ONLY: the reference images this module uses are placeholders that must be captured
-- on a real device showing WeChat (see README.md); none ship with eacu. Loading the module and
-- routing tasks to it work anywhere; running a template needs the device and the images.
local M = {
  name = "wechat",
  keywords = { "微信", "wechat", "发消息", "发微信", "聊天", "联系人" },
  package = "com.tencent.mm",
  -- The key that goes back one screen: "Escape" on a desktop, the BACK key on a phone.
  back_key = "Escape",
  home_key = "super",
}

local function a(name) return "wechat." .. name end

--- go_home: seed 002's loop: look for the Chats tab; if it is not there press back, wait for
--- the screen to settle and look again, at most `max` (10) times.
function M.go_home(max)
  max = max or 10
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
  if exists(a "tab_chats", 0) then return end
  key(M.home_key) -- seed 002: home twice reaches the home screen from anywhere
  key(M.home_key)
  step { tap = a "wechat", fallback = { swipe = "left" }, fallback_max = 3, timeout = 3,
         verify = a "tab_chats", name = "open WeChat" }
end

--- search_contact{contact}: opens the chat with `contact` through the search box.
function M.search_contact(p)
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
                 "给{contact}发消息：{text}", "send {contact} a message saying {text}" },
    params = { "contact", "text" },
    risky = true, -- sending a message to a person needs a yes (fails closed without a terminal)
    run = function(p) M.send_message(p) end,
  },
}

return M
