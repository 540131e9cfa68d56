#!/usr/bin/env bash
# eacu studio (issue 37) on X11 and on the Android stand-in, its page driven through headless
# Chromium's DevTools (studio_page.py) as a person would.
# X11: a zenity entry dialog started by --launch on the studio's private Xvfb: a click on the
# entry, "Wang 张三" typed, inspect's element info at OK matched with the tree's element, a
# click on OK (the dialog writes the text: the input reached the device); save; Ctrl-C stops
# the studio, its Xvfb and zenity; the saved script run on a fresh display writes the text again.
# chromium: a local page opened from the URL box, its button clicked on the live screen once the
# screen showed the page; the saved script run on a fresh Chromium presses it again.
# adb: the stand-in's chat app (--launch com.example.chat): a tap on the row 张三 (a tree
# target), 你好 typed through the input method path, 发送, the page's BACK button, save; the saved
# script run on a fresh stand-in sends 你好 (its log shows the tap, the broadcast, the BACK key).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
unwind_fully_under_asan
command -v zenity >/dev/null || fail "zenity is not installed (make deps installs it)"

# Starts `eacu studio --port 0 ARGS...`; sets $studio_pid and $url.
start_studio() {
  "$EACU" studio --port 0 "$@" >"$OUT/studio.out" 2>"$OUT/studio.err" &
  studio_pid=$!
  url=$(await_printed "$OUT/studio.out" "$studio_pid" 's|^eacu studio: \(http://[^ ]*\)$|\1|p' \
    "eacu studio" "$OUT/studio.err") || exit 1
}
stop_studio() {
  kill -INT "$studio_pid"
  local i
  for i in $(seq 300); do kill -0 "$studio_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$studio_pid" || fail "eacu studio exited $? on SIGINT: $(cat "$OUT/studio.err")"
}

# ---- X11: zenity ----
form=$OUT/form.txt
start_studio --display virtual:800x600 --launch "zenity --entry --title 表单 --text 姓名 --width 420 > $form" \
  -o "$OUT/form.lua"
trap 'kill "$studio_pid" 2>/dev/null; stop_android' EXIT
python3 "$here/studio_page.py" "$url" --case zenity --out "$OUT" --bench "${STUDIO_BENCH:-0}" | tee "$OUT/zenity.out"
grep -q '^studio_page: passed' "$OUT/zenity.out" || fail "studio_page.py --case zenity did not pass"
for i in $(seq 100); do grep -q . "$form" 2>/dev/null && break; sleep 0.1; done
expect_eq "$(cat "$form")" "Wang 张三" "what zenity wrote after the page's clicks and text"
xvfb_pid=$(awk '{ p = $1 } END { print p }' "$XVFB_LOG"); xvfb_start=$(awk '{ s = $2 } END { print s }' "$XVFB_LOG")
stop_studio
grep -q "^eacu studio: wrote $OUT/form.lua" "$OUT/studio.out" || fail "Ctrl-C did not save: $(cat "$OUT/studio.out")"
expect_process_gone "$xvfb_pid" "$xvfb_start" "the studio's Xvfb"
cat "$OUT/form.lua"
grep -q '^launch "zenity' "$OUT/form.lua" || fail "no launch line in the saved script"
grep -Eq '^tap\(\{ (\{ )?role = "push button", name = "OK" \}' "$OUT/form.lua" || fail "no tree target for OK in the saved script"
grep -q '^input "Wang 张三"' "$OUT/form.lua" || fail "no input line in the saved script"
grep -q '^launch("xlogo ' "$OUT/form.lua" || fail "no launch line from the page's launch box in the saved script"
grep -q '^assert(window({class = .*:focus()$' "$OUT/form.lua" || fail "no window line from the page's picker in the saved script"
rm -f "$form"
"$EACU" run "$OUT/form.lua" --display virtual:800x600 --db "$OUT/replay.db" >"$OUT/replay.out" 2>&1 ||
  fail "the saved script failed: $(cat "$OUT/replay.out")"
expect_eq "$(cat "$form")" "Wang 张三" "what zenity wrote when the saved script ran"

# ---- chromium: the URL box ----
cat >"$OUT/press.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="margin:0;font:24px sans-serif">
<button id="b" style="position:absolute;left:100px;top:100px;width:200px;height:60px;font-size:24px"
  onclick="location.hash='pressed';document.getElementById('s').textContent='Pressed 已按'">Press 按</button>
<p id="s" style="position:absolute;left:100px;top:200px">Waiting</p>
<canvas id="c" width="300" height="200" style="position:absolute;left:500px;top:300px"></canvas>
<p id="h" style="position:absolute;left:500px;top:520px">Canvas</p>
<script>
// Shapes with no names (a canvas exports no tree below itself): the star at 250,55 of the
// canvas (750,355 on the page, far from the canvas's centre) is hit, the rest is not.
const c = document.getElementById('c'), g = c.getContext('2d');
g.fillStyle = '#f4f0e8'; g.fillRect(0, 0, 300, 200);
g.fillStyle = '#2060c0'; g.beginPath(); g.arc(60, 60, 30, 0, 7); g.fill();
g.fillStyle = '#c03020'; g.beginPath();
for (let i = 0; i < 10; ++i) { const r = i % 2 ? 14 : 34, a = Math.PI / 5 * i - Math.PI / 2;
  g.lineTo(250 + r * Math.cos(a), 55 + r * Math.sin(a)); }
