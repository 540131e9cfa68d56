#!/usr/bin/env bash
# Issue 38: the adb device on a stand-in that costs and behaves like a phone (standin.py --costs
# phone: screencap, Java processes and dumps cost what the published figures say, inputs are
# drawn 50-300 ms late, ADBKeyBoard binds 0.2-0.5 s after `ime set`, dumpsys input prints
# Android 14's InputDeviceOrientation; a 540x1200 screen over a USB 2 link keeps it short).
# One run: Chinese typed through ADBKeyBoard and read back (tree), sent, the message in the chat;
# a secret marked in the script goes through `input text` and never the broadcast nor the run
# log; a non-ASCII secret is refused; the PIN field (password="true" in the tree) takes ASCII
# through `input text` and refuses the rest. The tree is reused while the screen holds: fewer
# dumps than tree lookups. Stand-in only.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the stand-in's costs and faults are needed"; unset EACU_TEST_ADB_SERIAL; }
db=$OUT/runs.db
start_android --costs phone --link 35 --sdk 34 --width 540 --height 1200 --density 240
msg="手机上的消息 $(date +%s)"
t0=$(date +%s.%N)
out=$("$EACU" run "$here/android_phone.lua" --device "adb:$serial" --db "$db" -- "$msg" 2>"$OUT/run.err") || {
  cat "$OUT/run.err" >&2; echo "$out" >&2; tail -40 "$standin_log" >&2; fail "eacu run android_phone.lua exited non-zero"; }
echo "$out"
echo "the run took $(echo "$(date +%s.%N) - $t0" | bc) s"
expect_contains "$out" "phone: done" "the script"
expect_contains "$out" "is typed only with \`input text\`, which carries ASCII only" "the non-ASCII secret refused, said why"
expect_contains "$out" "refused in the password field" "non-ASCII text refused in the password field"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "passed" "the run"
expect_eq "$(sqlite3 "$db" "SELECT device FROM runs WHERE id=$run")" "adb $serial EacuStandIn 540x1200@1.5 (sdk 34, touch: sendevent)" "the device"
log=$(cat "$standin_log")
expect_contains "$log" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '%s' "$msg" | base64 -w0)" "the message through ADBKeyBoard"
expect_contains "$log" "dumpsys input_method" "the keyboard's binding waited for"
expect_contains "$log" "input text s3cret-code" "the script's secret through input text"
expect_contains "$log" "input text 4321" "the PIN through input text"
for s in s3cret-code 4321 密码口令 六六六; do
  b=$(printf '%s' "$s" | base64 -w0)
  grep -q -- "--es msg $b" "$standin_log" && fail "the secret $s was broadcast"
  sqlite3 "$db" .dump | grep -q -- "$s" && fail "the secret $s is in the run log"
done
expect_contains "$(sqlite3 "$db" "SELECT target FROM steps WHERE run_id=$run AND action='input'")" "(secret, 4 characters)" "the PIN's step in the run log"
# The message read back through the real adb client: 张三's chat holds it (the app draws late:
# wait for it).
adb_here -s "$serial" shell input tap 270 270
for i in $(seq 100); do tree=$(dump_tree); case "$tree" in *'com.example.chat:id/send'*) break ;; esac; sleep 0.1; done
expect_contains "$tree" "text=\"$msg\" resource-id=\"com.example.chat:id/message_0\"" "the message in 张三's chat"
# The tree reused: fewer dumps than tree lookups (steps located by a11y, and inputs whose field
# was read back: step/TypedCheck reads it before and after typing).
dumps=$(grep -c '^uiautomator dump /sdcard/eacu_window_dump.xml' "$standin_log")
lookups=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND (method='a11y' OR (action='input' AND json_extract(params, '$.typed') LIKE 'checked:%'))")
echo "dumps: $dumps, tree steps: $lookups"
[ "$dumps" -lt "$((lookups + 6))" ] || fail "expected the tree reused, got $dumps dumps for $lookups tree steps"
echo PASS
