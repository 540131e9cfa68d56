#!/usr/bin/env bash
# eacu report in a real browser: a recorded calculator run opened in headless Chromium (the
# steps are there, the frame of the selected step loads, the scrubber follows, the match box is
# drawn), eacu frames, and a 500-step run (made through RunLog by the unit-test binary) that
# must open within a bound printed here.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
check() { python3 "$here/report_check.py" "$@"; }

# 1. A real run, its report.
"$EACU" run "$root/examples/calculator.lua" --display virtual --db "$db" >/dev/null 2>"$OUT/run.err" || {
  cat "$OUT/run.err" >&2; fail "calculator run failed"; }
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
nsteps=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run")
"$EACU" report "$run" --db "$db" -o "$OUT/report.html" | tee "$OUT/report.out"
expect_contains "$(cat "$OUT/report.out")" "$nsteps steps" "report summary"
grep -q 'https\?://[a-z]' <(grep -o 'https\?://[a-z0-9./]*' "$OUT/report.html" | grep -v 'www.w3.org/2000/svg') &&
  fail "the report links to the network"

# 2. Open it at the step that taps "3"; the DOM has every step and shows that step's frame.
idx=$(sqlite3 "$db" "SELECT idx FROM steps WHERE run_id=$run AND target='\"3\"'")
before=$(sqlite3 "$db" "SELECT frame_before FROM steps WHERE run_id=$run AND idx=$idx")
chrome --virtual-time-budget=5000 --dump-dom "file://$OUT/report.html#step=$idx" >"$OUT/dom.html"
expect_eq "$(check attr "$OUT/dom.html" report data-ready)" "1" "page script finished"
expect_eq "$(grep -o 'class="step [a-z_]\+' "$OUT/dom.html" | wc -l)" "$nsteps" "steps in the page"
expect_eq "$(grep -o '<span class="act">tap</span>' "$OUT/dom.html" | wc -l)" "7" "tap steps in the page"
expect_eq "$(check attr "$OUT/dom.html" screen data-step)" "$idx" "selected step"
expect_eq "$(check attr "$OUT/dom.html" screen data-loaded)" "$before" "the step's before-frame loaded"
expect_eq "$(check attr "$OUT/dom.html" scrubber value)" "$((idx - 1))" "scrubber position"
expect_contains "$(grep -o '<div id="caption">[^<]*' "$OUT/dom.html")" "step $idx of $nsteps" "caption"
grep -q "<rect x=" "$OUT/dom.html" || fail "no match box drawn over the frame"
# The reference image of an asset step is in the page.
grep -q 'data-ref="' "$OUT/dom.html" || fail "no reference images"

# 3. A screenshot: the frame is drawn with the match box and input point (the overlay colour);
#    the step with no frame (launch) shows none.
chrome --virtual-time-budget=5000 --screenshot="$OUT/step.png" "file://$OUT/report.html#step=$idx" >/dev/null
red=$(check red "$OUT/step.png")
[ "$red" -gt 60 ] || fail "screenshot at step $idx: expected the box and point drawn (>60 overlay pixels), got $red"
chrome --virtual-time-budget=5000 --screenshot="$OUT/launch.png" "file://$OUT/report.html#step=1" >/dev/null
red1=$(check red "$OUT/launch.png")
[ "$red1" -lt 10 ] || fail "screenshot at step 1 (no frame): expected no overlay, got $red1 pixels"
echo "screenshot: $red overlay pixels at step $idx, $red1 at step 1"

# 4. eacu frames exports every frame as PNG with an index.
"$EACU" frames "$run" --db "$db" -o "$OUT/frames"
nframes=$(sqlite3 "$db" "SELECT COUNT(*) FROM frames WHERE run_id=$run")
expect_eq "$(ls "$OUT/frames"/frame-*.png | wc -l)" "$nframes" "exported frames"
expect_eq "$(head -c 8 "$OUT/frames/frame-$before.png" | od -An -c | tr -d ' ')" '211PNG\r\n032\n' "PNG signature"
grep -q "step $idx before tap" "$OUT/frames/frames.tsv" || fail "frames.tsv does not say which step used frame $before"

# 5. --assets: images beside the page.
"$EACU" report "$run" --db "$db" -o "$OUT/linked.html" --assets "$OUT/linked" --quiet
[ -f "$OUT/linked/frames/$before.png" ] || fail "--assets: frame $before not written"
chrome --virtual-time-budget=5000 --dump-dom "file://$OUT/linked.html#step=$idx" >"$OUT/dom2.html"
expect_eq "$(check attr "$OUT/dom2.html" screen data-loaded)" "$before" "--assets frame loaded"

# 6. 500 steps: generated through RunLog by the unit-test binary, reported, opened.
unit=$(dirname "$EACU")/tests/eacu_unit_tests
[ -x "$unit" ] || fail "expected the unit-test binary at $unit (it generates the 500-step run)"
EACU_REPORT500_DB="$OUT/r500.db" "$unit" "a 500-step report builds fast and stays lazy" >/dev/null
"$EACU" report 1 --db "$OUT/r500.db" -o "$OUT/r500.html" | tee "$OUT/r500.out"
t0=$(date +%s%N)
chrome --dump-dom "file://$OUT/r500.html#step=350" >"$OUT/dom500.html"
t1=$(date +%s%N)
open_ms=$(check attr "$OUT/dom500.html" report data-open-ms)
script_ms=$(check attr "$OUT/dom500.html" report data-ready-ms)
[ -n "$open_ms" ] || fail "the 500-step report did not finish its script"
expect_eq "$(grep -o 'class="step [a-z_]\+' "$OUT/dom500.html" | wc -l)" "500" "steps in the 500-step page"
expect_eq "$(check attr "$OUT/dom500.html" screen data-step)" "350" "scrubbed to step 350"
bound=5000
echo "500-step report: $(du -h "$OUT/r500.html" | cut -f1), opened (navigation start to page ready) in $open_ms ms" \
     "(page script $script_ms ms; headless Chromium start to DOM dump $(( (t1 - t0) / 1000000 )) ms); bound $bound ms"
awk -v a="$open_ms" -v b="$bound" 'BEGIN { exit !(a < b) }' || fail "the 500-step report opened in $open_ms ms, over $bound ms"
echo "report: 6 passed, 0 failed"
