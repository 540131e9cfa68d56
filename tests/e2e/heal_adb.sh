#!/usr/bin/env bash
# Healing (issue 34, docs/healing.md) on the Android stand-in: the chat app in two versions
# (tests/adb_device/chat_app.py; the stand-in's `app_version` control file picks one when the app
# starts): v2 moves 张三's row from the first to the last and renames the send button 发送 ->
# Send. The v1 script is recorded in eacu studio on the stand-in (its HTTP side driven as the
# page drives it: heal_adb_record.py): a tap on the row 张三, on the text field, 你好 typed, a
# tap on 发送, BACK; every target proven with its alternatives and proof frames. Then:
#   v1 runs with no healing; v2 without --heal fails at the send line (the moved row is found
#   by its tree target); v2 with --heal and no model heals 发送 -> Send by the similarity search
#   (role, place and the tree's neighbours agree); with the stand-in model server it completes;
#   `eacu heal RUN --apply` writes a script that runs on v2 with no healing.
# No wrong tap: every `input tap` of the stand-in's own log is classified by the element under
# it (the app's tree, dumped on that version) and must be the v1 run's element in order.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the test needs the stand-in's app"; unset EACU_TEST_ADB_SERIAL; }
db=$OUT/runs.db
# A small phone (540x1200 at 210 dpi): every frame read whole costs a quarter of a 1080x2400 one.
start_android --width 540 --height 1200 --density 210
studio_pid= server_pid=
trap '[ -n "$studio_pid" ] && kill "$studio_pid" 2>/dev/null; [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; stop_android' EXIT

# ---- v1 recorded in eacu studio ----
"$EACU" studio --port 0 --device "adb:$serial" --launch com.example.chat -o "$OUT/v1.lua" >"$OUT/studio.out" 2>"$OUT/studio.err" &
studio_pid=$!
url=$(await_printed "$OUT/studio.out" "$studio_pid" 's|^eacu studio: \(http://[^ ]*\)$|\1|p' "eacu studio" "$OUT/studio.err") || exit 1
python3 "$here/heal_adb_record.py" "$url" | tee "$OUT/record.out"
grep -q '^heal_adb_record: saved' "$OUT/record.out" || fail "the studio's recording did not finish"
kill -INT "$studio_pid"; wait "$studio_pid" || fail "eacu studio exited $? on SIGINT: $(cat "$OUT/studio.err")"
studio_pid=
cat "$OUT/v1.lua"
send_line=$(grep -n '^tap.*发送' "$OUT/v1.lua" | cut -d: -f1)
[ -n "$send_line" ] || fail "no tap on 发送 in the recorded script"
grep -q "^tap.*发送.*alt = {" "$OUT/v1.lua" || fail "the send line has no alternatives"
ls "$OUT"/v1_assets/*_frame.jpg >/dev/null || fail "no proof frame kept beside the crops"

# use VERSION: the app restarted as VERSION at the script's launch line; the stand-in's log emptied.
use() {
  adb_here -s "$serial" shell am force-stop com.example.chat
  echo "$1" >"$control/app_version"
  : >"$standin_log"
}
# The app's screens on VERSION (its tree dumped on the list and in 张三's chat), for taps().
dumps() {
  use "$1"
  adb_here -s "$serial" shell monkey -p com.example.chat 1 >/dev/null
  dump_tree >"$OUT/$1_list.xml"
  local b; b=$(python3 "$here/heal_adb_taps.py" --centre 张三 "$OUT/$1_list.xml")
  adb_here -s "$serial" shell input tap $b
  local i; for i in $(seq 100); do dump_tree >"$OUT/$1_chat.xml"; grep -q 'chat_title' "$OUT/$1_chat.xml" && break; sleep 0.1; done
  adb_here -s "$serial" shell am force-stop com.example.chat
}
# The elements the stand-in's taps of the last run hit on VERSION, in order (the first on the
# list, the others in the chat).
taps() { python3 "$here/heal_adb_taps.py" "$OUT/$1_list.xml" "$OUT/$1_chat.xml" "$standin_log"; }
dumps v1
dumps v2
all_taps="张三 input 发送"
v2_taps="张三 input Send"

# ---- v1 with no healing ----
use v1
out=$("$EACU" run "$OUT/v1.lua" --device "adb:$serial" --db "$db" 2>&1) || fail "the v1 script failed on v1: $out"
expect_eq "$(taps v1)" "$all_taps" "v1's taps"

# ---- v2 without --heal: fails at the send line; the moved row found by its tree target ----
cp "$OUT/v1.lua" "$OUT/v2.lua"
use v2
if out=$("$EACU" run "$OUT/v2.lua" --device "adb:$serial" --db "$db" 2>&1); then fail "v2 passed with no healing: $out"; fi
echo "$out"
expect_contains "$out" "v2.lua:$send_line: tap" "v2 with no healing fails at the renamed button"
expect_contains "$out" "not found" "v2 with no healing"
expect_eq "$(taps v2)" "张三 input" "v2's taps with no healing"

# ---- v2 with --heal, no model: the renamed button healed by the similarity search ----
# (its role, place and tree neighbours agree: the text field and the chat's labels beside it,
# kept beside the proof frame as <stem>_frame.json; docs/healing.md)
ls "$OUT"/v1_assets/*_frame.json >/dev/null || fail "no tree neighbours kept beside the proof frames"
use v2
out=$("$EACU" run "$OUT/v2.lua" --heal --device "adb:$serial" --db "$db" 2>&1) || fail "v2 with --heal and no model failed: $out"
expect_eq "$(taps v2)" "$v2_taps" "v2's taps with --heal and no model"
run_nomodel=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_nomodel"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_nomodel AND status='ok' AND method = 'heal:similar'")" "1" \
  "lines healed without a model (the renamed button)"

# ---- v2 with --heal and the stand-in model server: the rest ----
use_model_server
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; stop_android' EXIT  # use_model_server's trap, and the stand-in's
use v2
out=$("$EACU" run "$OUT/v2.lua" --heal --device "adb:$serial" --db "$db" 2>&1) || fail "v2 with --heal and a model failed: $out"
run_model=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_model"
expect_eq "$(taps v2)" "$v2_taps" "v2's taps with --heal and a model"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_model AND status='ok' AND method LIKE 'heal:%'")" "1" \
  "lines healed with a model (the renamed button)"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
unset EACU_MODEL_PROVIDER EACU_MODEL EACU_MODEL_BASE_URL EACU_MODEL_API_KEY

# ---- eacu heal --apply: the written script runs on v2 with no model and no healing ----
diff=$("$EACU" heal "$run_model" --db "$db" 2>&1) || fail "eacu heal failed: $diff"
echo "$diff"
expect_eq "$(grep -c '^+tap' <<<"$diff")" "1" "rewritten lines"
expect_contains "$diff" "alt = {" "the old targets kept as alternatives"
"$EACU" heal "$run_model" --apply --db "$db" >/dev/null 2>&1 || fail "eacu heal --apply failed"
cmp -s "$OUT/v2.lua" "$OUT/v1.lua" && fail "--apply changed nothing"
use v2
out=$("$EACU" run "$OUT/v2.lua" --device "adb:$serial" --db "$db" 2>&1) || fail "the healed script failed on v2: $out"
applied=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$applied AND method LIKE 'heal:%'")" "0" "healing in the healed script's run"
expect_eq "$(taps v2)" "$v2_taps" "v2's taps with the healed script"
expect_contains "$(cat "$standin_log")" "--es msg $(printf '你好' | base64)" "你好 sent by the healed script"
echo "PASS heal_adb"
