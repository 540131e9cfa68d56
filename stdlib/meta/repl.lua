---@meta eacu.repl
-- The REPL's record() and stop() (stdlib/eacu/repl.lua), which `eacu repl` sets as the globals
-- `record` and `stop` (not defined in `eacu run` scripts), in LuaCATS annotations for
-- lua-language-server. Editor stubs only: never loaded by eacu.

---@class eacu.repl
local M = {}

---Starts recording what the person does on the session's device. On an X display the person
---acts on the display itself (XRecord); on any other device (chromium, cdp:URL, adb[:SERIAL],
---agent:HOST:PORT) the studio's record mode runs on the session's device and its page's URL is
---printed (`eacu studio: http://127.0.0.1:PORT/`): the person acts on its live screen there.
---Errors when already recording.
function M.record() end

---The person's actions since record() as script lines (one per action, its proven target and
---the reason as a comment), also added to the REPL's history and to `.record`'s lines when that
---is on. On a studio it waits for the lines' proofs (up to 120 s). Errors when not recording.
---@return string lines
function M.stop() end

return M
