-- Match values: the tables eacu._native returns for locate/find_all/tap, with a readable form.
local M = {}

local Match = {}
Match.__index = Match

function Match.__tostring(m)
  return string.format("Match{%s box=(%d,%d %dx%d) at=(%d,%d) score=%.3f colour=%.3f threshold=%.2f method=%s scale=%.2f %.1fms}",
    m.found and "found" or "NOT found", m.x, m.y, m.w, m.h, m.cx, m.cy, m.score,
    m.color_score or 0, m.threshold, m.method, m.scale, m.ms or 0) ..
    (m.veto and (" rejected: it " .. m.veto) or "")
end

--- The centre of the match's input point (x, y) in physical pixels.
function Match:center() return self.cx, self.cy end

--- Wraps a table from the native module as a Match (in place).
function M.wrap(t)
  if t == nil then return nil end
  return setmetatable(t, Match)
end

--- True when `v` is a Match.
function M.is(v) return getmetatable(v) == Match end

return M
