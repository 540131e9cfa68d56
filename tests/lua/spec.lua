-- Assertions shared by the Lua specs (tests/lua/*_spec.lua), which `eacu run` runs: each check
-- is counted, a failure is reported on stderr, and finish() raises if any failed.
local M = { passed = 0, failures = 0 }

--- Counts `cond`; reports `what` when it is false.
function M.check(cond, what)
  if cond then
    M.passed = M.passed + 1
  else
    M.failures = M.failures + 1
    io.stderr:write("FAIL: " .. what .. "\n")
  end
end

--- Runs fn(...), which must fail; returns the error message.
function M.error_of(fn, ...)
  local ok, err = pcall(fn, ...)
  M.check(not ok, "expected an error")
  return tostring(err)
end

--- True when `part` occurs in `s` (plain text).
function M.has(s, part) return string.find(s, part, 1, true) ~= nil end

--- Checks that `s` contains `part`.
function M.expect_has(s, part, what)
  M.check(M.has(s, part), what .. ": expected " .. string.format("%q", part) .. " in: " .. s)
end

--- Prints "<name>: N passed, N failed" and raises when a check failed.
function M.finish(name)
  io.write(string.format("%s: %d passed, %d failed\n", name, M.passed, M.failures))
  if M.failures > 0 then error(M.failures .. " checks failed", 0) end
end

return M
