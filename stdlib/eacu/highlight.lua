-- highlight(m): a short-lived outline on the real screen around what was found.
local match = require("eacu.match")

--- highlight(what [, seconds=1.5 [, colour=0xff2d55]]) -> what.
--- `what`: a Match, a box {x=, y=, w=, h=} or a target (located first, one look).
--- Draws an outline just outside the box for `seconds` without blocking (X11 only).
return function(what, seconds, colour)
  local ok, native = pcall(require, "eacu._highlight")
  if not ok then
    error("highlight: not available in this host (needs the native module eacu._highlight, which eacu repl registers)", 2)
  end
  local box = what
  if type(what) == "string" or (type(what) == "table" and not match.is(what) and what.w == nil) then
    local m, why = eacu.locate(what)
    if not m then error("highlight: " .. tostring(why), 2) end
    box = m
  end
  if type(box) ~= "table" or type(box.x) ~= "number" or type(box.w) ~= "number" then
    error("highlight: expected a Match, a box {x=, y=, w=, h=} or a target, got " .. type(what), 2)
  end
  if seconds ~= nil and (type(seconds) ~= "number" or seconds <= 0) then
    error("highlight: seconds must be a number > 0, got " .. tostring(seconds), 2)
  end
  native.show(box.x, box.y, box.w, box.h, seconds or 1.5, colour or 0xff2d55)
  return what
end
