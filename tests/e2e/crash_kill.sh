#!/usr/bin/env bash
# SIGKILL of `eacu run` at random moments of a real run (a script tapping xcalc's "1" in a loop,
# --display virtual): after every kill the run log passes PRAGMA quick_check (integrity_check
# every 10 kills and at the end), the killed run is listed and shown as crashed (never running),
# the steps the script saw committed are all there (at most the step in flight more), and no
# Xvfb or xcalc of the killed run is left. A live run is shown as running meanwhile.
# Half the kill points fall at random in the start-up, half among the taps.
# Usage: crash_kill.sh EACU OUT [KILLS] (default 100, or $EACU_KILL_POINTS; seed $EACU_KILL_SEED).
set -euo pipefail
EACU=$1; OUT=$2; KILLS=${3:-${EACU_KILL_POINTS:-100}}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
SEED=${EACU_KILL_SEED:-$$}
RANDOM=$SEED
echo "kill points: $KILLS, seed $SEED"
t_start=$(date +%s.%N)

# Each tap is reported on stderr after it returned, i.e. after its step was committed.
cat > "$OUT/loop.lua" <<'LUA'
local calc = require "calculator"
calc.open()
io.stderr:write("open\n")
for i = 1, 100000 do
  tap "1"
  io.stderr:write("committed " .. i .. "\n")
end
LUA

# The pids (with start times) of process $1's children.
children_of() {
  local p
  for p in $(pgrep -P "$1"); do echo "$p $(start_time_of "$p" 2>/dev/null)"; done
  return 0
}

# What a process $1 that does not get on is doing: its threads' kernel waits, its children, and
# (where gdb is installed) every thread's stack.
describe_stuck() {
  echo "--- eacu $1, stuck: its threads (tid state wchan), its children:"
  local t
  for t in /proc/"$1"/task/*; do
    echo "  ${t##*/} $(awk '{ print $3 }' "$t/stat" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
  done
  ps -o pid,stat,etimes,wchan:24,args --ppid "$1" 2>&1 | sed "s/^/  /" || true
  if command -v gdb >/dev/null; then
    timeout 60 gdb -p "$1" -batch -ex "thread apply all bt" 2>&1 | grep -E '^(Thread|#)' | head -150 || true
  fi
}

