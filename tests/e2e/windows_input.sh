#!/usr/bin/env bash
# Window-bound verbs (window =, raise =, focus = false) on xcalc covered by a zenity dialog
# under openbox, the run log's record of them, and which toolkits act on input sent as events.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/windows_input.lua" --display virtual --wm openbox --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run windows_input.lua exited $rc"; }
echo "$out"
expect_contains "$out" "windows_input: covered refused, located without raising, events to xcalc, raised, restored" "window-bound verbs"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT json_extract(params, '$.covered_by.class') FROM steps WHERE run_id=$run AND action='tap' AND status='failed' AND error LIKE '%covered by%'")" "Zenity" "the covered tap's step"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok' AND json_extract(params, '$.window.class')='XCalc' AND json_extract(params, '$.delivery')='events'")" "1" "a tap sent as events, recorded with its window"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action IN ('drag','scroll') AND status='ok' AND json_extract(params, '$.window.class')='XCalc'")" "2" "window-bound drag and scroll recorded"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok' AND json_extract(params, '$.raised')=1")" "2" "raised taps recorded"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='locate' AND json_extract(params, '$.window.class')='XCalc'")" "2" "window-bound locate and exists recorded with their window"
shown=$("$EACU" show "$run" --db "$db" 2>&1) || fail "eacu show exited $?"
expect_contains "$shown" 'in window 0x' "eacu show names the window"
expect_contains "$shown" ', sent as events' "eacu show: sent as events"
expect_display_gone "$(display_of_run "$db" "$run")"

# Which toolkits act on events sent to a window (the README's table): measured, not assumed.
out=$("$EACU" run "$here/windows_events.lua" --display virtual --wm openbox --db "$db" 2>"$OUT/stderr2") || { rc=$?;
  cat "$OUT/stderr2" >&2; echo "$out" >&2; fail "eacu run windows_events.lua exited $rc"; }
echo "$out"
expect_contains "$out" "events: Xaw (xcalc) click=yes keys=yes" "Xaw (xcalc)"
expect_contains "$out" "events: Xaw (xmessage) click=yes keys=yes" "Xaw (xmessage)"
expect_contains "$out" "events: GTK3 (zenity) click=no keys=no" "GTK3 (zenity)"
expect_contains "$out" "events: Tk (python3-tk) click=yes keys=no" "Tk"
expect_contains "$out" "events: Xt (xterm) click=untested keys=no" "xterm"

# The timings: a window's own capture against the screen's.
out=$("$EACU" bench window --n 10 2>&1) || { rc=$?; echo "$out" >&2; fail "eacu bench window exited $rc"; }
echo "$out"
expect_contains "$out" "window capture (XComposite)" "bench window"
echo "windows_input: 15 passed, 0 failed"
