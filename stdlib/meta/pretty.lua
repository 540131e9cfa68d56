---@meta eacu.pretty
-- Readable printing of Lua values (stdlib/eacu/pretty.lua; the REPL prints results with it),
-- in LuaCATS annotations for lua-language-server. Editor stubs only: never loaded by eacu.

---@class PrettyOptions
---@field indent? string one level of indentation (default "  ")
---@field depth? integer nesting shown before "{...}" (default 6)
---@field width? integer short tables stay on one line up to this many characters (default 80)

---@class eacu.pretty
local M = {}

---A value as readable text: tables nested and indented, keys sorted, cycles marked, Matches
---(and anything with __tostring) by their own form.
---@param value any
---@param opts? PrettyOptions
---@return string
function M.format(value, opts) end

---Prints each value formatted, separated by tabs (nothing for no values).
---@param ... any
function M.print(...) end

return M
