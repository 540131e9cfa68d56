#!/usr/bin/env bash
# The main job end to end: examples/calculator.lua on a real xcalc in a private Xvfb; the run
# log rows; eacu show; a failing run; a run stopped by a signal. Xvfb must be gone each time.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db

# 1. The example passes and prints the result.
out=$("$EACU" run "$root/examples/calculator.lua" --display virtual --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; fail "calculator example exited $rc"; }
expect_contains "$out" "12 × 34 = 408" "printed result"
expect_contains "$(cat "$OUT/stderr")" "passed" "summary line"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "passed" "run status"
expect_eq "$(sqlite3 "$db" "SELECT screen_w || 'x' || screen_h FROM runs WHERE id=$run")" "1280x800" "screen size"
# Seven taps (AC 1 2 × 3 4 =), each found by image (a locator stage) with its raw score, box, input point and
# both frames, in order.
expect_eq "$(sqlite3 "$db" "SELECT group_concat(target, ' ') FROM (SELECT target FROM steps WHERE run_id=$run AND action='tap' ORDER BY idx)")" \
  '"AC" "1" "2" "×" "3" "4" "="' "tapped targets"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method IN ('last_seen','expected_scale','multi_scale') AND score >= threshold AND threshold = 0.9 AND box_w = 32 AND input_x IS NOT NULL AND frame_before IS NOT NULL AND frame_after IS NOT NULL AND status='ok' AND change_ratio > 0")" \
  "7" "complete tap rows"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM frames f JOIN steps s ON s.frame_after = f.id WHERE s.run_id=$run AND s.action='tap' AND length(f.png) > 1000 AND f.width = 1280")" \
  "7" "after-frames stored as PNG"
# The input point of "=" lies inside its box.
expect_eq "$(sqlite3 "$db" "SELECT input_x >= box_x AND input_x < box_x + box_w AND input_y >= box_y AND input_y < box_y + box_h FROM steps WHERE run_id=$run AND target='\"=\"'")" "1" "input point inside the box"
expect_display_gone "$(display_of_run "$db" "$run")"

# 2. eacu show lists every tap with its score; eacu runs lists the run.
show=$("$EACU" show "$run" --db "$db")
echo "$show"
expect_eq "$(echo "$show" | grep -cE '^ +[0-9]+ +tap +.* (last_seen|expected_scale|multi_scale) +1\.000 +0\.90 ')" "7" "taps in eacu show"
expect_contains "$("$EACU" runs --db "$db")" "examples/calculator.lua" "eacu runs"
expect_contains "$("$EACU" runs --db "$db" --status passed)" "passed" "eacu runs --status"

# 3. A failing run: exit 1, one line naming the run, the target, the best score; Xvfb stopped.
cat > "$OUT/missing.lua" <<'LUA'
launch "xcalc"
wait("calculator.btn_clear", 10)
tap({ image = "calculator.display_5", region = { 0, 0, 226, 60 } }, { timeout = 0.5 })
LUA
set +e
"$EACU" run "$OUT/missing.lua" --display virtual --db "$db" 2>"$OUT/fail.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of a failing run"
err=$(cat "$OUT/fail.err")
expect_eq "$(echo "$err" | wc -l)" "1" "one-line reason"
frun=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_contains "$err" "run $frun failed" "reason names the run"
expect_contains "$err" 'tap "calculator.display_5": not found' "reason names the target"
expect_contains "$err" "best score" "reason gives the best score"
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$frun")" "failed" "failed run status"
fframe=$(sqlite3 "$db" "SELECT frame_before FROM steps WHERE run_id=$frun AND status='failed'")
expect_contains "$err" "frame $fframe of run $frun" "reason names the frame"
expect_display_gone "$(display_of_run "$db" "$frun")"

# 4. A run stopped by SIGTERM while it waits: recorded as interrupted, Xvfb and xcalc stopped.
cat > "$OUT/long.lua" <<'LUA'
launch "xcalc"
wait("calculator.btn_clear", 10)
print("ready")
io.stdout:flush()
wait({ image = "calculator.display_5", region = { 0, 0, 226, 60 } }, 600)
LUA
"$EACU" run "$OUT/long.lua" --display virtual --db "$db" >"$OUT/long.out" 2>"$OUT/long.err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT  # this test's own run, should a check fail below
for i in $(seq 200); do grep -q ready "$OUT/long.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$OUT/long.out" || fail "long run did not get ready"
lrun=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
# This run's xcalc: the pid its launch step recorded, a child of this run's eacu.
xcalc_pid=$(sqlite3 "$db" "SELECT json_extract(params, '\$.pid') FROM steps WHERE run_id=$lrun AND action='launch'")
[ -n "$xcalc_pid" ] || fail "the launch step of run $lrun recorded no pid"
xcalc_start=$(start_time_of "$xcalc_pid") || fail "the launched xcalc (pid $xcalc_pid) is not running"
expect_eq "$(parent_of "$xcalc_pid")" "$pid" "parent of the launched xcalc (this run's eacu)"
expect_eq "$(cat "/proc/$xcalc_pid/comm")" "xcalc" "the launched program"
kill -TERM $pid
set +e
wait $pid
code=$?
set -e
trap - EXIT
expect_eq "$code" "143" "exit status after SIGTERM (128 + 15)"
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$lrun")" "interrupted" "interrupted run status"
expect_display_gone "$(display_of_run "$db" "$lrun")"
expect_process_gone "$xcalc_pid" "$xcalc_start" "the run's xcalc"
# 5. The run's action limit (--max-actions) stops a run that goes on tapping.
printf 'for i = 1, 5 do tap { x = 10, y = 10 } end\n' > "$OUT/limit.lua"
set +e
"$EACU" run "$OUT/limit.lua" --display "image:$here/../fixtures/xcalc.png" --db "$db" --max-actions 3 2>"$OUT/limit.err"
code=$?
set -e
expect_eq "$code" "1" "exit status at the action limit"
expect_contains "$(cat "$OUT/limit.err")" "limit of 3 actions is reached" "the limit is named"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=(SELECT MAX(id) FROM runs) AND action='tap' AND status='ok'")" "3" "three taps before the limit"
echo "calculator: 5 passed, 0 failed"
