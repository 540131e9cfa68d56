-- One message sent on the stand-in with frames from the video stream (tests/e2e/android_stream.sh):
-- Alice's chat opened by OCR text (on a frame of the stream when it works), Chinese typed
-- through ADBKeyBoard, sent by the tree's 发送, waited for, back to the list.
-- arg[1]: the message.
local message = assert(arg[1], "expected a message as arg[1]")
launch("com.example.chat")
wait({ resource_id = "title", name = "Chats" }, 10)
tap("text:Alice")
wait({ resource_id = "chat_title", name = "Alice" }, 10)
tap({ resource_id = "input" })
input(message)
tap({ role = "button", name = "发送" })
wait({ role = "label", name = message }, 10)
key("back")
wait({ resource_id = "title", name = "Chats" }, 10)
print("stream: sent " .. message)
