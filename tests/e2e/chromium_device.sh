#!/usr/bin/env bash
# Issue 13 part 4: the chromium device with no X server (DISPLAY unset). Headless Chromium,
# python3-doc searched with the page's own box by text, the result opened and its heading
# verified; the run replayed on the device and reported; a blocked domain refused before any
# request, and a link of the page to it stopped; Chinese typed into an <input>; two runs in
# parallel, each with its own page of one Chromium (cdp:http://127.0.0.1:PORT).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }
[ -z "${DISPLAY:-}" ] || fail "DISPLAY is set"
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"

# 1. The python3-doc search, at a viewport of 1024x700 CSS pixels and device scale 2.
out=$("$EACU" run "$here/chromium_device.lua" --device chromium:1024x700@2 --db "$db" -- search json 2>"$OUT/search.err") || {
  cat "$OUT/search.err" >&2; fail "the search run exited non-zero"; }
expect_contains "$out" "heading verified: json" "search output"
expect_contains "$out" "url file:///usr/share/doc/python3-doc/html/library/json.html" "the result page's URL"
run=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT status FROM runs WHERE id=$run")" "passed" "search run status"
expect_contains "$(q "SELECT device FROM runs WHERE id=$run")" "chromium headless 1024x700@2" "the run's device"
expect_eq "$(q "SELECT screen_w || 'x' || screen_h || '@' || scale FROM runs WHERE id=$run")" "2048x1400@2.0" "screen in physical pixels"
expect_eq "$(q "SELECT status FROM steps WHERE run_id=$run AND action='open_url'")" "ok" "open_url step"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='verify' AND target LIKE '%json — JSON encoder and decoder%' AND status='ok'")" "1" "heading verified by text"
# The profile directory is gone and no Chromium of the run is left.
[ -z "$(ls "$OUT/tmp" | grep eacu-chromium-device || true)" ] || fail "the profile directory was left: $(ls "$OUT/tmp")"

# 2. The report and a replay of the run on the same kind of device.
"$EACU" report "$run" --db "$db" -o "$OUT/report.html" >/dev/null 2>"$OUT/report.err" || { cat "$OUT/report.err" >&2; fail "report"; }
grep -q "open_url" "$OUT/report.html" || fail "the report has no open_url step"
# No --device: the run was recorded on the chromium device, so it replays on one (1024x700@2).
"$EACU" replay "$run" --db "$db" >"$OUT/replay.out" 2>"$OUT/replay.err" || {
  cat "$OUT/replay.err" >&2; fail "replay on the chromium device"; }
expect_contains "$(cat "$OUT/replay.err")" "eacu replay: on --device chromium:1024x700@2, as run $run was recorded" "replay's device"
rep=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT status || ' ' || replay_of FROM runs WHERE id=$rep")" "passed $run" "replay run"
expect_contains "$(q "SELECT device FROM runs WHERE id=$rep")" "chromium headless 1024x700@2" "the replay's device"

# 3. A blocked domain: refused before any request (no network exists here either way).
set +e
out=$(EACU_BLOCK_DOMAINS=example.com "$EACU" run "$here/chromium_device.lua" --device chromium --db "$db" -- blocked 2>"$OUT/blocked.err")
rc=$?
set -e
expect_eq "$rc" "1" "blocked run exit code"
expect_contains "$out" "refused: true code refused" "open_url refused"
expect_contains "$(cat "$OUT/blocked.err")" 'open_url "http://example.com/": refused: the domain example.com is blocked by EACU_BLOCK_DOMAINS' "the refusal's message"
run=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT method || ' ' || status FROM steps WHERE run_id=$run AND action='open_url'")" "policy failed" "refusal recorded"

# 4. A link of the page to the blocked domain: the navigation is stopped and the run fails.
cat >"$OUT/link.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="font: 28px sans-serif; margin: 60px">
<p><a href="http://example.com/">Visit the example site</a></p></body>
HTML
set +e
out=$(EACU_BLOCK_DOMAINS=example.com "$EACU" run "$here/chromium_device.lua" --device chromium --db "$db" -- link "$OUT/link.html" 2>"$OUT/link.err")
rc=$?
set -e
expect_eq "$rc" "1" "link run exit code"
# (Chromium may upgrade the link to https before its request: either is stopped.)
expect_contains "$(cat "$OUT/link.err")" "example.com/ started by the page: refused: the domain example.com is blocked by EACU_BLOCK_DOMAINS" "the page's navigation refused"
run=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT method || ' ' || status FROM steps WHERE run_id=$run AND action='open_url' AND target LIKE 'http%://example.com/'")" "policy failed" "page navigation refusal recorded"