g.fill(); g.strokeStyle = '#203010'; g.lineWidth = 3; g.strokeRect(215, 20, 70, 70);
g.fillStyle = '#30a050'; g.fillRect(40, 130, 50, 40);
c.onclick = e => { const r = c.getBoundingClientRect();
  if (Math.hypot(e.clientX - r.left - 250, e.clientY - r.top - 55) < 34) { location.hash = 'hit'; document.getElementById('h').textContent = 'Hit 命中'; } };
</script>
HTML
start_studio --device chromium -o "$OUT/press.lua"
python3 "$here/studio_page.py" "$url" --case chromium --out "$OUT" | tee "$OUT/chromium.out"
grep -q '^studio_page: passed' "$OUT/chromium.out" || fail "studio_page.py --case chromium did not pass"
stop_studio
cat "$OUT/press.lua"
grep -q "^open_url(\"file://$OUT/press.html\")" "$OUT/press.lua" || fail "no open_url line from the URL box in the saved script"
# The saved script on a fresh Chromium at another device scale (the studio's page was at 1):
# the page opened, the button found by the tree and pressed, the star found by its image at
# twice its recorded size and hit (their effects: the texts they write).
printf '%s\n' 'wait("text:Pressed", 10)' 'wait("text:Hit", 10)' >>"$OUT/press.lua"
"$EACU" run "$OUT/press.lua" --device chromium:1280x800@2 --db "$OUT/replay_chromium.db" >"$OUT/replay_chromium.out" 2>&1 ||
  fail "the saved chromium script failed at device scale 2: $(cat "$OUT/replay_chromium.out")"

# ---- adb stand-in: the chat app ----
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the script needs the stand-in's app"; unset EACU_TEST_ADB_SERIAL; }
start_android
start_studio --device "adb:$serial" --launch com.example.chat -o "$OUT/chat.lua"
python3 "$here/studio_page.py" "$url" --case adb --out "$OUT" --bench "${STUDIO_BENCH:-0}" | tee "$OUT/adb.out"
grep -q '^studio_page: passed' "$OUT/adb.out" || fail "studio_page.py --case adb did not pass"
stop_studio
cat "$OUT/chat.lua"
grep -q '^launch "com.example.chat"' "$OUT/chat.lua" || fail "no launch line in the saved script"
# Each tap was proven on the screen the click was on (the frame the page showed): every crop of
# its line is found by the replay's locate, with the line's threshold, over the click point on
# the line's own frame (<stem>_frame.jpg); and the taps after the chat opened were proven on the
# chat, not on the list: their frame is not the first tap's, and their crops are not found over
# the click point on the list's frame.
covers() {  # covers "eacu locate output" X Y: found, and its box holds (X, Y)
  sed -n 's/^FOUND .* box (\(-\?[0-9]*\),\(-\?[0-9]*\) \([0-9]*\)x\([0-9]*\)).*/\1 \2 \3 \4/p' <<<"$1" |
    awk -v x="$2" -v y="$3" '{ ok = x >= $1 && x < $1 + $3 && y >= $2 && y < $2 + $4 } END { exit !ok }'
}
list_frame=
while read -r stem x y; do
  frame=$OUT/chat_assets/${stem}_frame.jpg
  [ -f "$frame" ] || fail "no frame saved for $stem's line: $(cat "$OUT/chat.lua")"
  if [ -z "$list_frame" ]; then list_frame=$frame; else
    cmp -s "$frame" "$list_frame" && fail "$stem's line (a tap on the chat) was proven on the list's frame"
  fi
  while read -r crop threshold; do
    [ -n "$crop" ] || continue
    out=$("$EACU" locate "$frame" "$OUT/$crop" --scale 1 ${threshold:+--threshold "$threshold"} 2>&1) || true
    covers "$out" "$x" "$y" || fail "$crop is not found over the click ($x,$y) on its own frame: $out"
    if [ "$frame" != "$list_frame" ]; then
      out=$("$EACU" locate "$list_frame" "$OUT/$crop" --scale 1 ${threshold:+--threshold "$threshold"} 2>&1) || true
      grep -q FOUND <<<"$out" || fail "eacu locate: $out"
      covers "$out" "$x" "$y" && fail "$crop (a tap on the chat) shows the list's screen at ($x,$y): $out"
    fi
    echo "$crop: cut from the screen the click at ($x,$y) was on"
  done < <(grep -o "\"chat_assets/${stem}\.png\"\(, threshold = [0-9.]*\)\?" "$OUT/chat.lua" |
             sed 's/^"\([^"]*\)"\(, threshold = \([0-9.]*\)\)\?$/\1 \3/' | sort -u)
done < "$OUT/adb_clicks.txt"
grep -q '^key "back"' "$OUT/chat.lua" || fail "no BACK line in the saved script"
# A fresh stand-in: the saved script opens the chat by its tree target and comes back.
start_more_android fresh
"$EACU" run "$OUT/chat.lua" --device "adb:$more_serial" --db "$OUT/replay_adb.db" >"$OUT/replay_adb.out" 2>&1 ||
  fail "the saved script failed on a fresh stand-in: $(cat "$OUT/replay_adb.out")"
grep -q '^input tap\|^touch down' "$more_log" || fail "the fresh stand-in got no tap (input tap or a touch by sendevent): $(cat "$more_log")"
grep -Eq "keyevent (4|KEYCODE_BACK)" "$more_log" || fail "the fresh stand-in got no BACK: $(cat "$more_log")"
expect_contains "$(cat "$more_log")" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '你好' | base64)" "你好 sent to the fresh stand-in"
echo "studio: passed"
