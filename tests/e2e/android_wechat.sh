#!/usr/bin/env bash
# Issue 27 item 7: the wechat module's Android path. `eacu run --task "给张三发消息 你好"
# --device adb:SERIAL` routes to wechat.send_message, which on a phone finds everything in the
# element tree by text, content-desc and role (no image): the app brought to front, the Chats
# tab (微信 + 通讯录), the contact's row, the message field, 发送, the message in the chat. The
# stand-in's chat app runs as com.tencent.mm and is laid out like WeChat (tabs, a search button
# described 搜索, a search screen). A second task reaches 王五, who has no row in the list, through
# search. Checked: the messages in the app's tree (real adb client), the ADBKeyBoard broadcasts.
# With EACU_TEST_ADB_SERIAL (a real phone with WeChat) this test does not apply: e2e_android
# runs the same template there (to 文件传输助手).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL: e2e_android runs the wechat template on the phone"; unset EACU_TEST_ADB_SERIAL; }
db=$OUT/runs.db
start_android --package com.tencent.mm

# 1. Routing alone: the sentence with a space before the text.
out=$("$EACU" run --task "给张三发消息 你好" --dry-run 2>&1) || fail "dry run: $out"
expect_contains "$out" "module wechat" "the module"
expect_contains "$out" "template send_message, params contact=张三 text=你好" "the template and its parameters"

# 2. The task on the phone: the app is not running yet (launched by its package), 张三 has a row.
adb_here -s "$serial" shell am force-stop com.tencent.mm
: >"$standin_log"
run_task() {
  "$EACU" run --task "$1" --device "adb:$serial" --yes --db "$db" >"$OUT/task.out" 2>"$OUT/task.err" || {
    cat "$OUT/task.out" "$OUT/task.err" >&2; tail -40 "$standin_log" >&2; fail "eacu run --task \"$1\" exited non-zero"; }
  cat "$OUT/task.out"
}
run_task "给张三发消息 你好"
log=$(cat "$standin_log")
expect_contains "$log" "monkey -p com.tencent.mm -c android.intent.category.LAUNCHER 1" "WeChat launched"
expect_contains "$log" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '你好' | base64)" "你好 through ADBKeyBoard"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "passed" "the task's run"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND method IN ('template','feature','ocr','model','model-box','model-element')")" "0" \
  "steps located by image, OCR or a model (the phone path uses the tree only)"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND method='a11y' AND status='ok'")" -ge 2 ] ||
  fail "expected tree steps in the run, got: $(sqlite3 "$db" "SELECT action, method, target FROM steps WHERE run_id=$run")"

# 3. 王五 has no row: found through search (the search button's content-desc, the field, a result).
: >"$standin_log"
run_task "给王五发消息 早上好"
log=$(cat "$standin_log")
expect_contains "$log" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '王五' | base64)" "王五 typed into the search field"
expect_contains "$log" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '早上好' | base64)" "早上好 through ADBKeyBoard"
grep -q "monkey" "$standin_log" && fail "WeChat was launched again although it was in front"

# 4. What the app shows, read through the real adb client: each message in its own chat, and the
# app back on its Chats tab.
open_chat() {
  local y=$1 tree i
  adb_here -s "$serial" shell input tap 540 "$y"
  for i in $(seq 100); do tree=$(dump_tree); case "$tree" in *'resource-id="com.tencent.mm:id/send"'*) break ;; esac; sleep 0.1; done
  echo "$tree"
}
tree=$(dump_tree)
expect_contains "$tree" 'text="通讯录"' "back on the Chats tab"
tree=$(open_chat 270)
expect_contains "$tree" 'text="张三" resource-id="com.tencent.mm:id/chat_title"' "张三's chat"
expect_contains "$tree" 'text="你好" resource-id="com.tencent.mm:id/message_0"' "你好 in 张三's chat"
case "$tree" in *早上好*) fail "早上好 landed in 张三's chat" ;; esac
adb_here -s "$serial" shell input keyevent 4
# 王五's chat, reached as a person would: search (its button), 王五 typed (ADBKeyBoard), the result.
adb_here -s "$serial" shell input tap 1000 80
for i in $(seq 100); do dump_tree | grep -q 'com.tencent.mm:id/search_input' && break; sleep 0.1; done
adb_here -s "$serial" shell ime set com.android.adbkeyboard/.AdbIME >/dev/null
for i in $(seq 50); do adb_here -s "$serial" shell dumpsys input_method | grep -q 'mCurMethodId=com.android.adbkeyboard' && break; sleep 0.1; done
adb_here -s "$serial" shell am broadcast -a ADB_INPUT_B64 --es msg "$(printf '王五' | base64)" >/dev/null
for i in $(seq 100); do dump_tree | grep -q 'text="王五" resource-id="com.tencent.mm:id/result"' && break; sleep 0.1; done
tree=$(open_chat 270)
expect_contains "$tree" 'text="王五" resource-id="com.tencent.mm:id/chat_title"' "王五's chat"
expect_contains "$tree" 'text="早上好" resource-id="com.tencent.mm:id/message_0"' "早上好 in 王五's chat"
case "$tree" in *'text="你好"'*) fail "你好 landed in 王五's chat" ;; esac
adb_here -s "$serial" shell input keyevent 4
echo PASS
