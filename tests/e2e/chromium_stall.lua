-- chromium_stall.sh's script: a page whose script spins, and a page whose renderer is killed.
-- arg[1]: spin | crash | ready; arg[2]: the page; arg[3]: (spin) the page opened after.
local part, page, after = arg[1], arg[2], arg[3]
if part == "spin" then
  -- OCR's models are loaded on a page that does not spin (under the sanitizers the first read
  -- of a run takes about 4 s: the wait below then ended "not found" after one look, before any
  -- capture met the spin, and the step's second attempt took it past timeout + 1 s).
  open_url(after)
  wait("text:Ready here", 30)
end
open_url(page)
if part == "spin" then
  -- The page starts `while (true) {}` 1.5 s after its load: every capture of the wait below
  -- waits for a renderer that never answers, until the step's deadline (4 s + 1 s).
  print("opened") io.stdout:flush()
  local ok, err = pcall(step, { wait = "text:Never shown here", timeout = 4 })
  print("stalled step: " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err))
  -- The same page answers again (its script was ended): a navigation and a wait work.
  open_url(after)
  wait("text:Ready here", 10)
  print("after the stall: ready")
elseif part == "crash" then
  print("waiting") io.stdout:flush()
  local ok, err = pcall(step, { wait = "text:Never shown here", timeout = 30 })
  print("crashed step: " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err))
elseif part == "ready" then
  wait("text:Ready here", 10)
  print("ready")
else
  error("chromium_stall.lua: expected spin, crash or ready, got " .. tostring(part))
end
