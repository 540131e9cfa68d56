#!/usr/bin/env bash
# Issue 27: faults of an Android device, on the stand-in of tests/adb_device (raw screencap with
# the older 12-byte header here): "could not get idle state" dumps retried within the step's
# deadline (a short step fails in time and clearly, a long one outlasts the animation), a rotation mid-run (size re-read, tree and OCR in landscape), a black
# (FLAG_SECURE) frame named in the failure while the tree still works, a pixel format raw
# capture does not know (PNG fallback), and the device going away mid-run (the error names the
# serial, no hang). Stand-in only (EACU_TEST_ADB_SERIAL does not apply: faults are injected).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
db=$OUT/runs.db
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the faults are injected into the stand-in"; unset EACU_TEST_ADB_SERIAL; }
start_android --header 12 --sdk 34
run_case() {
  "$EACU" run "$here/android_faults.lua" --device "adb:$serial" --db "$db" -- "$1" "$control" 2>"$OUT/$1.err" || {
    cat "$OUT/$1.err" >&2; tail -30 "$standin_log" >&2; fail "the $1 run exited non-zero"; }
}

# 1. Two dumps fail, the third is used.
echo 2 >"$control/idle_failures"
out=$(run_case idle); echo "$out"
expect_contains "$out" "idle: retried" "idle"
expect_eq "$(cat "$control/idle_failures")" "0" "idle failures left"

# 2. A screen that never idles: the dump is retried until the step's deadline (its timeout of
# 2 s), then the step fails saying so.
echo 100000 >"$control/idle_failures"
out=$(run_case idle_forever); echo "$out"
expect_contains "$out" "could not get idle state" "never idle"
expect_contains "$out" "kept animating" "never idle, explained"
expect_contains "$out" "(the step's deadline)" "never idle: the bound named"
took=$(echo "$out" | sed -n 's/^idle_forever: after \([0-9.]*\) s:.*/\1/p')
[ -n "$took" ] && [ "$(echo "$took >= 1.5 && $took < 5" | bc)" = 1 ] ||
  fail "expected the never-idle step to fail after its 2 s timeout (1.5-5 s), got '$took' s"
echo 0 >"$control/idle_failures"

# 2b. A screen that animates for 40 dumps (at least 40 × 0.3 s = 12 s: longer than the fixed
# 10 s the retry had before): a step with a timeout of 60 s waits it out.
echo 40 >"$control/idle_failures"
out=$(run_case idle_long); echo "$out"
expect_contains "$out" "idle_long: the tap found its target after" "a long step outlasting the animation"
expect_eq "$(cat "$control/idle_failures")" "0" "idle failures left after the long step"

# 3. A rotation mid-run: the frame's size changes, the display is read again.
out=$(run_case rotate); echo "$out"
expect_contains "$out" "before 1080x2400" "portrait"
expect_contains "$out" "after 2400x1080" "landscape after the rotation"
expect_contains "$out" "back 1080x2400" "portrait again"

# 4. A black frame.
touch "$control/black"
out=$(run_case black); echo "$out"
rm "$control/black"
expect_contains "$out" "FLAG_SECURE" "the black frame named in the failure"
expect_contains "$out" "adb $serial" "the black frame's serial"
expect_contains "$out" "black: the tree still works" "the tree on a black screen"

# 5. A pixel format raw capture does not decode: PNG (screencap -p) from then on.
echo 5 >"$control/format"
: >"$standin_log"
out=$(run_case png); echo "$out"
rm "$control/format"
expect_contains "$out" "png: ok" "png fallback"
grep -q '^OPEN exec:screencap -p$' "$standin_log" || fail "expected screencap -p after the unknown format"

# 6. The device goes away mid-run: the run fails within its step deadline naming the serial.
: >"$standin_log"
"$EACU" run "$here/android_faults.lua" --device "adb:$serial" --db "$db" -- disconnect "$control" \
  >"$OUT/disconnect.out" 2>"$OUT/disconnect.err" &
run_pid=$!
for i in $(seq 300); do [ "$(grep -c '^input tap\|^touch down' "$standin_log")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c '^input tap\|^touch down' "$standin_log")" -ge 2 ] || fail "the disconnect run did not tap twice in 30 s"
touch "$control/drop"
t0=$(date +%s)
# Within the longest step deadline of the loop (its waits' 10 s) + 1 s, and 1 s to end the run.
for i in $(seq 120); do kill -0 "$run_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$run_pid" 2>/dev/null && { kill "$run_pid"; fail "the run still ran 12 s after the device went away (its steps' deadline is 10 s)"; }
rc=0; wait "$run_pid" || rc=$?
echo "disconnect: exit $rc after $(( $(date +%s) - t0 )) s: $(tail -1 "$OUT/disconnect.err")"
expect_eq "$rc" "1" "the disconnected run's exit status"
expect_contains "$(cat "$OUT/disconnect.err")" "$serial" "the error names the serial"
rm "$control/drop"

# 7. A device whose debugging prompt was not accepted (a second stand-in asking for AUTH and
# refusing every signature): listed as unauthorized and explained; a run on it fails saying so.
python3 "$here/../adb_device/standin.py" --port-file "$OUT/locked.port" --unauthorized >"$OUT/locked.out" 2>&1 &
locked_pid=$!
trap 'stop_android; kill "$locked_pid" 2>/dev/null || true' EXIT
locked=127.0.0.1:$(await_printed "$OUT/locked.port" "$locked_pid" 's/^\([0-9]*\) .*/\1/p' "the locked stand-in" "$OUT/locked.out") || exit 1
adb_here connect "$locked" >/dev/null 2>&1 || true
for i in $(seq 100); do adb_here devices | grep -q "^$locked[[:space:]]*unauthorized" && break; sleep 0.1; done
out=$("$EACU" devices)
expect_contains "$(echo "$out" | grep -F "$locked")" "unauthorized" "the locked device's state"
expect_contains "$(echo "$out" | grep -F "$locked")" "Allow USB debugging" "unauthorized explained"
echo 'tap("a11y:Alice")' >"$OUT/locked.lua"
rc=0; "$EACU" run "$OUT/locked.lua" --device "adb:$locked" --db "$db" >"$OUT/locked.run" 2>&1 || rc=$?
expect_eq "$rc" "1" "a run on the unauthorized device"
expect_contains "$(cat "$OUT/locked.run")" "adb $locked: the device is unauthorized" "the run's error"
echo PASS
