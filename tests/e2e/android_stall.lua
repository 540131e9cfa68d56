-- android_stall.sh's script on the adb stand-in. arg[1]: the part; arg[2]: the stand-in's
-- control folder (its `stall` fault, taken by the first command it names). "stalls": for each
-- of screencap, uiautomator and input, one step with a timeout of 3 s meets the stall and its
-- failure is printed, then a step that must pass on the same device runs (the stalled
-- connection was dropped, a new one answers).
local part, control = arg[1], arg[2]
local now = require("eacu._native").now

local function stalled(name, spec)
  local f = assert(io.open(control .. "/stall", "w"))
  f:write(name)
  f:close()
  local t0 = now()
  local ok, err = pcall(step, spec)
  print(string.format("%s: %s after %.2f s: code %s: %s", name, tostring(ok), now() - t0,
    tostring(type(err) == "table" and err.code or nil), tostring(err)))
  os.remove(control .. "/stall")  -- when the step did not reach the command (the shell test then fails)
end

-- The chat `name` is open (a tap by the tree opens it first unless `opened`); back to the list.
local function chat(name, opened)
  if not opened then tap("a11y:" .. name) end
  wait({ resource_id = "chat_title", name = name }, 10)
  key("back")
  wait({ resource_id = "title", name = "Chats" }, 10)
end

if part == "stalls" then
  -- The first capture of the run is a raw screencap: half the image comes, then nothing.
  stalled("screencap", { wait = "text:Never shown here", timeout = 3 })
  wait("text:Alice", 10)  -- a new screencap connection answers
  print("screencap: the next step passed")
  stalled("uiautomator", { tap = "a11y:Alice", timeout = 3 })
  chat("Alice")
  print("uiautomator: the next step passed")
  -- The tap is carried out (the chat opens) but the shell never answers it.
  stalled("input", { tap = "text:Alice", timeout = 3 })
  chat("Alice", true)
  print("input: the next step passed")
elseif part == "screenrecord" then
  -- The video stream opens and never sends a picture: steps go on with raw frames and the tree.
  chat("Alice")
  print("screenrecord: steps passed on a silent stream")
elseif part == "ready" then
  verify("text:Alice")
  chat("张三")
  print("ready: passed")
else
  error("android_stall.lua: expected stalls, screenrecord or ready, got " .. tostring(part))
end
