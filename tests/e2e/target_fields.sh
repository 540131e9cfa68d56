#!/usr/bin/env bash
# Target tables mean what they say on a real program (zenity, virtual display): a timeout inside
# the target table is honoured (tap { text = "NoSuchLabel", timeout = 1 } gives up after about
# 1 s, not the default 5, measured from the run log), and { "text:Postpone" } taps by text.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/target_fields.lua" --display virtual --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run exited $rc"; }
echo "$out"
expect_contains "$out" "target fields: timeout in the table honoured" "the script ran to its end"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
secs=$(sqlite3 "$db" "SELECT printf('%.2f', ended_at - started_at) FROM steps WHERE run_id=$run AND action='tap' AND status='failed'")
echo "tap { text = \"NoSuchLabel\", timeout = 1 } failed after $secs s"
[ -n "$secs" ] || fail "no failed tap step in the run log"
awk -v s="$secs" 'BEGIN { exit !(s >= 0.9 && s < 3) }' || fail "the failed tap took $secs s: expected about 1 s (0.9 to 3), not the default 5"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok' AND method='ocr' AND target='\"text:Postpone\"'")" "1" "{ \"text:Postpone\" } tapped by OCR, labelled as the string form"
expect_display_gone "$(display_of_run "$db" "$run")"
echo "target_fields: 4 passed, 0 failed"
