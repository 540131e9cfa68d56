#!/usr/bin/env bash
# Issue 27 item 8: several Android devices at once, one run each. Two stand-in devices on one
# private adb server; two `eacu run --device adb:SERIAL` at the same time, each sending its own
# text: both pass, and each device's command log holds only its own run's input (its text's
# ADBKeyBoard broadcast, its own input shell). Then one device is unplugged mid-run (the
# stand-in cuts its connection): that run fails with a device error naming its serial within
# its step's timeout, the other run goes on and passes. Stand-ins with a phone's costs and late
# drawing (standin.py --costs phone over a fast link: 1080x2400 frames in about 0.2 s); each
# round sends and reads back its own message.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: two stand-ins are needed"; unset EACU_TEST_ADB_SERIAL; }
db=$OUT/runs.db
start_android --costs phone --link 350
a=$serial a_log=$standin_log
start_more_android b --costs phone --link 350
b=$more_serial b_log=$more_log b_control=$more_control
out=$("$EACU" devices)
expect_contains "$(echo "$out" | grep -F "$a")" " device " "device a listed"
expect_contains "$(echo "$out" | grep -F "$b")" " device " "device b listed"

# 1. Two runs at once, one on each device, each with its own text.
run_on() {  # SERIAL NAME TEXT ROUNDS TIMEOUT: a run in the background; its pid in $run_pid
  "$EACU" run "$here/android_devices.lua" --device "adb:$1" --db "$OUT/$2.db" -- "$3" "$4" "$5" \
    >"$OUT/$2.out" 2>"$OUT/$2.err" &
  run_pid=$!
}
: >"$a_log"; : >"$b_log"
run_on "$a" run_a "甲的消息" 2 10; pid_a=$run_pid
run_on "$b" run_b "乙的消息" 2 10; pid_b=$run_pid
rc_a=0; wait "$pid_a" || rc_a=$?
rc_b=0; wait "$pid_b" || rc_b=$?
[ "$rc_a" = 0 ] || { cat "$OUT/run_a.err" >&2; fail "the run on $a exited $rc_a"; }
[ "$rc_b" = 0 ] || { cat "$OUT/run_b.err" >&2; fail "the run on $b exited $rc_b"; }
expect_contains "$(cat "$OUT/run_a.out")" "sent 甲的消息 2 times" "run a"
expect_contains "$(cat "$OUT/run_b.out")" "sent 乙的消息 2 times" "run b"
# They overlapped (started_at and ended_at are wall-clock seconds in both run logs).
sa=$(sqlite3 "$OUT/run_a.db" "SELECT started_at || ' ' || ended_at FROM runs")
sb=$(sqlite3 "$OUT/run_b.db" "SELECT started_at || ' ' || ended_at FROM runs")
echo "run a: $sa; run b: $sb"
[ "$(echo "${sa% *} < ${sb#* } && ${sb% *} < ${sa#* }" | bc)" = 1 ] || fail "the two runs did not overlap: a $sa, b $sb"
b64() { printf '%s' "$1" | base64 -w0; }
for i in 1 2; do
  expect_eq "$(grep -c -- "--es msg $(b64 "甲的消息 $i")$" "$a_log")" "1" "a's round $i broadcast on a"
  expect_eq "$(grep -c -- "--es msg $(b64 "乙的消息 $i")$" "$b_log")" "1" "b's round $i broadcast on b"
  expect_eq "$(grep -c -- "--es msg $(b64 "乙的消息 $i")$" "$a_log" || true)" "0" "b's text on a"
  expect_eq "$(grep -c -- "--es msg $(b64 "甲的消息 $i")$" "$b_log" || true)" "0" "a's text on b"
done
# Each round's own message in the chat, read back through the real adb client.
chat_of() {  # SERIAL: 张三's chat's tree on that device (then back to the list)
  local tree i
  adb_here -s "$1" shell input tap 540 270
  for i in $(seq 100); do
    tree=$(adb_here -s "$1" shell uiautomator dump /sdcard/check.xml >/dev/null && adb_here -s "$1" exec-out cat /sdcard/check.xml)
    case "$tree" in *'resource-id="com.example.chat:id/send"'*) break ;; esac; sleep 0.1
  done
  adb_here -s "$1" shell input keyevent 4
  echo "$tree"
}
tree=$(chat_of "$a")
expect_contains "$tree" 'text="甲的消息 1" resource-id="com.example.chat:id/message_0"' "a's first message"
expect_contains "$tree" 'text="甲的消息 2" resource-id="com.example.chat:id/message_1"' "a's second message"
tree=$(chat_of "$b")
expect_contains "$tree" 'text="乙的消息 1" resource-id="com.example.chat:id/message_0"' "b's first message"
expect_contains "$tree" 'text="乙的消息 2" resource-id="com.example.chat:id/message_1"' "b's second message"
expect_eq "$(grep -c '^OPEN shell,v2,raw:$' "$a_log")" "1" "input shells on a"
expect_eq "$(grep -c '^OPEN shell,v2,raw:$' "$b_log")" "1" "input shells on b"
expect_eq "$(sqlite3 "$OUT/run_a.db" "SELECT device FROM runs")" "adb $a EacuStandIn 1080x2400@2.625 (sdk 30, touch: sendevent)" "run a's device"
expect_eq "$(sqlite3 "$OUT/run_b.db" "SELECT device FROM runs")" "adb $b EacuStandIn 1080x2400@2.625 (sdk 30, touch: sendevent)" "run b's device"

# 2. b unplugged mid-run: only b's run fails, naming b, within its step timeout (6 s); a passes.
: >"$a_log"; : >"$b_log"
run_on "$a" unplug_a "甲又来了" 2 6; pid_a=$run_pid
run_on "$b" unplug_b "乙又来了" 1000 6; pid_b=$run_pid
for i in $(seq 300); do [ "$(grep -c '^input tap\|^touch down' "$b_log")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c '^input tap\|^touch down' "$b_log")" -ge 2 ] || fail "the run on $b did not tap twice in 30 s"
touch "$b_control/drop"
t0=$(date +%s.%N)
for i in $(seq 300); do kill -0 "$pid_b" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid_b" 2>/dev/null && { kill "$pid_b"; fail "the run on $b still ran 15 s after it was unplugged"; }
took=$(echo "$(date +%s.%N) - $t0" | bc)
rc_b=0; wait "$pid_b" || rc_b=$?
echo "unplugged: the run on $b exited $rc_b after ${took} s: $(tail -1 "$OUT/unplug_b.err")"
expect_eq "$rc_b" "1" "the unplugged run's exit status"
expect_contains "$(cat "$OUT/unplug_b.err")" "adb $b" "the error names the serial"
[ "$(echo "$took < 6" | bc)" = 1 ] || fail "the unplugged run took ${took} s to fail, more than its step timeout of 6 s"
expect_eq "$(sqlite3 "$OUT/unplug_b.db" "SELECT status FROM runs")" "failed" "the unplugged run's status"
rc_a=0; wait "$pid_a" || rc_a=$?
[ "$rc_a" = 0 ] || { cat "$OUT/unplug_a.err" >&2; fail "the run on $a exited $rc_a while $b was unplugged"; }
expect_contains "$(cat "$OUT/unplug_a.out")" "sent 甲又来了 2 times" "run a while b was unplugged"
expect_eq "$(grep -c -- "--es msg $(b64 "乙又来了 1")$" "$a_log" || true)" "0" "b's text on a"
echo PASS
