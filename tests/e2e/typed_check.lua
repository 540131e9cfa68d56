-- input checks what arrived (issue 36, item 7), on a virtual display: a GTK entry (zenity)
-- read back through the tree; an entry that keeps 5 characters fails the check with what it
-- holds; check = false does not look; a password entry is compared by length; xterm has no
-- tree: the text is looked for on the screen (an xterm that does not echo: not confirmed, not
-- a failure). arg[1]: typed_check_gtk.py.
local gtk = assert(arg[1], "expected typed_check_gtk.py as arg[1]")

-- 1. zenity --entry: checked and passes.
local zen = launch { "zenity", "--entry", "--title", "eacu typed check zenity", "--text", "Type:" }
window({ title = "eacu typed check zenity" }, 20):focus()
input "张三abc"
key "Return"
print("zenity " .. zen:read(20))

-- 2. An entry that keeps 5 characters: the check fails, naming what arrived.
local short = launch { "/usr/bin/python3", gtk, "max" }
window({ title = "eacu typed check max" }, 20):focus()
local ok, err = pcall(input, "张三abcdef")
assert(not ok, "input into a 5-character entry: expected a failure, got none")
print("max code " .. tostring(err.code))
print("max message " .. tostring(err.message))

-- 3. The same with check = false: no failure.
input("xyz", { check = false })
key "Return"
print("max " .. short:read(20))

-- 4. A password entry: checked by length, the text nowhere.
local pw = launch { "/usr/bin/python3", gtk, "password" }
window({ title = "eacu typed check password" }, 20):focus()
input "hunter2"
key "Return"
print("password " .. pw:read(20))

-- 5. xterm: no tree; the text is looked for where the screen changed (OCR). An inner border of
-- 12 px: with xterm's default 2 px the first line's glyphs touch the window's edge line, which
-- OCR reads into the line ("isl plain wor s").
local xt = launch { "xterm", "-b", "12", "-fa", "DejaVu Sans Mono", "-fs", "14", "-T", "eacu typed check xterm",
                    "-e", "sh", "-c", "read l; echo \"$l\" >&2" }
window({ title = "eacu typed check xterm" }, 20):focus()
input "plain words"
key "Return"
assert(xt:wait(20) == 0)

-- 6. xterm not echoing (stty -echo): nothing shows, and the step says so without failing.
local quiet = launch { "xterm", "-b", "12", "-fa", "DejaVu Sans Mono", "-fs", "14", "-T", "eacu typed check quiet",
                       "-e", "sh", "-c", "stty -echo; read l; echo \"$l\" >&2" }
window({ title = "eacu typed check quiet" }, 20):focus()
input "unseen"
key "Return"
assert(quiet:wait(20) == 0)
print("typed_check: done")
