#!/usr/bin/env bash
# The REPL's record() and stop() on the Android stand-in (issue 37 item 6), in tmux: a REPL on
# --device adb:SERIAL starts the chat app; record() starts the studio's record mode on the
# session's own device and prints its URL; the row 张三 is tapped on the studio page's live
# screen (studio_page.py --case repl_adb, through headless Chromium's DevTools, as a person);
# stop() returns the line proven there (a tree target) and puts it in the history; after BACK,
# the returned line run again in the REPL opens the chat of 张三 again (the app's own screen, read
# through the real adb client, and the stand-in's log of the tap).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
unwind_fully_under_asan
db=$OUT/runs.db
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the test needs the stand-in's app"; unset EACU_TEST_ADB_SERIAL; }
start_android
. "$here/repl_tmux.bash"
REPL_DEVICE="adb:$serial" start_repl_tmux eacu-repl-record-adb "$OUT"
trap 'tm kill-server 2>/dev/null || true; stop_android' EXIT  # start_repl_tmux set its own
# True when the app shows the chat of 张三 (its title), as the stand-in's tree dump says.
chat_open() { dump_tree 2>/dev/null | grep -o '<node [^>]*chat_title[^>]*>' | grep -q 'text="张三"'; }
send 'launch "com.example.chat"; print("LAUNCH" .. "ED")'
wait_for "LAUNCHED" 60
send 'record()'
wait_for "recording what you do on" 60
url=$(pane | sed -n 's|^eacu studio: \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' | tail -1)
[ -n "$url" ] || { pane >&2; fail "record() did not print the studio's loopback URL"; }
python3 "$here/studio_page.py" "$url" --case repl_adb --out "$OUT" | tee "$OUT/page.out"
grep -q '^studio_page: passed' "$OUT/page.out" || fail "studio_page.py --case repl_adb did not pass"
chat_open || fail "the page's tap did not open the chat of 张三"
send 'lines = stop()'
wait_for "line recorded" 120
send 'n = 0; for l in lines:gmatch("[^\n]+") do if l:match("^tap%(") and l:find("张三", 1, true) then n = n + 1 end end; print("TAPS" .. n)'
wait_for "TAPS1"
grep -q '^tap(.*张三' "$OUT/history" || { cat "$OUT/history" >&2; fail "stop() did not put the line in the history"; }
# Back to the list, then the recorded line: the chat opens again.
send 'key "back"; print("BACK" .. "ED")'
wait_for "BACKED" 30
deadline=$(( $(date +%s) + 30 ))
while chat_open; do [ "$(date +%s)" -le $deadline ] || fail "BACK did not close the chat"; sleep 0.2; done
taps_before=$(grep -c '^input tap\|^touch down' "$standin_log" || true)
send 'assert(load(lines))(); print("R" .. "AN")'
wait_for "RAN" 60
deadline=$(( $(date +%s) + 30 ))
until chat_open; do [ "$(date +%s)" -le $deadline ] || fail "the recorded line did not open the chat again"; sleep 0.2; done
taps_after=$(grep -c '^input tap\|^touch down' "$standin_log" || true)
[ "$taps_after" -gt "$taps_before" ] || fail "the stand-in got no tap from the recorded line: $(tail -5 "$standin_log")"
pane >"$OUT/pane.txt"
send '.exit'
wait_for "REPL-EXITED 0" 30
echo "PASS repl_record_adb"
