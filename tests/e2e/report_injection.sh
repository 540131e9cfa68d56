#!/usr/bin/env bash
# HTML and script in recorded text (a typed string, a text target, the run's error) shown as
# text in the report: opened in headless Chromium, no script of the run's runs, the page's own
# script finishes, and the strings are in the page as text.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
check() { python3 "$here/report_check.py" "$@"; }

rc=0
"$EACU" run "$here/report_injection.lua" --display virtual --db "$db" >"$OUT/run.out" 2>"$OUT/run.err" || rc=$?
cat "$OUT/run.out"
[ "$rc" != 0 ] || fail "the run should fail (its last tap seeks text that is not there), it exited 0"
expect_contains "$(cat "$OUT/run.out")" "typed and read back" "the typed text reached the program"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "failed" "run status"
expect_display_gone "$(display_of_run "$db" "$run")"

"$EACU" report "$run" --db "$db" -o "$OUT/report.html" >/dev/null
chrome --virtual-time-budget=5000 --dump-dom "file://$OUT/report.html" >"$OUT/dom.html"
expect_eq "$(check attr "$OUT/dom.html" report data-ready)" "1" "the report's own script finished"
if grep -q 'data-pwned=' "$OUT/dom.html"; then
  fail "a recorded string ran as script: $(grep -o '<body[^>]*>' "$OUT/dom.html")"
fi
# The strings are there as text (escaped in the serialised DOM), in the step list and the error.
grep -qF '&lt;img src=x onerror="document.body.dataset.pwned=' "$OUT/dom.html" ||
  fail "the sought text is not shown as text in the report"
grep -qF '&lt;/script&gt;&lt;script&gt;document.body.dataset.pwned=' "$OUT/dom.html" ||
  fail "the typed text is not shown as text in the report"
grep -q '<pre class="err" id="run-error">[^<]*&lt;img src=x' "$OUT/dom.html" ||
  fail "the run's error does not show the sought text as text"
echo "report_injection: passed"
