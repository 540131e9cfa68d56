-- Readable printing of Lua values for the REPL: tables nested and indented, keys sorted,
-- cycles marked, Matches (and anything with __tostring) by their own form.
local M = {}

local function is_identifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

local function scalar(v)
  local t = type(v)
  if t == "string" then return string.format("%q", v):gsub("\\\n", "\\n") end
  if t == "number" then
    if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%d", v) end
    return string.format("%.6g", v)
  end
  return tostring(v)
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return keys
end

--- format(value [, opts]) -> string. opts: indent (default "  "), depth (default 6),
--- width (short tables on one line up to this many characters, default 80).
function M.format(v, opts)
  opts = opts or {}
  local indent, max_depth, width = opts.indent or "  ", opts.depth or 6, opts.width or 80
  local seen = {}
  local function fmt(x, depth)
    if type(x) ~= "table" then return scalar(x) end
    local mt = getmetatable(x)
    if mt and mt.__tostring then return tostring(x) end
    if seen[x] then return "<cycle " .. tostring(x) .. ">" end
    if depth >= max_depth then return "{...}" end
    seen[x] = true
    local parts, n = {}, #x
    for i = 1, n do parts[#parts + 1] = fmt(x[i], depth + 1) end
    for _, k in ipairs(sorted_keys(x)) do
      if not (type(k) == "number" and k >= 1 and k <= n and k == math.floor(k)) then
        local key = is_identifier(k) and k or ("[" .. fmt(k, depth + 1) .. "]")
        parts[#parts + 1] = key .. " = " .. fmt(x[k], depth + 1)
      end
    end
    seen[x] = nil
    if #parts == 0 then return "{}" end
    local one = "{ " .. table.concat(parts, ", ") .. " }"
    if #one <= width and not one:find("\n") then return one end
    local pad = string.rep(indent, depth + 1)
    return "{\n" .. pad .. table.concat(parts, ",\n" .. pad) .. "\n" .. string.rep(indent, depth) .. "}"
  end
  return fmt(v, 0)
end

--- print(...) prints each value formatted, separated by tabs (nothing for no values).
function M.print(...)
  local n = select("#", ...)
  if n == 0 then return end
  local out = {}
  for i = 1, n do out[i] = M.format((select(i, ...))) end
  io.write(table.concat(out, "\t"), "\n")
  io.stdout:flush()
end

return M
