-- REPL helpers: completion of globals and module members, printing results.
local pretty = require("eacu.pretty")

local M = {}

local keywords = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

-- The fields of a table and of the tables its metatables' __index chain leads to.
local function fields(t, out, seen)
  seen = seen or {}
  if type(t) ~= "table" or seen[t] then return out end
  seen[t] = true
  for k in pairs(t) do
    if type(k) == "string" then out[k] = true end
  end
  local mt = getmetatable(t)
  if mt and type(mt.__index) == "table" then fields(mt.__index, out, seen) end
  return out
end

--- complete(word) -> sorted list of completions of `word`, an identifier path being typed
--- such as "ta", "eacu.sc", "calc.rea" or "m:cen": globals and keywords, then members of
--- the table the path names (methods after ':'; string methods for strings).
function M.complete(word)
  local base, sep, partial = word:match("^(.-)([%.:])([%w_]*)$")
  local names = {}
  if base and base ~= "" then
    local v = _G
    for part in base:gmatch("[^%.:]+") do
      if type(v) ~= "table" and type(v) ~= "string" then return {} end
      if not part:match("^[%a_][%w_]*$") then return {} end
      if type(v) == "string" then return {} end
      v = v[part]
    end
    if type(v) == "string" then v = string end
    if type(v) ~= "table" then return {} end
    for k in pairs(fields(v, {})) do
      if k:sub(1, #partial) == partial and k:match("^[%a_][%w_]*$") then
        local value = v[k]
        if sep == "." or type(value) == "function" then names[#names + 1] = base .. sep .. k end
      end
    end
  else
    for k in pairs(fields(_G, {})) do
      if k:sub(1, #word) == word and k:match("^[%a_][%w_]*$") then names[#names + 1] = k end
    end
    for _, k in ipairs(keywords) do
      if k:sub(1, #word) == word then names[#names + 1] = k end
    end
  end
  table.sort(names)
  return names
end

--- show(...) prints the results of an expression readably.
M.show = pretty.print

-- The REPL's native side (app/repl: the recorder, readline's history), which eacu repl registers.
local function native(verb)
  local ok, n = pcall(require, "eacu._repl")
  if not ok then error(verb .. ": only in eacu repl (needs the native module eacu._repl, which eacu repl registers)", 3) end
  return n
end

--- record(): starts recording what the person does on the session's device (eacu repl sets it
--- as the global record). On an X display the person acts on the display; on another device
--- (chromium, cdp:URL, adb, agent) the studio's record mode runs on the session's device and its
--- page's URL is printed ("eacu studio: http://127.0.0.1:PORT/"). Errors when already recording.
function M.record()
  print(native("record").record())
end

--- stop() -> string: the person's actions since record() as script lines, one per action with
--- its proven target and the reason as a comment; they are also added to the REPL's history and
--- to .record's lines when that is on (eacu repl sets it as the global stop). Errors when not
--- recording.
function M.stop()
  local lines, n = native("stop").stop()
  print(n .. " line" .. (n == 1 and "" or "s") .. " recorded (Up recalls them):")
  return lines
end

return M
