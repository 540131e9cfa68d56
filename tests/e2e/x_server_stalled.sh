#!/usr/bin/env bash
# An X server that stops answering (issue 36 item 1), its connections open, in one `eacu run`
# on its own Xvfb with xcalc. The script waits on its stdin (a fifo) before each part, so each
# stall is in place before the step starts:
#  1. Xvfb stopped (SIGSTOP): a wait bound to xcalc's window (its frames come through the
#     window list's own X connection) ends at its deadline (timeout 3 s + 1 s), code "device",
#     naming the display, the window operation and how long it waited (that connection's
#     watchdog).
#  2. Xvfb resumed, then stopped again: a step waiting for a text ends at its deadline (6 s
#     + 1 s), naming "capture" (the device's own connection, its watchdog); the run log says so.
# Each within its timeout + 1 s (+0.6 s of slack for the step's own work, scaled in the sanitizer pass); the stalls are resumed and the run ends.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
cat > "$OUT/stall.lua" <<'LUA'
local now = require("eacu._native").now
local function report(what, ok, err)
  io.stderr:write(what .. ": " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err) .. "\n")
end
launch { "xcalc" }
local calc = assert(window({ class = "xcalc" }, 20))
io.stderr:write("ready 1\n")
io.read("*l")
local t0 = now()
local ok, err = pcall(wait, { "text:Never shown here", window = calc }, 3)
io.stderr:write(string.format("window wait took %.2f\n", now() - t0))
report("window step", ok, err)
io.stderr:write("ready 2\n")
io.read("*l")
report("capture step", pcall(step, { wait = "text:Never shown here", timeout = 6, retry = 0 }))
LUA
paced_run "$OUT/stall.lua" --display virtual --db "$db"

wait_line "ready 1" 60
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE pid=$pid")
display=$(display_of_run "$db" "$run")
read -r xpid _ < <(awk -v d=":$display" '$3 == d' "$XVFB_LOG")
[ -n "$xpid" ] || fail "no Xvfb on :$display in $XVFB_LOG"

stop_process "$xpid"
echo go >&3
wait_line "window step: " 20
resume_process "$xpid"
wait_line "ready 2" 20
stop_process "$xpid"
echo go >&3
wait_line "capture step: " 20
resume_process "$xpid"
exec 3>&-
timeout 30 tail --pid="$pid" -f /dev/null || fail "eacu run still ran 30 s after its stalls ended"
wait "$pid" || true

line=$(grep '^window step: ' "$OUT/err")
echo "$line"
expect_contains "$line" "window step: false code device" "the stalled window step's code"
expect_contains "$line" "X display :$display: window " "the window step's error names the display and the window operation"
expect_contains "$line" ": no answer within" "the window step's error says how long it waited"
expect_contains "$line" "the step's deadline, 3 s + 1 s" "the window step's error names the bound"
line=$(grep '^capture step: ' "$OUT/err")
echo "$line"
expect_contains "$line" "capture step: false code device" "the stalled step's code"
expect_contains "$line" "X display :$display: capture: no answer within" "the error names the display, the operation and the time"
expect_contains "$line" "the step's deadline, 6 s + 1 s" "the error names the bound"

# Each stall's time against its timeout + 1 s: the window wait as the script timed it (a verb
# that fails on a device error leaves no step row), the step from the run log.
took=$(sed -n 's/^window wait took //p' "$OUT/err")
echo "x11 stall, window wait: $took s (bound 3 s + 1 s)"
python3 -c "import sys; sys.exit(0 if float('$took') <= 4 + $(scaled 0.6) else 1)" || fail "the stalled window wait took $took s (timeout 3 s + 1 s)"
row=$(sqlite3 "$db" "SELECT printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=$run AND action='step'")
echo "x11 stall step: $row"
expect_contains "$row" "no answer within" "the run log's error"
python3 -c "import sys; sys.exit(0 if float('${row%%|*}') <= 7 + $(scaled 0.6) else 1)" || fail "the stalled step took ${row%%|*} s (timeout 6 s + 1 s)"
echo "x_server_stalled: passed"
