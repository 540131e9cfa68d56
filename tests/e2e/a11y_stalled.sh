#!/usr/bin/env bash
# An accessibility bus that stops answering (issue 36 item 1), its connections open, in one
# `eacu run` on its own Xvfb (--display virtual: its own session bus and AT-SPI bus) with a zenity
# question. The script waits on its stdin (a fifo) before each part, so each stall is in place
# before the step starts:
#  1. the AT-SPI bus's dbus-daemon stopped (SIGSTOP) before the run's first use of the tree: a
#     step waiting for a tree element ends at its deadline (timeout 3 s + 1 s), code "device",
#     naming the accessibility bus (libatspi's own connecting would wait D-Bus's 25 s per call);
#  2. resumed: the same element is found (the run connects now);
#  3. stopped again, connected: the step ends at its deadline again (each D-Bus call's bound);
#  4. resumed: a tap on the element by its tree target answers the question (zenity's exit 0).
# Each stall within its timeout + 1 s (+0.6 s of slack, scaled in the sanitizer pass).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
cat > "$OUT/stall.lua" <<LUA
local now = require("eacu._native").now
local function part(n)
  io.stderr:write("ready " .. n .. "\n")
  io.read("*l")
end
local function stalled(what)
  local t0 = now()
  local ok, err = pcall(step, { wait = { role = "push button", name = "Yes" }, timeout = 3, retry = 0 })
  io.stderr:write(string.format("%s: %s code %s took %.2f %s\n", what, tostring(ok), tostring(err and err.code),
    now() - t0, tostring(err)))
end
launch { "sh", "-c", "zenity --question --title Stall --text 'Go on?'; echo \$? > '$OUT/answer'" }
assert(window({ class = "Zenity" }, 20))
part(1)
stalled("first use")
part(2)
assert(wait({ role = "push button", name = "Yes" }, 20))
io.stderr:write("found after resume\n")
part(3)
stalled("connected")
part(4)
tap { role = "push button", name = "Yes" }
io.stderr:write("tapped\n")
LUA
paced_run "$OUT/stall.lua" --display virtual --db "$db"

wait_line "ready 1" 60
# The AT-SPI bus's daemon: the dbus-daemon whose parent is an at-spi-bus-launcher that this run
# started (eacu among its ancestors).
below_run() {  # below_run PID: eacu run $pid is an ancestor of PID
  local p=$1
  while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    [ "$p" = "$pid" ] && return 0
    p=$(parent_of "$p") || return 1
  done
  return 1
}
bus=
for p in $(pgrep -x dbus-daemon); do
  launcher=$(parent_of "$p") || continue
  grep -q at-spi-bus-launcher "/proc/$launcher/cmdline" 2>/dev/null && below_run "$launcher" && bus=$p
done
[ -n "$bus" ] || fail "no accessibility bus daemon under the run (pid $pid): $(ps -o pid,ppid,args --ppid "$pid")"

stop_process "$bus"
echo go >&3
wait_line "first use: " 30
resume_process "$bus"
wait_line "ready 2" 10
echo go >&3
wait_line "ready 3" 30
grep -q "^found after resume" "$OUT/err" || fail "the element was not found once the bus answered"
stop_process "$bus"
echo go >&3
wait_line "connected: " 30
resume_process "$bus"
wait_line "ready 4" 10
echo go >&3
exec 3>&-
timeout 30 tail --pid="$pid" -f /dev/null || fail "eacu run still ran 30 s after its stalls ended"
code=0; wait "$pid" || code=$?
expect_eq "$code" "0" "the run's exit status (its stderr: $(cat "$OUT/err"))"
for _ in $(seq 100); do [ -s "$OUT/answer" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/answer" 2>/dev/null)" "0" "zenity's answer after the tap on Yes"

bound=$(python3 -c "print(3 + 1 + $(scaled 0.6))")
for what in "first use" "connected"; do
  line=$(grep "^$what: " "$OUT/err")
  echo "$line"
  expect_contains "$line" "$what: false code device" "$what: the stalled step's code"
  expect_contains "$line" "accessibility bus of display :" "$what: the error names the accessibility bus"
  expect_contains "$line" "no answer" "$what: the error says the bus did not answer"
  took=$(sed -n "s/^$what: false code device took \([0-9.]*\) .*/\1/p" "$OUT/err")
  echo "a11y stall, $what: $took s (bound 3 s + 1 s)"
  python3 -c "import sys; sys.exit(0 if float('$took') <= $bound else 1)" || fail "$what: the stalled step took $took s (timeout 3 s + 1 s)"
done
# The run log keeps each stalled step with its error.
n=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=(SELECT id FROM runs WHERE pid=$pid) AND action='step' AND error LIKE '%accessibility bus%'")
expect_eq "$n" "2" "stalled steps in the run log"
echo "a11y_stalled: passed"
