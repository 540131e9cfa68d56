-- What a device agent adds to a screen (eacu._agent; --device agent:HOST:PORT, e.g.
-- eacu-agent.exe on Windows): its clipboard, and programs started on the agent's machine.
local native = require("eacu._agent")
local failure = require("eacu.failure")

local M = {}

--- clipboard() -> the clipboard's text ("" when it holds none); clipboard(text) puts text there.
function M.clipboard(text)
  if text == nil then return failure.call(2, native.clipboard_get) end
  if type(text) ~= "string" then
    error("clipboard: expected a string to put on the clipboard (or nothing to read it), got " .. type(text), 2)
  end
  failure.call(2, native.clipboard_set, text)
end

local RemoteProcess = {}
RemoteProcess.__index = RemoteProcess

function RemoteProcess.__tostring(p) return string.format("RemoteProcess{pid=%d %q}", p.pid, p.command) end

--- p:wait([timeout]) -> its exit code, or nil when it still runs after timeout seconds (default 10).
function RemoteProcess:wait(timeout)
  if getmetatable(self) ~= RemoteProcess then error("RemoteProcess:wait: call it as p:wait(timeout)", 2) end
  if timeout ~= nil and type(timeout) ~= "number" then
    error("RemoteProcess:wait: expected a timeout in seconds, got " .. type(timeout), 2)
  end
  return failure.call(2, native.wait, self.pid, timeout or 10)
end

--- remote_launch(command_line) -> RemoteProcess {pid, command}: starts a program on the agent's
--- machine (Windows: CreateProcessW of the command line, e.g. "notepad.exe C:\\a.txt").
function M.remote_launch(cmd)
  if type(cmd) ~= "string" or cmd == "" then
    error("remote_launch: expected a command line string, got " .. (cmd == "" and "an empty string" or type(cmd)), 2)
  end
  local pid = failure.call(2, native.launch, cmd)
  return setmetatable({ pid = pid, command = cmd }, RemoteProcess)
end

M.RemoteProcess = RemoteProcess
return M
