#!/usr/bin/env bash
# eacu replay: a recorded calculator run played back on a fresh xcalc (actions mode: the
# recorded inputs, gated by the recorded frames) reproduces 408; with the keypad moved it
# re-locates; against a changed screen (the "3" key relabelled) it stops at that step with a
# clear report; script mode runs the recorded script again. show and report say where a
# replay differs.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db

"$EACU" run "$root/examples/calculator.lua" --display virtual --db "$db" >/dev/null 2>"$OUT/run.err" || {
  cat "$OUT/run.err" >&2; fail "calculator run failed"; }
orig=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
nsteps=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$orig")
# What the display shows in a run's last frame, read by the calculator module itself.
display_of() {
  local f; f=$(sqlite3 "$db" "SELECT frame_after FROM steps WHERE run_id=$1 AND frame_after IS NOT NULL ORDER BY idx DESC LIMIT 1")
  sqlite3 "$db" "SELECT writefile('$OUT/last-$1.png', png) FROM frames WHERE id=$f" >/dev/null
  "$EACU" run "$here/read_display.lua" --display "image:$OUT/last-$1.png" --db "$OUT/scratch.db" 2>/dev/null | sed -n 's/^display=//p'
}

# 1. Actions mode on a fresh xcalc in a new Xvfb: passes, every step replayed, 408 shown.
"$EACU" replay "$orig" --mode actions --display virtual --db "$db" 2>"$OUT/a.err" || {
  cat "$OUT/a.err" >&2; fail "actions replay failed"; }
rep=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_contains "$(cat "$OUT/a.err")" "run $rep passed: replay of run $orig (actions mode), $nsteps steps" "replay summary"
expect_eq "$(sqlite3 "$db" "SELECT replay_of || ' ' || replay_mode || ' ' || status FROM runs WHERE id=$rep")" "$orig actions passed" "replay run row"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$rep AND action='tap' AND method='replay' AND score >= 0.9 AND frame_after IS NOT NULL")" "7" "gated taps"
expect_eq "$(display_of "$rep")" "408" "display after the actions replay"
expect_display_gone "$(display_of_run "$db" "$rep")"
expect_contains "$("$EACU" show "$rep" --db "$db")" "replay  of run $orig (actions mode): every step agrees" "show of an identical replay"

# 2. The keypad elsewhere (xcalc at +300+150): targets are re-located, the result is the same,
#    and show/report list where the replay differs.
printf 'XCalc.geometry: +300+150\n' >"$OUT/moved.ad"
XENVIRONMENT="$OUT/moved.ad" "$EACU" replay "$orig" --mode actions --display virtual --db "$db" 2>"$OUT/m.err" || {
  cat "$OUT/m.err" >&2; fail "replay with the keypad moved failed"; }
mrep=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$mrep AND action='tap' AND method='relocate'")" "7" "re-located taps"
expect_eq "$(display_of "$mrep")" "408" "display after the moved replay"
show=$("$EACU" show "$mrep" --db "$db")
expect_contains "$show" "differences from the original" "show names differences"
ac=$(sqlite3 "$db" "SELECT idx FROM steps WHERE run_id=$orig AND target='\"AC\"'")
expect_contains "$show" "≠ input (202,77) -> (502,227)" "show: where the AC tap differs"
"$EACU" report "$mrep" --db "$db" -o "$OUT/moved.html" --quiet
grep -q "replay (actions mode) of run <b>$orig</b>" "$OUT/moved.html" || fail "report does not say what it replays"
grep -q "step $ac</a>: input (202,77) -&gt; (502,227)" "$OUT/moved.html" || fail "report does not list where the replay differs"

# 3. A changed screen: the "3" key relabelled (X resources); the replay stops at the tap on "3"
#    (the first mismatch), exit 1, naming the step, the score and both frames. (--timeout also
#    bounds the wait for xcalc's first window: 1 s was too short on a loaded machine.)
printf 'XCalc*ti.button49.label: Z\n' >"$OUT/changed.ad"
set +e
XENVIRONMENT="$OUT/changed.ad" "$EACU" replay "$orig" --mode actions --display virtual --db "$db" --timeout 5 2>"$OUT/c.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of a mismatching replay"
crep=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
three=$(sqlite3 "$db" "SELECT idx FROM steps WHERE run_id=$orig AND target='\"3\"'")
err=$(cat "$OUT/c.err")
expect_contains "$err" "run $crep failed: replay stopped at step $three (tap \"3\")" "mismatch names the step"
expect_contains "$err" "does not match the recorded frame" "mismatch says why"
expect_contains "$err" "threshold 0.90" "mismatch gives the threshold"
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$crep")" "failed" "mismatching replay status"
expect_eq "$(sqlite3 "$db" "SELECT MAX(idx) FROM steps WHERE run_id=$crep")" "$three" "last replayed step"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$crep AND status='failed' AND idx=$three AND frame_before IS NOT NULL AND score < 0.9")" "1" "failed step row with the live frame"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$crep AND status='ok'")" "$((three - 1))" "steps before the mismatch"
expect_display_gone "$(display_of_run "$db" "$crep")"

# 3b. The replay's inputs go through the same executor as a script's: --max-actions holds.
set +e
"$EACU" replay "$orig" --mode actions --display virtual --db "$db" --max-actions 2 2>"$OUT/l.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of a replay past its action limit"
expect_contains "$(cat "$OUT/l.err")" "limit of 2 actions is reached" "the replay stops at --max-actions"
lrep=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$lrep AND action IN ('tap','double_tap','long_press','input','key','scroll','drag')")" "2" "two inputs replayed, no more"
expect_display_gone "$(display_of_run "$db" "$lrep")"

# 4. Script mode (the default): the recorded script and arguments again, linked to the run.
"$EACU" replay "$orig" --display virtual --db "$db" >"$OUT/s.out" 2>"$OUT/s.err" || {
  cat "$OUT/s.err" >&2; fail "script replay failed"; }
srep=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_contains "$(cat "$OUT/s.out")" "12 × 34 = 408" "script replay output"
expect_eq "$(sqlite3 "$db" "SELECT replay_of || ' ' || replay_mode || ' ' || status FROM runs WHERE id=$srep")" "$orig script passed" "script replay row"
expect_contains "$("$EACU" runs --db "$db" --replays)" "$orig (script)" "eacu runs --replays"
expect_eq "$("$EACU" runs --db "$db" --status failed --since 1h | grep -c "$orig (actions)")" "2" "eacu runs --status failed --since 1h (the mismatch and the action limit)"
echo "replay: 5 passed, 0 failed"
