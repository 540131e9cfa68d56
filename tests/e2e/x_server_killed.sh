#!/usr/bin/env bash
# The X server killed under a running script (issue 15): `eacu run` taps xcalc on its own Xvfb
# in a loop and that Xvfb is killed with SIGKILL mid-run. The step fails with err.code "device"
# (a DeviceError in the runtime), the run ends with an error that names the display (on stderr
# and in the run log) and is recorded as failed, the log is intact, and neither xcalc nor any
# Xvfb this test started is left running.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
cat > "$OUT/loop.lua" <<'LUA'
local calc = require "calculator"
calc.open()
io.stderr:write("open\n")
local ok, err = pcall(function()
  for i = 1, 100000 do
    tap "1"
    io.stderr:write("tapped " .. i .. "\n")
  end
end)
io.stderr:write("code " .. tostring(type(err) == "table" and err.code or err) .. "\n")
error(err, 0)
LUA
: >"$OUT/err"
"$EACU" run "$OUT/loop.lua" --display virtual --db "$db" >"$OUT/out" 2>"$OUT/err" &
pid=$!
for i in $(seq 300); do grep -q '^tapped 3$' "$OUT/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
grep -q '^tapped 3$' "$OUT/err" || { cat "$OUT/err" >&2; fail "the script did not tap xcalc 3 times within 30 s"; }
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE pid=$pid")
display=$(display_of_run "$db" "$run")
xcalc=$(pgrep -P "$pid" -x xcalc || true)
xcalc_start=
[ -n "$xcalc" ] && xcalc_start=$(start_time_of "$xcalc")
read -r xpid xstart _ < <(awk -v d=":$display" '$3 == d' "$XVFB_LOG")
[ -n "$xpid" ] || fail "no Xvfb on :$display in $XVFB_LOG"
kill -9 "$xpid"
# eacu notices within its deadlines (a tap's locate wait is 5 s; allow 30 s in all).
rc=0
for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "eacu run still runs 30 s after its X server was killed"; }
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "eacu run exited 0 after its X server was killed"
err=$(grep -v '^tapped\|^open$\|^code ' "$OUT/err" || true)
echo "eacu run exited $rc: $err"
expect_eq "$(sed -n 's/^code //p' "$OUT/err")" "device" "err.code of the failed step"
expect_contains "$err" ":$display" "the error names the display"
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "failed" "the run's status"
expect_contains "$(sqlite3 "$db" "SELECT error FROM runs WHERE id=$run")" ":$display" "the run's recorded error names the display"
expect_eq "$(sqlite3 "$db" 'PRAGMA integrity_check')" "ok" "integrity_check"
expect_process_gone "$xpid" "$xstart" "the killed Xvfb"
[ -z "$xcalc" ] || expect_process_gone "$xcalc" "$xcalc_start" "xcalc, after its X server went away"
echo "x_server_killed: passed"
