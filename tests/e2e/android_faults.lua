-- Faults on the adb stand-in (tests/adb_device, its control folder arg[2]); arg[1] the case.
local mode, control = arg[1], arg[2]
local function set(name, value)
  local f = assert(io.open(control .. "/" .. name, "w"))
  f:write(value)
  f:close()
end

if mode == "idle" then
  -- The first dumps print "could not get idle state": retried, then the tap lands.
  tap("a11y:Alice")
  wait({ resource_id = "chat_title", name = "Alice" }, 10)
  key("back")
  print("idle: retried")
elseif mode == "idle_forever" then
  -- The dump is retried until the step's own deadline (timeout 2 s), not longer.
  local now = require("eacu._native").now
  local t0 = now()
  local ok, err = pcall(tap, "a11y:Alice", { timeout = 2 })
  assert(not ok, "a tree target on a screen that never idles fails")
  print(string.format("idle_forever: after %.1f s: %s", now() - t0, tostring(err)))
elseif mode == "idle_long" then
  -- A screen that animates for longer than any fixed bound: a step with a long timeout waits.
  local now = require("eacu._native").now
  local t0 = now()
  tap("a11y:Alice", { timeout = 60 })
  print(string.format("idle_long: the tap found its target after %.1f s", now() - t0))
  wait({ resource_id = "chat_title", name = "Alice" }, 10)
  key("back")
elseif mode == "rotate" then
  local w, h = screen_size()
  print(string.format("before %dx%d", w, h))
  set("rotation", "1")
  tap("a11y:Alice")
  wait({ resource_id = "chat_title", name = "Alice" }, 10)
  verify("text:Alice")
  w, h = screen_size()
  print(string.format("after %dx%d", w, h))
  key("back")
  set("rotation", "0")
  wait({ resource_id = "title", name = "Chats" }, 10)
  verify("text:Alice")  -- a capture: its size tells the turn back
  w, h = screen_size()
  print(string.format("back %dx%d", w, h))
elseif mode == "black" then
  local ok, err = pcall(tap, "text:Alice", { timeout = 2 })
  assert(not ok, "a text target on a black screen fails")
  print("black: " .. tostring(err))
  -- The tree still reads.
  tap("a11y:Alice")
  wait({ resource_id = "chat_title", name = "Alice" }, 10)
  key("back")
  print("black: the tree still works")
elseif mode == "png" then
  tap("text:Alice")
  wait({ resource_id = "chat_title", name = "Alice" }, 10)
  key("back")
  print("png: ok")
elseif mode == "disconnect" then
  for i = 1, 1000 do
    tap("a11y:张三")
    wait({ resource_id = "chat_title", name = "张三" }, 10)
    key("back")
    wait({ resource_id = "title", name = "Chats" }, 10)
  end
end
