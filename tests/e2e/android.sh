#!/usr/bin/env bash
# Issue 27: an Android device through the real adb server. The stand-in device of
# tests/adb_device (the device side of the ADB transport; a Tk chat app on its own Xvfb) is
# reached by a private adb server (adb -P PORT connect); eacu's own host-protocol client drives
# it: `eacu devices`, then a run that opens a chat by name (tree), types Chinese (ADBKeyBoard
# broadcast), sends by role and name, opens another chat by OCR text, sets its field by
# resource_id and sends by image; the run replayed as actions. The app's state is checked
# through the real adb client.
# With EACU_TEST_ADB_SERIAL a real phone is used instead: devices, screen size, a capture, the
# tree, the HOME key, then the messenger path on the phone's own messenger: the wechat module's
# send_message through `eacu run --task` (WeChat in Chinese, logged in, ADBKeyBoard installed and
# enabled; the message goes to $EACU_TEST_WECHAT_CONTACT, default 文件传输助手, the account's own
# File Transfer chat), as e2e_android_wechat runs it on the stand-in (docs/android.md).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }
start_android

# 1. eacu devices lists it as a device.
out=$("$EACU" devices 2>&1) || fail "eacu devices exited non-zero: $out"
expect_contains "$out" "$serial" "eacu devices"
expect_contains "$(echo "$out" | grep -F "$serial")" " device " "the device's state"

if [ -z "$standin" ]; then
  cat >"$OUT/phone.lua" <<'LUA'
