---@meta _
-- A device agent's clipboard and programs (stdlib/eacu/remote.lua; also `eacu.clipboard`,
-- `eacu.remote_launch`), for a script run with
-- --device agent:HOST:PORT (eacu-agent.exe on Windows, docs/agent-protocol.md). Editor stubs
-- only: never loaded by eacu. On any other device these raise an error naming the device.

---A program started on the agent's machine by remote_launch.
---@class RemoteProcess
---@field pid integer its process id on the agent's machine
---@field command string the command line it was started with
local RemoteProcess = {}

---Waits up to `timeout` seconds (default 10) for the program to end.
---@param timeout? number
---@return integer|nil code its exit code, nil when it still runs
function RemoteProcess:wait(timeout) end

---Reads the clipboard's text (no argument; "" when it holds none) or puts `text` there.
---@param text? string UTF-8
---@return string|nil text the clipboard's text when called without an argument
function clipboard(text) end

---Starts a program on the agent's machine (Windows: CreateProcessW of the command line).
---@param command_line string e.g. "notepad.exe C:\\notes.txt"
---@return RemoteProcess
function remote_launch(command_line) end

eacu.clipboard = clipboard
eacu.remote_launch = remote_launch