# 5. Chinese into an <input> with Input.insertText, read back through the page's URL; keys; the wheel.
cat >"$OUT/input.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="font: 28px sans-serif; margin: 60px">
<input id="q" placeholder="Type here" style="font-size: 28px; width: 600px"
 oninput="history.replaceState(null, '', '#' + encodeURIComponent(this.value))">
<div style="height: 3000px"></div><p>Bottom line here</p></body>
HTML
out=$("$EACU" run "$here/chromium_device.lua" --device chromium --db "$db" -- chinese "$OUT/input.html" 2>"$OUT/chinese.err") || {
  cat "$OUT/chinese.err" >&2; fail "the Chinese input run exited non-zero"; }
expect_contains "$out" "typed value: 张三说：你好，世界" "the input's value"
expect_contains "$out" "after the keys: AbC" "keys as DOM key events"
expect_contains "$out" "scrolled to the bottom" "the mouse wheel"

# 6. Chromium killed under the run: a device error naming it, and no profile left behind.
out=$("$EACU" run "$here/chromium_device.lua" --device chromium --db "$db" -- gone 2>"$OUT/gone.err") || {
  cat "$OUT/gone.err" >&2; fail "the gone run exited non-zero"; }
expect_contains "$out" "after the kill: false code device" "the step's code"
expect_contains "$out" "is gone (exit status 137)" "the error names Chromium and its end"
[ -z "$(ls "$OUT/tmp" | grep eacu-chromium-device || true)" ] || fail "the profile directory was left: $(ls "$OUT/tmp")"

# 7. Two runs in parallel, each with its own page of one Chromium started here.
profile=$OUT/tmp/profile
chromium --headless=new --no-sandbox --remote-debugging-port=0 --user-data-dir="$profile" --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync about:blank >"$OUT/chromium.log" 2>&1 &
chromium_pid=$!
trap 'kill "$chromium_pid" 2>/dev/null || true' EXIT
port=
for _ in $(seq 300); do
  port=$(head -1 "$profile/DevToolsActivePort" 2>/dev/null || true)
  [ -n "$port" ] && break
  kill -0 "$chromium_pid" 2>/dev/null || { cat "$OUT/chromium.log" >&2; fail "chromium exited"; }
  sleep 0.1
done
[ -n "$port" ] || fail "chromium wrote no DevToolsActivePort within 30 s"
"$EACU" run "$here/chromium_device.lua" --device "cdp:http://127.0.0.1:$port" --db "$db" -- page json >"$OUT/p1.out" 2>"$OUT/p1.err" &
p1=$!
"$EACU" run "$here/chromium_device.lua" --device "cdp:http://127.0.0.1:$port" --db "$db" -- page csv >"$OUT/p2.out" 2>"$OUT/p2.err" &
p2=$!
wait "$p1" || { cat "$OUT/p1.err" >&2; fail "parallel run 1 (json)"; }
wait "$p2" || { cat "$OUT/p2.err" >&2; fail "parallel run 2 (csv)"; }
expect_contains "$(cat "$OUT/p1.out")" "url file:///usr/share/doc/python3-doc/html/library/json.html" "parallel run 1's page"
expect_contains "$(cat "$OUT/p2.out")" "url file:///usr/share/doc/python3-doc/html/library/csv.html" "parallel run 2's page"
expect_eq "$(q "SELECT COUNT(*) FROM runs WHERE device LIKE 'cdp http://127.0.0.1:$port page%' AND status='passed'")" "2" "two passed runs on the shared Chromium"
# Both ran at once: their spans overlap.
expect_eq "$(q "SELECT COUNT(*) FROM runs a JOIN runs b ON a.id < b.id WHERE a.device LIKE 'cdp %' AND b.device LIKE 'cdp %' AND a.started_at < b.ended_at AND b.started_at < a.ended_at")" "1" "the two runs overlapped"
# Each closed its page: only Chromium's first page is left.
pages=$(python3 -c "import json,urllib.request; print(sum(t['type']=='page' for t in json.load(urllib.request.urlopen('http://127.0.0.1:$port/json/list'))))")
expect_eq "$pages" "1" "pages left open in the shared Chromium"
kill "$chromium_pid"; wait "$chromium_pid" 2>/dev/null || true
echo "chromium_device: ok"
