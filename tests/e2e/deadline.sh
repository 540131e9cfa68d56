#!/usr/bin/env bash
# Deadlines that always hold: a busy pure-Lua loop (also one inside pcall) stops at --max-time,
# and on SIGTERM, within 1 s; the run is recorded as timed_out / interrupted, and the programs it
# launched and its private Xvfb are gone.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
img="image:$root/tests/fixtures/xcalc.png"
now() { date +%s.%N; }
elapsed() { python3 -c "print(round($2 - $1, 3))"; }
below() { python3 -c "import sys; sys.exit(0 if $1 < $2 else 1)" || fail "$3: expected < $2 s, took $1 s"; }

# 1. --max-time 2 against `while true do end` and a loop that swallows errors with pcall.
printf 'while true do end\n' >"$OUT/busy.lua"
printf 'while true do pcall(function() local x = 0 for i = 1, 1e9 do x = x + i end end) end\n' >"$OUT/busy_pcall.lua"
for s in busy busy_pcall; do
  t0=$(now)
  set +e
  "$EACU" run "$OUT/$s.lua" --display "$img" --db "$db" --max-time 2 2>"$OUT/$s.err"
  code=$?
  set -e
  t=$(elapsed "$t0" "$(now)")
  expect_eq "$code" "1" "$s: exit status at the deadline"
  below "$t" "$(python3 -c "print(2 + $(scaled 1.5))")" "$s: --max-time 2 (start-up included)"
  expect_contains "$(cat "$OUT/$s.err")" "timed out: the run's time limit of 2 s is used up" "$s: the message"
  expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=(SELECT MAX(id) FROM runs)")" "timed_out" "$s: run status"
  echo "$s: stopped after $t s (--max-time 2)"
done

# 2. SIGTERM during a busy loop on a private display with a launched xcalc.
cat >"$OUT/busy_app.lua" <<'LUA'
launch "xcalc"
wait("calculator.btn_clear", 10)
print("ready")
io.stdout:flush()
while true do end
LUA
"$EACU" run "$OUT/busy_app.lua" --display virtual --db "$db" >"$OUT/app.out" 2>"$OUT/app.err" &
pid=$!
for i in $(seq 300); do grep -q ready "$OUT/app.out" 2>/dev/null && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
grep -q ready "$OUT/app.out" || { cat "$OUT/app.err" >&2; fail "the script did not reach its loop"; }
kids=$(ps -o pid= --ppid "$pid" | tr -d ' ' | tr '\n' ' ')
[ -n "$kids" ] || fail "expected the run's Xvfb and xcalc as children of eacu"
starts=""
for k in $kids; do starts="$starts $k:$(start_time_of "$k")"; done
t0=$(now)
kill -TERM "$pid"
set +e
wait "$pid"
code=$?
set -e
t=$(elapsed "$t0" "$(now)")
expect_eq "$code" "143" "exit status after SIGTERM (128 + 15)"
below "$t" "$(scaled 1.0)" "stop on SIGTERM"
for ks in $starts; do expect_process_gone "${ks%%:*}" "${ks#*:}" "process ${ks%%:*} (started by the run)"; done
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "interrupted" "run status after SIGTERM"
expect_display_gone "$(display_of_run "$db" "$run")"
echo "SIGTERM: stopped after $t s, children ($kids) gone"
echo "deadline: 3 passed, 0 failed"
