-- Normalizes what scripts pass as a target into what eacu._native accepts.
local match = require("eacu.match")

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
function M.normalize(t, fname)
  local kind = type(t)
  if kind == "string" then
    if t == "" then error(fname .. ": empty target (expected an asset name or image path)", 3) end
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
        "and verify, not here", 3)
    end
  end
  error(string.format("%s: expected a target (asset name, image path, \"text:...\", \"a11y:...\", {image=...}, {text=...}, {role=, name=}, {x=, y=} or a Match), got %s",
    fname, kind == "table" and "a table without image, text, role/name or x/y" or kind), 3)
end

return M
