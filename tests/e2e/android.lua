-- An Android device through adb (the stand-in of tests/adb_device, or a phone): the chat app
-- launched by its package, a chat opened by the contact's name in the element tree, Chinese
-- typed (ADBKeyBoard) and sent with {role="button", name="发送"}, verified in the tree; a
-- second chat opened by OCR text, its field set by resource_id, sent by the send button's
-- image, verified by text; back through the BACK key.
-- arg[1]: the send button's reference image (PNG).
local send_png = assert(arg[1], "expected the send button's image as arg[1]")
local w, h, scale = screen_size()
print(string.format("screen %dx%d@%g", w, h, scale))

launch("com.example.chat")
local activity, package = current_app()
assert(package == "com.example.chat", "current_app: expected com.example.chat, got " .. tostring(activity))

-- The element tree: the contact by name, the field by resource_id, the button by role and name.
tap("a11y:张三")
wait({ resource_id = "chat_title", name = "张三" }, 10)
tap({ resource_id = "com.example.chat:id/input" })
input("你好，世界")
tap({ role = "button", name = "发送" })
wait({ resource_id = "message_0", name = "你好，世界" }, 10)
local tree = a11y()
local app
for _, a in ipairs(tree.children) do if a.app == "com.example.chat" then app = a end end
assert(app and app.role == "application", "the tree has the app com.example.chat")
key("back")
wait({ resource_id = "title", name = "Chats" }, 10)

-- OCR text, set_text by resource_id (ASCII: input text), the send button by its image.
tap("text:Alice")
wait({ resource_id = "chat_title", name = "Alice" }, 10)
tap({ resource_id = "input" })
key("X")  -- typed; set_text then replaces it
wait({ resource_id = "input", name = "X" }, 10)
set_text { resource_id = "input", text = "hello eacu" }
tap(send_png)
verify("text:hello eacu")
wait({ resource_id = "message_0", name = "hello eacu" }, 10)
key("back")
wait({ resource_id = "title", name = "Chats" }, 10)
print("android: both chats sent")
