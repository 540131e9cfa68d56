---@meta eacu.match
-- Match values (stdlib/eacu/match.lua), in LuaCATS annotations for lua-language-server.
-- Editor stubs only: never loaded by eacu. The Match class is in types.lua.

---@class eacu.match
local M = {}

---Gives a match table from the native module the Match metatable (in place).
---@param t table?
---@return Match?
function M.wrap(t) end

---True when `v` is a Match.
---@param v any
---@return boolean
function M.is(v) end

return M
