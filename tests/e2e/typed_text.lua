-- Types every line of arg[1] (mixed CJK and Latin) into a Tk entry, a GTK entry (zenity) and
-- xterm (cat into arg[3]), ten lines per `input` (each line ended by Return, "\n"; in GTK,
-- whose Return would close the dialog, separated by "|"), and prints what each program
-- received. arg[2]: the Tk entry program (typed_text_tk.py).
local native = require("eacu._native")
local strings = {}
for line in io.lines(arg[1]) do strings[#strings + 1] = line end
local per_input = 10

-- Tk: one line of output per Return.
local tk = launch { "python3", arg[2] }
window({ title = "eacu typed text tk" }, 20):focus()
for first = 1, #strings, per_input do
  local last = math.min(first + per_input - 1, #strings)
  input(table.concat(strings, "\n", first, last) .. "\n")
  for i = first, last do print(string.format("tk %d %s", i, tostring(tk:read_line(20)))) end
end
tk:stop()

-- GTK: one entry holds them all, separated by "|"; zenity prints it at the last Return.
local zen = launch { "zenity", "--entry", "--title", "eacu typed text gtk", "--text", "Type:" }
window({ title = "eacu typed text gtk" }, 20):focus()
for first = 1, #strings, per_input do
  local last = math.min(first + per_input - 1, #strings)
  input(table.concat(strings, "|", first, last) .. (last < #strings and "|" or ""))
end
key "Return"
print("gtk " .. zen:read(20))

-- xterm: cat writes each line to arg[3].
local xt = launch { "env", "LC_ALL=C.UTF-8", "xterm", "-u8", "-T", "eacu typed text xterm",
                    "-e", "sh", "-c", "cat > '" .. arg[3] .. "'" }
window({ title = "eacu typed text xterm" }, 20):focus()
for first = 1, #strings, per_input do
  local last = math.min(first + per_input - 1, #strings)
  input(table.concat(strings, "\n", first, last) .. "\n")
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
