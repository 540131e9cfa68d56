#!/usr/bin/env bash
# Issue 36 item 1 on the adb device: every wait for the device ends at the step's deadline. The
# stand-in of tests/adb_device stalls (its `stall` fault, the connection left open) mid-
# `screencap` (half the image sent), mid-`uiautomator dump` and after carrying out an `input`
# it never answers: each step (timeout 3 s) fails with a `device` error naming the device, the
# operation and how long it waited, within its timeout + 1 s (the run log's step row says so);
# the same run's next step, once the device answers again, passes (the stalled connection was
# closed, a new one opened), and so does a new run (all three stalls in one run, then the new one). A video stream that never sends a picture
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
# Taps through `input` (no touchscreen in getevent -pl): the `input` stall is that command's.
echo none >"$control/touch"

run_case() {  # $1: the case; prints its output
  timeout 60 "$EACU" run "$here/android_stall.lua" --device "adb:$serial" --db "$db" -- "$1" "$control" \
    >"$OUT/$1.out" 2>"$OUT/$1.err" || {
    cat "$OUT/$1.out" "$OUT/$1.err" >&2; tail -20 "$standin_log" >&2; fail "the $1 run exited non-zero"; }
  cat "$OUT/$1.out"
}

: >"$standin_log"
out=$(run_case stalls); echo "$out"
run=$(q "SELECT MAX(id) FROM runs")
# The adb server passes eacu's close on to the device a moment later: wait up to 5 s for it.
for _ in $(seq 50); do [ "$(grep -c "^stall ended" "$standin_log")" -ge 3 ] && break; sleep 0.1; done
# The stalled steps' rows, in order: status|seconds|error.
rows=$(q "SELECT status || '|' || printf('%.2f', ended_at - started_at) || '|' || error FROM steps
          WHERE run_id=$run AND action='step' AND status='failed' ORDER BY id")
expect_eq "$(echo "$rows" | wc -l)" 3 "failed steps in the run (one per stall): $rows"
i=0
for what in screencap uiautomator input; do
  i=$((i + 1))
  grep -q "^stalled $what" "$standin_log" || fail "$what: the stand-in did not stall (its log: $(grep stall "$standin_log"))"
  line=$(echo "$out" | grep "^$what: false after")
  expect_contains "$line" "code device" "$what: the stalled step's code"
  expect_contains "$line" "adb $serial: " "$what: the error names the device"
  expect_contains "$line" "no answer within" "$what: the error says how long it waited"
  expect_contains "$line" "the step's deadline, 3 s + 1 s" "$what: the error names the bound"
  case $what in
    screencap) op=": screencap: " ;;
    uiautomator) op=": uiautomator dump " ;;
    input) op=": input tap " ;;
  esac
  expect_contains "$line" "$op" "$what: the operation"
  expect_contains "$out" "$what: the next step passed" "$what: the step after the stall"
  row=$(echo "$rows" | sed -n "${i}p")
  echo "$what step: $row"
  expect_contains "$row" "adb $serial$op" "$what: the run log's error"
  secs=$(echo "$row" | cut -d'|' -f2)
  python3 -c "import sys; sys.exit(0 if float('$secs') <= 4 + $(scaled 0.6) else 1)" || fail "$what: the stalled step took $secs s (timeout 3 s + 1 s, 0.6 s for the step's own work as in chromium_stall, scaled)"
done
[ "$(grep -c "^stall ended: the host closed the connection" "$standin_log")" = 3 ] ||
  fail "eacu did not close every stalled connection (the stand-in's log: $(grep stall "$standin_log"))"
# The next run, on the same stand-in, passes.
out=$(run_case ready); echo "$out"
expect_contains "$out" "ready: passed" "the run after the stalls"

# The video stream stalls: screenrecord's connection opens and never sends a picture.
echo screenrecord >"$control/stall"
t0=$(date +%s.%N)
out=$(run_case screenrecord); echo "$out"
rm -f "$control/stall"  # taken by the first screenrecord
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
expect_contains "$out" "screenrecord: steps passed on a silent stream" "a silent stream"
grep -q "^stalled screenrecord" "$standin_log" || fail "the stream was not opened on the stalled screenrecord"
echo "screenrecord: the run took $took s"
python3 -c "import sys; sys.exit(0 if $took < 30 else 1)" || fail "the run on a silent stream took $took s"
echo "android_stall: ok"
