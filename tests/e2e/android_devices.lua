-- One run of several on different Android devices at once (tests/e2e/android_devices.sh):
-- arg[1] the message to send to 张三 `rounds` (arg[2], default 1) times, each round's own ("TEXT
-- 1", "TEXT 2", ...: a round reads back its own message, not an earlier one still on screen):
-- the chat opened by the tree, the text typed (ADBKeyBoard), sent, verified in the tree, back to
-- the list. Every wait of a round has the step timeout arg[3] (default 10 s).
local text, rounds, timeout = assert(arg[1], "expected a message as arg[1]"), tonumber(arg[2] or "1"), tonumber(arg[3] or "10")
launch("com.example.chat")
for i = 1, rounds do
  tap("a11y:张三", { timeout = timeout })
  wait({ resource_id = "chat_title", name = "张三" }, timeout)
  tap({ resource_id = "input" }, { timeout = timeout })
  local message = text .. " " .. i
  input(message)
  tap({ role = "button", name = "发送" }, { timeout = timeout })
  wait({ role = "label", name = message }, timeout)
  key("back")
  wait({ resource_id = "title", name = "Chats" }, timeout)
end
print("sent " .. text .. " " .. rounds .. " times")
