-- Types every line of arg[1] (mixed CJK and Latin) into a GTK entry (zenity) and xterm (cat
-- into arg[2]), each followed by Return, and prints what each program received. (Tk misreads a
-- few of them while keycodes are reused: docs/not-there-yet.md; its case here is the run that
-- exits right after typing, in typed_text.sh.)
local native = require("eacu._native")
local strings = {}
for line in io.lines(arg[1]) do strings[#strings + 1] = line end

-- GTK: one entry holds them all, separated by "|"; zenity prints it at the last Return.
local zen = launch { "zenity", "--entry", "--title", "eacu typed text gtk", "--text", "Type:" }
window({ title = "eacu typed text gtk" }, 20):focus()
for i, s in ipairs(strings) do
  input(s)
  if i < #strings then input("|") end
end
key "Return"
print("gtk " .. zen:read(20))

-- xterm: cat writes each line to arg[2].
local xt = launch { "env", "LC_ALL=C.UTF-8", "xterm", "-u8", "-T", "eacu typed text xterm",
                    "-e", "sh", "-c", "cat > '" .. arg[2] .. "'" }
window({ title = "eacu typed text xterm" }, 20):focus()
for _, s in ipairs(strings) do
  input(s)
  key "Return"
end
-- cat has written every line once the file holds as many (a deadline, not a pause).
local t0 = native.now()
local n = 0
while n < #strings and native.now() - t0 < 20 do
  n = 0
  local f = io.open(arg[2])
  if f then for _ in f:lines() do n = n + 1 end f:close() end
  if n < #strings then sleep(0.05) end
end
print("xterm lines " .. n)
