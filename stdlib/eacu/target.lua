-- Normalizes what scripts pass as a target into what eacu._native accepts.
local match = require("eacu.match")
local windows = require("eacu.windows")

local M = {}

--- Returns a target for the native module:
---   "name" or "path.png"            -> the string (asset name/alias, then image path)
---   "text:Library Reference"        -> the string (a phrase read by OCR)
---   "a11y:OK"                       -> the string (an element of the accessibility tree by name)
---   {role=, name=, press=}          -> the table (the accessibility tree; press = true calls
---                                      the element's action instead of clicking its centre)
---   {text=..., threshold=, region=, lang=} -> the table (OCR; fuzzy above threshold 0.8)
---   {image=..., threshold=, region=, offset=} / {"name", ...} -> the table
---   {x=, y=}                        -> the table (pixels, or fractions in 0..1)
---   a Match                         -> its input point {x=cx, y=cy}
--- Raises an error naming what was expected otherwise.
--- With `opts` (or the target table itself) carrying window = (a window or a query as window()
--- takes), raise = true or focus = false, the result is a table with the window's id in
--- `window` and those flags: the target is then looked for in that window's own pixels.
function M.normalize(t, fname, opts)
  local n = M.plain(t, fname, 4)
  local from = (type(t) == "table" and not match.is(t)) and t or {}
  local win, raise, focus = from.window, from.raise, from.focus
  if opts ~= nil then
    if win == nil then win = opts.window end
    if raise == nil then raise = opts.raise end
    if focus == nil then focus = opts.focus end
  end
  if raise ~= nil and type(raise) ~= "boolean" then
    error(string.format("%s: raise must be true or false, got %s", fname, type(raise)), 3)
  end
  if focus ~= nil and type(focus) ~= "boolean" then
    error(string.format("%s: focus must be true or false, got %s", fname, type(focus)), 3)
  end
  if win == nil then
    if raise or focus == false then
      error(fname .. ": raise = true and focus = false need a window (window = w or a query such as \"xcalc\")", 3)
    end
    return n
  end
  local out = {}
  if type(n) == "string" then
    if n:sub(1, 5) == "text:" then out.text = n:sub(6)
    elseif n:sub(1, 5) == "a11y:" then out.name = n:sub(6)
    else out[1] = n end
    out.label = '"' .. n .. '"'
  else
    for k, v in pairs(n) do out[k] = v end
  end
  out.window = type(win) == "number" and win or windows.id_of(win, fname, 4)
  out.raise, out.focus = raise, focus
  return out
end

--- plain(t, fname [, level=3]): normalize without window options; errors raised `level` up.
function M.plain(t, fname, level)
  level = level or 3
  local kind = type(t)
  if kind == "string" then
    if t == "" then error(fname .. ": empty target (expected an asset name or image path)", level) end
    return t
  end
  if kind == "table" then
    if match.is(t) then
      return { x = t.cx, y = t.cy, label = string.format("match(%d,%d)", t.cx, t.cy) }
    end
    if t.image or t.text or type(t[1]) == "string" or (t.x ~= nil and t.y ~= nil) then return t end
    if t.role ~= nil or t.name ~= nil then return t end
    if t.dynamic then
      error(fname .. ": dynamic (model) targets work with tap, double_tap, long_press, locate, exists, wait " ..
        "and verify, not here", level)
    end
  end
  error(string.format("%s: expected a target (asset name, image path, \"text:...\", \"a11y:...\", {image=...}, {text=...}, {role=, name=}, {x=, y=} or a Match), got %s",
    fname, kind == "table" and "a table without image, text, role/name or x/y" or kind), level)
end

return M
