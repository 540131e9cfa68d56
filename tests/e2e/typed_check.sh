#!/usr/bin/env bash
# input checks what arrived (issue 36, item 7) on a virtual display (its own accessibility bus):
# `input "张三abc"` into zenity --entry is read back through the AT-SPI tree and passes; into a
# GTK entry that keeps 5 characters it fails with verify_failed saying what was expected and what
# the field holds; check = false passes; a password entry is compared by length and its text is
# nowhere in the run log; xterm (no tree) is checked on the screen by OCR, and an xterm that does
# not echo logs "not confirmed" without failing.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
/usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0")' 2>/dev/null ||
  fail "python3-gi with GTK 3 (python3-gi, gir1.2-gtk-3.0) is not installed (make deps installs them)"
unwind_fully_under_asan  # the check reads zenity's accessibility tree
db=$OUT/runs.db
t0=$(date +%s.%N)
out=$("$EACU" run "$here/typed_check.lua" --display virtual --db "$db" -- "$here/typed_check_gtk.py" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run typed_check.lua exited $rc"; }
echo "$out"
expect_contains "$out" "zenity 张三abc" "zenity's output"
expect_contains "$out" "max code verify_failed" "the 5-character entry's failure code"
expect_contains "$out" 'holds "张三abc" after' "the failure names what the field holds"
expect_contains "$out" 'expected "张三abcdef"' "the failure names what was typed"
expect_contains "$out" "max 张三abc" "the 5-character entry after check = false"
expect_contains "$out" "password hunter2" "the password entry's text"
expect_contains "$out" "typed_check: done" "the script"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
typed() { sqlite3 "$db" "SELECT status || ' ' || json_extract(params, '$.typed') FROM steps WHERE run_id=$run AND action='input' ORDER BY idx LIMIT 1 OFFSET $1"; }
expect_contains "$(typed 0)" 'ok checked: the text' "zenity's input step"
expect_contains "$(typed 0)" 'holds "张三abc"' "zenity's input step"
expect_contains "$(typed 1)" 'failed failed: the text' "the 5-character entry's input step"
expect_eq "$(typed 2)" "ok not checked: check = false" "the input with check = false"
expect_contains "$(typed 3)" "ok checked: the password text holds 7 characters" "the password entry's input step"
expect_contains "$(typed 4)" 'ok checked on the screen: "plain words" reads where the screen changed' "xterm's input step"
expect_contains "$(typed 4)" "the tree could not check (no text field has the focus in the accessibility tree)" "xterm's input step"
expect_contains "$(typed 5)" "ok not confirmed on the screen: it did not change after the text was sent" "the quiet xterm's input step"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND (target LIKE '%hunter2%' OR params LIKE '%hunter2%' OR error LIKE '%hunter2%')")" = 0 ] ||
  fail "the password's text is in the run log"
expect_eq "$(sqlite3 "$db" "SELECT target FROM steps WHERE run_id=$run AND action='input' ORDER BY idx LIMIT 1 OFFSET 3")" \
  "(secret, 7 characters)" "the password input's target"
echo "typed_check: 6 inputs as expected in $(echo "$(date +%s.%N) - $t0" | bc) s"