local w, h, s = screen_size()
assert(w > 0 and h > 0 and s > 0, "screen size")
key("home")
local tree = a11y()
assert(#tree.children > 0, "the phone's tree has applications")
screenshot()
print(string.format("phone: %dx%d@%g, %d applications in the tree", w, h, s, #tree.children))
LUA
  "$EACU" run "$OUT/phone.lua" --device "adb:$serial" --db "$db" || fail "the run on the phone failed"
  contact=${EACU_TEST_WECHAT_CONTACT:-文件传输助手}
  text="eacu e2e $(date +%Y%m%d-%H%M%S)"
  "$EACU" run --task "给${contact}发消息 $text" --device "adb:$serial" --yes --db "$db" ||
    fail "the wechat send_message task on the phone failed (WeChat in Chinese, logged in, ADBKeyBoard enabled?)"
  expect_eq "$(q "SELECT status FROM runs WHERE id=(SELECT MAX(id) FROM runs)")" "passed" "the task's run"
  echo "PASS (real phone $serial: \"$text\" sent to $contact in WeChat)"
  exit 0
fi

# 2. The send button's reference image, cut from the stand-in's screen through the real adb.
adb_here -s "$serial" shell input tap 540 270
for i in $(seq 100); do dump_tree | grep -q 'resource-id="com.example.chat:id/send"' && break; sleep 0.1; done
adb_here -s "$serial" exec-out screencap >"$OUT/chat.raw"
python3 "$here/../adb_device/crop.py" "$OUT/chat.raw" 820 2200 240 160 "$OUT/send.png"
adb_here -s "$serial" shell input keyevent 4
: >"$standin_log"

# 3. The run.
t0=$(date +%s)
out=$("$EACU" run "$here/android.lua" --device "adb:$serial" --db "$db" -- "$OUT/send.png" 2>"$OUT/run.err") || {
  cat "$OUT/run.err" >&2; echo "$out" >&2; tail -40 "$standin_log" >&2; fail "eacu run android.lua exited non-zero"; }
echo "$out (in $(( $(date +%s) - t0 )) s)"
expect_contains "$out" "screen 1080x2400@2.625" "the screen size and density 420 / 160"
expect_contains "$out" "android: both chats sent" "the script"
run=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT status FROM runs WHERE id=$run")" "passed" "the run's status"
expect_eq "$(q "SELECT device FROM runs WHERE id=$run")" "adb $serial EacuStandIn 1080x2400@2.625 (sdk 30, touch: sendevent)" "the run's device"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='a11y' AND status='ok'")" "4" "taps by the tree"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='ocr' AND status='ok'")" "1" "the tap by OCR text"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND target LIKE '%send.png%' AND status='ok'")" "1" "the tap by image"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='set_text' AND status='ok'")" "1" "set_text"
expect_eq "$(q "SELECT status FROM steps WHERE run_id=$run AND action='launch_app'")" "ok" "launch_app step"

# 3b. The run replayed as actions on the same device (adb:SERIAL from the recorded device).
"$EACU" replay "$run" --mode actions --db "$db" >"$OUT/replay.out" 2>"$OUT/replay.err" || {
  cat "$OUT/replay.err" >&2; fail "eacu replay --mode actions"; }
expect_contains "$(cat "$OUT/replay.err")" "on --device adb:$serial, as run $run was recorded" "the replay's device"
rep=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT status || ' ' || replay_of FROM runs WHERE id=$rep")" "passed $run" "the replay run"
expect_eq "$(q "SELECT status || ' ' || method FROM steps WHERE run_id=$rep AND action='launch_app'")" "ok adb" "launch_app replayed"

# 4. What the device saw: the messages in the app's tree (read with the real adb client), the
# IME selected for the Chinese text and restored at the end, input through one shell.
tree=$(dump_tree)
expect_contains "$tree" 'text="Alice"' "the app is back on its contact list"
adb_here -s "$serial" shell input tap 540 270
for i in $(seq 100); do tree=$(dump_tree); case "$tree" in *'resource-id="com.example.chat:id/send"'*) break ;; esac; sleep 0.1; done
expect_contains "$tree" 'text="你好，世界" resource-id="com.example.chat:id/message_0"' "the Chinese message in 张三's chat"
expect_contains "$tree" 'text="你好，世界" resource-id="com.example.chat:id/message_1"' "the replay's Chinese message"
log=$(cat "$standin_log")
expect_contains "$log" "ime set com.android.adbkeyboard/.AdbIME" "ADBKeyBoard selected"
expect_contains "$log" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '你好，世界' | base64)" "the text broadcast"
expect_contains "$(echo "$log" | grep '^ime set' | tail -1)" "ime set com.android.inputmethod.latin/.LatinIME" "the previous IME restored"
expect_contains "$log" "input text hello%seacu" "ASCII through input text"
expect_contains "$log" "input text X" "an upper-case key typed"
expect_contains "$log" "input keyevent 123 67" "set_text deleting the field's text first"
expect_contains "$log" "monkey -p com.example.chat -c android.intent.category.LAUNCHER 1" "the launch"
expect_eq "$(grep -c '^OPEN shell,v2,raw:$' "$standin_log")" "2" "long-lived input shells opened by the run and its replay"
# Frames from the video stream (issue 38): screenrecord's H.264, a raw screencap only for the
# first frame and checks; never the PNG path.
grep -q '^OPEN shell,v2,raw:screenrecord --output-format=h264 --size 1072x2400 ' "$standin_log" ||
  fail "expected frames from screenrecord's stream, log: $(grep -c screenrecord "$standin_log") screenrecord lines"
grep -q '^OPEN exec:screencap -p$' "$standin_log" && fail "expected no PNG screencap (screencap -p)"
grep -q '^OPEN sync:$' "$standin_log" || fail "expected the dumps read back over sync:"

# 5. The benchmark runs on the stand-in (its numbers are load-dependent: only printed here).
adb_here -s "$serial" shell input keyevent 4
out=$("$EACU" bench adb --device "adb:$serial" --n 1 --tap 张三 2>&1) || fail "eacu bench adb: $out"
echo "$out"
expect_contains "$out" "step: tap it by the tree" "the whole-step benchmark"
expect_contains "$out" "ratio to one raw screencap" "the whole steps against one raw screencap"

# 6. The previous IME is restored when a signal ends the run (serve's stop ends a task the same
# way): the device's close has a bound of its own, which a pending signal does not cancel.
adb_here -s "$serial" shell input keyevent 4
: >"$standin_log"
cat >"$OUT/term.lua" <<'LUA'
launch("com.example.chat")
tap("a11y:张三")
tap({ resource_id = "com.example.chat:id/input" })
input("你好")
io.stderr:write("typed\n")
while true do sleep(0.2) end
LUA
"$EACU" run "$OUT/term.lua" --device "adb:$serial" --db "$db" >"$OUT/term.out" 2>"$OUT/term.err" &
tpid=$!
for _ in $(seq 600); do grep -q '^typed' "$OUT/term.err" && break; kill -0 $tpid 2>/dev/null || break; sleep 0.1; done
grep -q '^typed' "$OUT/term.err" || { cat "$OUT/term.err" >&2; fail "the run to be ended by a signal did not type"; }
expect_contains "$(grep '^ime set' "$standin_log" | tail -1)" "ime set com.android.adbkeyboard/.AdbIME" "ADBKeyBoard selected by the run"
kill -TERM $tpid
rc=0; wait $tpid || rc=$?
[ "$rc" -ne 0 ] || fail "the run ended by SIGTERM exited 0"
expect_contains "$(grep '^ime set' "$standin_log" | tail -1)" "ime set com.android.inputmethod.latin/.LatinIME" \
  "the previous IME restored after SIGTERM (exit $rc)"
echo PASS
