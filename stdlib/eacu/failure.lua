-- Failure values: what a failed step raises. A table with
--   code     = "not_found" | "no_effect" | "verify_failed" | "limit" | "timeout" | "cancelled" |
--              "blocked" | "refused" | "invalid" | "covered" | "device" | "model" | "failed",
--   message  = the message, target = the target's label (or nil), best = the best candidate
--   seen (a Match, or nil), frame_id and step_id = run-log rows (or nil),
--   where    = "script.lua:3: " (the script line it was raised at),
-- and tostring(err) = where .. message: the text `eacu run` prints. String methods and `..`
-- work on that text, so `err:find("not found")` still works; prefer `err.code == "not_found"`.
-- Argument errors (a bad target, an unknown key) stay strings.
local steps = require("eacu._steps")
local match = require("eacu.match")

local M = {}

--- is(v) -> true when `v` is a failure value.
function M.is(v) return steps.is_failure(v) end

--- new{code=, message=, target=, best=, frame_id=, step_id=} -> a failure value (the table).
function M.new(t) return steps.failure(t) end

--- raise(err, level): raises `err` at `level` (as error(err, level) does, 1 = the caller of
--- raise). A failure value gets the position of that level as its `where` (the first raise
--- decides it, as the first error(msg, level) prefixed a string); its best candidate becomes a
--- Match. Any other error is raised as error() would.
function M.raise(err, level)
  level = level or 1
  if steps.is_failure(err) then
    if rawget(err, "where") == nil then
      local info = level > 0 and debug.getinfo(level + 1, "Sl") or nil
      rawset(err, "where", (info and info.currentline > 0) and (info.short_src .. ":" .. info.currentline .. ": ") or "")
    end
    local best = rawget(err, "best")
    if type(best) == "table" and not match.is(best) then match.wrap(best) end
    error(err, 0)
  end
  error(err, level > 0 and level + 1 or 0)
end

--- call(level, fn, ...) -> fn's results. Calls the native function `fn`; a failure it raises is
--- re-raised `level` frames up (1 = the caller of call, 2 = its caller: the script's line when
--- a public function calls it). A failed step is a failure value, other errors are strings.
function M.call(level, fn, ...)
  local results = { pcall(fn, ...) }
  if not results[1] then M.raise(results[2], level + 1) end
  return unpack(results, 2, table.maxn(results))
end

return M
