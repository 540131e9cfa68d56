---@meta eacu.failure
-- Failure values (stdlib/eacu/failure.lua), in LuaCATS annotations for lua-language-server.
-- Editor stubs only: never loaded by eacu. The EacuError class is in types.lua.

---@class eacu.failure
local M = {}

---True when `v` is a failure value (an `EacuError`).
---@param v any
---@return boolean
function M.is(v) end

---Makes a failure value; `tostring` of it gives `message`.
---@param t {code: string, message: string, target?: string, best?: Match, frame_id?: integer, step_id?: integer}
---@return EacuError
function M.new(t) end

---Raises `err` at `level` as `error(err, level)` does (1 = the caller of raise). A failure value
---gets that level's script position as its `where`; any other value is raised as error() would.
---@param err any
---@param level? integer default 1
function M.raise(err, level) end

---Calls `fn(...)` and returns its results; an error it raises is re-raised `level` frames up
---(1 = the caller of call, 2 = its caller) through raise, so a failure points at the script's line.
---@param level integer
---@param fn function
---@return any ...
function M.call(level, fn, ...) end

return M
