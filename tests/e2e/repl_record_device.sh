#!/usr/bin/env bash
# The REPL's record() and stop() on a device that is not an X display (issue 37 item 6), in
# tmux: a REPL on --device chromium opens a local page; record() starts the studio's record mode
# on the session's own page and prints its URL (eacu studio: http://127.0.0.1:PORT/); the page's
# button is clicked on the studio page's live screen (studio_page.py --case repl, through headless
# Chromium's DevTools, as a person); stop() returns the line proven there (the button by the
# page's accessibility tree) and puts it in the history and .record's lines; the page opened
# again, the returned line run again presses the button (the page's own URL says so: #pressed).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
unwind_fully_under_asan
db=$OUT/runs.db
cat >"$OUT/press.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="margin:0;font:24px sans-serif">
<button id="b" style="position:absolute;left:100px;top:100px;width:200px;height:60px;font-size:24px"
  onclick="location.hash='pressed';document.getElementById('s').textContent='Pressed 已按'">Press 按</button>
<p id="s" style="position:absolute;left:100px;top:200px">Waiting</p>
HTML
page="file://$OUT/press.html"
. "$here/repl_tmux.bash"
REPL_DEVICE=chromium start_repl_tmux eacu-repl-record-device "$OUT"
send "open_url(\"$page\"); print(\"OPEN\" .. \"ED \" .. current_url())"
wait_for "OPENED $page" 60
send 'record()'
wait_for "recording what you do on" 60
url=$(pane | sed -n 's|^eacu studio: \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' | tail -1)
[ -n "$url" ] || { pane >&2; fail "record() did not print the studio's loopback URL"; }
python3 "$here/studio_page.py" "$url" --case repl --out "$OUT" | tee "$OUT/page.out"
grep -q '^studio_page: passed' "$OUT/page.out" || fail "studio_page.py --case repl did not pass"
send '.record on'
wait_for "recording: the lines you enter"
send 'lines = stop()'
# stop() waits for the line's proof (done already: the page saw it proven); a bound.
wait_for "line recorded" 120
send 'n = 0; for l in lines:gmatch("[^\n]+") do if l:match("^tap%(") and l:find("name = \"Press 按\"", 1, true) then n = n + 1 end end; print("TAPS" .. n)'
wait_for "TAPS1"
grep -q '^tap(.*name = "Press 按"' "$OUT/history" || { cat "$OUT/history" >&2; fail "stop() did not put the line in the history"; }
send ".record off $OUT/kept.lua"
wait_for "saved " 10
grep -q '^tap(.*name = "Press 按"' "$OUT/kept.lua" || { cat "$OUT/kept.lua" >&2; fail "stop() did not put the line in .record's lines"; }
# The studio's server is gone with stop().
if python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=5)" "$url" 2>/dev/null; then
  fail "the studio's page still answers after stop()"
fi
# The page again (its URL without #pressed), then the recorded line: the button is pressed again.
send "open_url(\"$page\"); print(\"BEFO\" .. \"RE \" .. current_url())"
wait_for "BEFORE $page" 60
pane | grep -q "^BEFORE $page#pressed" && fail "the page was not opened again"
send 'assert(load(lines))(); print("AFT" .. "ER " .. current_url())'
wait_for "AFTER $page#pressed" 60
pane >"$OUT/pane.txt"
send '.exit'
wait_for "REPL-EXITED 0" 30
echo "PASS repl_record_device"