started=0 with_steps=0 live_checked=0 xvfb_seen=0
declare -a killed_runs=()
for k in $(seq "$KILLS"); do
  # Emptied before the run starts: the run's own redirection empties it only once its shell has
  # forked, and a look at it before then would see the last run's "open".
  : >"$OUT/err"
  "$EACU" run "$OUT/loop.lua" --display virtual --db "$db" >/dev/null 2>>"$OUT/err" &
  pid=$!
  if [ $((k % 2)) = 1 ]; then
    # Odd kill points fall in the start-up (the run log, its row, Xvfb, xcalc): 0.05 to 2 s.
    r=$RANDOM  # drawn here: a $RANDOM inside $(...) is the subshell's, which bash seeds anew
    delay=$(awk -v r="$r" 'BEGIN { printf "%.2f", 0.05 + r / 32767 * 1.95 }')
    sleep "$delay"
  else
    # Even ones among the taps: 0 to 1.5 s after xcalc's keypad was found.
    for i in $(seq 300); do grep -q '^open$' "$OUT/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if ! grep -q '^open$' "$OUT/err"; then
      # What became of the run: still starting, or ended (its status, its row in the log).
      state=exited
      if kill -0 "$pid" 2>/dev/null; then
        state="still running after 30 s"
        describe_stuck "$pid" >&2
        kill -9 "$pid"
      fi
      rc=0; wait "$pid" || rc=$?
      row=$(sqlite3 "$db" "SELECT id, status, error FROM runs WHERE pid=$pid" 2>&1 || true)
      echo "--- stderr of eacu run:" >&2; cat "$OUT/err" >&2
      fail "kill $k: the script did not open xcalc (eacu $state, exit status $rc; its run: ${row:-no row})"
    fi
    if [ "$live_checked" = 0 ]; then
      # Once, while the run taps: it is shown as running, not crashed.
      for i in $(seq 100); do grep -q committed "$OUT/err" && break; sleep 0.1; done
      id=$(sqlite3 "$db" "SELECT id FROM runs WHERE pid=$pid")
      expect_contains "$("$EACU" show "$id" --db "$db" --no-color | head -1)" "running" "a live run in eacu show"
      live_checked=1
    fi
    r=$RANDOM
    delay=open+$(awk -v r="$r" 'BEGIN { printf "%.2f", r / 32767 * 1.5 }')
    sleep "${delay#open+}"
  fi
  kids=$(children_of "$pid")
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  committed=$(grep -c '^committed' "$OUT/err" || true)
  opened=$(grep -c '^open$' "$OUT/err" || true)
  # Checks that need the database (it may not exist yet after an early kill).
  if [ -f "$db" ]; then
    expect_eq "$(sqlite3 "$db" 'PRAGMA quick_check')" "ok" "quick_check after kill $k (at ${delay}s)"
    # A kill before the first run's schema was committed (one transaction) leaves a log with no
    # tables: then there is no run. Any other error fails the test, saying what it was.
    if ! id=$(sqlite3 "$db" "SELECT id FROM runs WHERE pid=$pid ORDER BY id DESC LIMIT 1" 2>"$OUT/sqlite.err"); then
      tables=$(sqlite3 "$db" "SELECT COUNT(*) FROM sqlite_master" 2>&1 || true)
      [ "$tables" = 0 ] || fail "kill $k: reading the run log: $(cat "$OUT/sqlite.err") (tables: $tables)"
      id=
    fi
  else
    id=
  fi
  if [ "$opened" -gt 0 ] && [ -z "$id" ]; then fail "kill $k: the script ran but its run has no row"; fi
  if [ -n "$id" ]; then
    started=$((started + 1))
    killed_runs+=("$id")
    expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$id")" "running" "stored status of killed run $id"
    show=$("$EACU" show "$id" --db "$db" --no-color)
    expect_contains "$(echo "$show" | head -1)" "crashed" "eacu show of killed run $id"
    taps=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$id AND action='tap' AND parent_id IS NULL")
    if [ "$taps" -lt "$committed" ] || [ "$taps" -gt $((committed + 1)) ]; then
      fail "kill $k: run $id has $taps tap steps, the script saw $committed committed (expected $committed or $((committed + 1)))"
    fi
    [ "$committed" -gt 0 ] && with_steps=$((with_steps + 1))
  fi
  # Nothing the killed eacu started is left: its children (Xvfb, xcalc, ...) and every Xvfb
  # this test started.
  while read -r cpid cstart; do
    [ -n "$cpid" ] && expect_process_gone "$cpid" "$cstart" "child $cpid of the killed eacu (kill $k)"
  done <<<"$kids"
  while read -r xpid xstart _; do
    expect_process_gone "$xpid" "$xstart" "Xvfb $xpid (kill $k)"
  done < <(tail -n +$((xvfb_seen + 1)) "$XVFB_LOG" 2>/dev/null)
  # (No log yet when the kills so far came before any Xvfb was started.)
  xvfb_seen=$(wc -l <"$XVFB_LOG" 2>/dev/null || echo 0)
  [ -n "${KILL_TRACE:-}" ] && echo "kill $k at ${delay}s: run ${id:-none}, $committed taps committed, $(date +%s.%N)"
  if [ $((k % 10)) = 0 ] && [ -f "$db" ]; then
    expect_eq "$(sqlite3 "$db" 'PRAGMA integrity_check')" "ok" "integrity_check after kill $k"
  fi
done

expect_eq "$(sqlite3 "$db" 'PRAGMA integrity_check')" "ok" "integrity_check at the end"
# eacu runs lists every run started, each killed one as crashed and none as running.
runs=$("$EACU" runs --db "$db" --limit 100000)
total=$(sqlite3 "$db" "SELECT COUNT(*) FROM runs")
expect_eq "$total" "$started" "runs in the log vs runs started"
expect_eq "$(echo "$runs" | tail -n +2 | wc -l)" "$total" "runs listed by eacu runs"
expect_eq "$(echo "$runs" | awk 'NR > 1 && $2 == "crashed"' | wc -l)" "$total" "runs shown as crashed"
expect_eq "$(echo "$runs" | awk 'NR > 1 && $2 == "running"' | wc -l)" "0" "runs shown as running"
expect_eq "$("$EACU" runs --db "$db" --limit 100000 --status crashed | tail -n +2 | wc -l)" "$total" "eacu runs --status crashed"
expect_contains "$("$EACU" runs --db "$db" --status running)" "no runs" "eacu runs --status running"
# The report shows the last killed run as crashed.
"$EACU" report "${killed_runs[-1]}" --db "$db" -o "$OUT/report.html" >/dev/null
grep -q '"status": *"crashed"\|badge crashed' "$OUT/report.html" || fail "the report does not show run ${killed_runs[-1]} as crashed"
[ "$live_checked" = 1 ] || fail "no kill came while the run tapped: the live run was never checked"
t_end=$(date +%s.%N)
echo "crash_kill: $KILLS kill points survived ($started runs begun, $with_steps with committed taps), $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }') s"
