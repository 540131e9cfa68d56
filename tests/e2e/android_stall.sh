#!/usr/bin/env bash
# Issue 36 item 1 on the adb device: every wait for the device ends at the step's deadline. The
# stand-in of tests/adb_device stalls (its `stall` fault, the connection left open) mid-
# `screencap` (half the image sent), mid-`uiautomator dump` and after carrying out an `input`
# it never answers: each step (timeout 3 s) fails with a `device` error naming the device, the
# operation and how long it waited, within its timeout + 1 s (the run log's step row says so);
# the same run's next step, once the device answers again, passes (the stalled connection was
# closed, a new one opened), and so does a new run. A video stream that never sends a picture
# (screenrecord stalled) holds up neither a step nor the run's end. Stand-in only.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the stalls are injected into the stand-in"; unset EACU_TEST_ADB_SERIAL; }
start_android

run_case() {  # $1: the case; prints its output
  timeout 60 "$EACU" run "$here/android_stall.lua" --device "adb:$serial" --db "$db" -- "$1" "$control" \
    >"$OUT/$1.out" 2>"$OUT/$1.err" || {
    cat "$OUT/$1.out" "$OUT/$1.err" >&2; tail -20 "$standin_log" >&2; fail "the $1 run exited non-zero"; }
  cat "$OUT/$1.out"
}

for what in screencap uiautomator input; do
  : >"$standin_log"
  out=$(run_case "$what"); echo "$out"
  grep -q "^stalled $what" "$standin_log" || fail "$what: the stand-in did not stall (its log: $(tail -5 "$standin_log"))"
  line=$(echo "$out" | grep "^$what: false after")
  expect_contains "$line" "code device" "$what: the stalled step's code"
  expect_contains "$line" "adb $serial: " "$what: the error names the device"
  expect_contains "$line" "no answer within" "$what: the error says how long it waited"
  expect_contains "$line" "the step's deadline, 3 s + 1 s" "$what: the error names the bound"
  case $what in
    screencap) expect_contains "$line" ": screencap: " "the operation" ;;
    uiautomator) expect_contains "$line" ": uiautomator dump " "the operation" ;;
    input) expect_contains "$line" ": input tap " "the operation" ;;
  esac
  expect_contains "$out" "$what: the next step passed" "$what: the step after the stall"
  grep -q "^stall ended: the host closed the connection" "$standin_log" ||
    fail "$what: eacu did not close the stalled connection (the stand-in's log: $(grep stall "$standin_log"))"
  run=$(q "SELECT MAX(id) FROM runs")
  row=$(q "SELECT status || '|' || printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=$run AND action='step' ORDER BY id LIMIT 1")
  echo "$what step: $row"
  expect_eq "${row%%|*}" "failed" "$what: the stalled step's row"
  expect_contains "$row" "adb $serial: " "$what: the run log's error"
  secs=$(echo "$row" | cut -d'|' -f2)
  python3 -c "import sys; sys.exit(0 if float('$secs') <= 4.6 else 1)" || fail "$what: the stalled step took $secs s (timeout 3 s + 1 s, 0.6 s for the step's own work as in chromium_stall)"
  out=$(run_case ready); echo "$out"
  expect_contains "$out" "ready: passed" "the run after the $what stall"
done

# The video stream stalls: screenrecord's connection opens and never sends a picture.
echo screenrecord >"$control/stall"
t0=$(date +%s.%N)
out=$(run_case screenrecord); echo "$out"
rm "$control/stall"
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
expect_contains "$out" "screenrecord: steps passed on a silent stream" "a silent stream"
grep -q "^stalled screenrecord" "$standin_log" || fail "the stream was not opened on the stalled screenrecord"
echo "screenrecord: the run took $took s"
python3 -c "import sys; sys.exit(0 if $took < 30 else 1)" || fail "the run on a silent stream took $took s"
echo "android_stall: ok"
