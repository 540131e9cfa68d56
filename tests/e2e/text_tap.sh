#!/usr/bin/env bash
# Buttons of a real program tapped by their text (OCR), English and Chinese, on a virtual display.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/text_tap.lua" --display virtual --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run exited $rc"; }
echo "$out"
expect_contains "$out" "text taps: Postpone -> 1, 上海 picked" "both dialogs answered by text"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='ocr' AND status='ok' AND score >= threshold")" "2" "two taps found by OCR"
expect_display_gone "$(display_of_run "$db" "$run")"
echo "text_tap: 3 passed, 0 failed"
