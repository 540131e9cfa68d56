-- Types every line of arg[1] (mixed CJK and Latin) into a Tk entry, a GTK entry (zenity) and
-- xterm (cat into arg[3]), each followed by Return, and prints what each program received.
-- arg[2]: the Tk entry program (typed_text_tk.py).
local native = require("eacu._native")
local strings = {}
for line in io.lines(arg[1]) do strings[#strings + 1] = line end

-- Tk: one line of output per Return.
local tk = launch { "python3", arg[2] }
window({ title = "eacu typed text tk" }, 20):focus()
for i, s in ipairs(strings) do
  input(s)
  key "Return"
  local got = tk:read_line(20)
  print(string.format("tk %d %s", i, tostring(got)))
end
tk:stop()

-- GTK: one entry holds them all, separated by "|"; zenity prints it at the last Return.
local zen = launch { "zenity", "--entry", "--title", "eacu typed text gtk", "--text", "Type:" }
window({ title = "eacu typed text gtk" }, 20):focus()
for i, s in ipairs(strings) do
  input(s)
  if i < #strings then input("|") end
end
key "Return"
print("gtk " .. zen:read(20))

-- xterm: cat writes each line to arg[3].
local xt = launch { "env", "LC_ALL=C.UTF-8", "xterm", "-u8", "-T", "eacu typed text xterm",
                    "-e", "sh", "-c", "cat > '" .. arg[3] .. "'" }
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
  local f = io.open(arg[3])
  if f then for _ in f:lines() do n = n + 1 end f:close() end
  if n < #strings then sleep(0.05) end
end
print("xterm lines " .. n)
