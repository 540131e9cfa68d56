-- A phone's behaviour and costs (tests/e2e/android_phone.sh, the stand-in with --costs phone):
-- inputs drawn late, the ADB keyboard bound a moment after `ime set`, the tree reused while the
-- screen holds, secrets kept off the broadcast. arg[1]: the message to send to 张三.
local message = assert(arg[1], "expected a message as arg[1]")
launch("com.example.chat")
tap("a11y:张三")
wait({ resource_id = "chat_title", name = "张三" }, 10)
tap({ resource_id = "input" })
input(message)  -- ADBKeyBoard: selected, bound, broadcast, then read back in the tree
tap({ role = "button", name = "发送" })
wait({ role = "label", name = message }, 10)
-- A secret marked in the script, ASCII: `input text`, not the broadcast, not in the run log (the
-- field shows it, so nothing here reads the field back: the tree would name it).
tap({ resource_id = "input" })
input("s3cret-code", { secret = true })
-- A secret that `input text` cannot carry: refused, nothing sent.
local ok, err = pcall(input, "密码口令", { secret = true })
assert(not ok, "a non-ASCII secret was typed")
print("refused: " .. tostring(err))
key("back")
wait({ resource_id = "title", name = "Chats" }, 10)
-- The 我 tab's PIN field is a password field (the tree says so): ASCII through `input text`.
tap("a11y:我")
wait({ resource_id = "pin" }, 10)
input("4321")
wait({ resource_id = "pin", name = "••••" }, 10)
local ok2, err2 = pcall(input, "六六六")
assert(not ok2, "non-ASCII text was typed into a password field")
print("refused in the password field: " .. tostring(err2))
key("back")
wait({ resource_id = "title", name = "Chats" }, 10)
print("phone: done")
