#!/usr/bin/env bash
# Short labels of real dialogs (zenity, xmessage, Tk) tapped by their text on a virtual display;
# each program reports the button pressed (exit code, printed label).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/widget_taps.lua" --display virtual --db "$db" -- "$here/../corpus/widgets" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run exited $rc"; }
echo "$out"
expect_contains "$out" "widget taps: zenity No/OK/Go, xmessage Go/No, Tk OK/确定/Go/Run reported" "every button reported"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='ocr' AND status='ok'")" "9" "nine taps found by OCR"
expect_display_gone "$(display_of_run "$db" "$run")"
echo "widget_taps: 3 passed, 0 failed"
