#!/usr/bin/env bash
# An X server that stops answering (issue 36 item 1): `eacu run` waits for a text on its own
# Xvfb and that Xvfb is stopped (SIGSTOP) mid-step, its connection open. Xlib has no timeout:
# the X11 device's watchdog ends the capture at the step's deadline, and the step fails with
# code "device" naming the display, the operation and how long it waited, within its timeout
# (6 s, no retry) + 1 s; the run log says so. The Xvfb is resumed (SIGCONT) and the run ends.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
cat > "$OUT/stall.lua" <<'LUA'
io.stderr:write("waiting\n")
local ok, err = pcall(step, { wait = "text:Never shown here", timeout = 6, retry = 0 })
io.stderr:write("stalled step: " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err) .. "\n")
LUA
"$EACU" run "$OUT/stall.lua" --display virtual --db "$db" >"$OUT/out" 2>"$OUT/err" &
pid=$!
trap 'kill -CONT "${xpid:-0}" 2>/dev/null || true' EXIT
for i in $(seq 300); do grep -q '^waiting$' "$OUT/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
grep -q '^waiting$' "$OUT/err" || { cat "$OUT/err" >&2; fail "the script did not start within 30 s"; }
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE pid=$pid")
display=$(display_of_run "$db" "$run")
read -r xpid xstart _ < <(awk -v d=":$display" '$3 == d' "$XVFB_LOG")
[ -n "$xpid" ] || fail "no Xvfb on :$display in $XVFB_LOG"
kill -STOP "$xpid"
for i in $(seq 200); do grep -q '^stalled step: ' "$OUT/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -CONT "$xpid"
line=$(grep '^stalled step: ' "$OUT/err" || true)
[ -n "$line" ] || { cat "$OUT/err" >&2; fail "the step on the stopped X server did not end within 20 s"; }
echo "$line"
timeout 30 tail --pid="$pid" -f /dev/null || fail "eacu run still ran 30 s after its X server was resumed"
wait "$pid" || true
expect_contains "$line" "stalled step: false code device" "the stalled step's code"
expect_contains "$line" "X display :$display: capture: no answer within" "the error names the display, the operation and the time"
expect_contains "$line" "the step's deadline, 6 s + 1 s" "the error names the bound"
row=$(sqlite3 "$db" "SELECT printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=$run AND action='step'")
echo "x11 stall step: $row"
expect_contains "$row" "no answer within" "the run log's error"
python3 -c "import sys; sys.exit(0 if float('${row%%|*}') <= 7.6 else 1)" || fail "the stalled step took ${row%%|*} s (timeout 6 s + 1 s)"
echo "x_server_stalled: passed"
