#!/usr/bin/env bash
# Batched steps (issue 14 part 4) on a real xcalc in a private Xvfb: batch{} taps and types
# on one frame with one settle, a missing target sends nothing, the action limit stops a batch
# at the action it names, bad batches are refused; the run log's rows; eacu bench batch ends on
# the same display both ways and prints both times.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }

out=$("$EACU" run "$here/batch.lua" --display virtual --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run batch.lua exited $rc"; }
echo "$out"
expect_contains "$out" "display after the batch: 7448" "98 × 76 by one batch"
expect_contains "$out" "display after typing in a batch: 36" "typed and tapped in one batch"
expect_contains "$out" "missing: code not_found: tap \"browser.pydoc_quick_search\": not found on one frame with the other targets of the batch (action 3 of 3; nothing was sent)" "the missing target's message"
expect_contains "$out" "limit: code limit: batch action 3 of 4 (tap \"1\")" "the limit's message"
expect_contains "$out" "display after the limit: 42" "the keys before the limit were sent"
expect_contains "$out" 'unknown field "bogus"' "an unknown field"
expect_contains "$out" "got both tap and input" "two verbs in one action"
expect_contains "$out" 'batch action 2 of 2 (key "ctrl+no_such_key"): unknown key "no_such_key"' "an unknown key, checked first"
expect_contains "$out" "a window-bound target" "a window-bound target refused"
expect_contains "$out" "timeout must be a number of seconds >= 0" "a negative timeout"
expect_contains "$out" "expected at least one action, got none" "an empty batch"
expect_contains "$out" "batch: done" "the script's end"

run=$(q "SELECT MAX(id) FROM runs")
# The first batch: six tap steps on one frame; only the last waited for the effect and has an after-frame.
first=$(q "SELECT MIN(idx) FROM steps WHERE run_id=$run AND params LIKE '%\"batch\":{\"index\":1,\"of\":6}%'")
expect_eq "$(q "SELECT group_concat(target, ' ') FROM (SELECT target FROM steps WHERE run_id=$run AND idx BETWEEN $first AND $first + 5 ORDER BY idx)")" \
  '"9" "8" "×" "7" "6" "="' "the batch's steps in order"
expect_eq "$(q "SELECT COUNT(DISTINCT frame_before) FROM steps WHERE run_id=$run AND idx BETWEEN $first AND $first + 5 AND frame_before IS NOT NULL")" "1" "one frame for the whole batch"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND idx BETWEEN $first AND $first + 4 AND frame_after IS NULL AND status='ok' AND json_extract(params, '$.effect')='not awaited' AND score >= threshold")" "5" "inner actions: no effect wait"
expect_eq "$(q "SELECT json_extract(params, '$.effect') || ' ' || (frame_after IS NOT NULL) FROM steps WHERE run_id=$run AND idx = $first + 5")" "changed 1" "the last action settled"
# The missing target: one failed step, no tap of the batch sent.
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND status='failed' AND target='\"browser.pydoc_quick_search\"' AND error LIKE '%nothing was sent%'")" "1" "the failed step"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND params LIKE '%\"of\":3}%' AND status='ok'")" "0" "no action of the failed batch sent"
expect_display_gone "$(display_of_run "$db" "$run")"

# eacu bench batch: the same 12 keys both ways end on the same display; times printed.
bench=$("$EACU" bench batch --n 2 2>"$OUT/bench.err") || { rc=$?; cat "$OUT/bench.err" >&2; echo "$bench" >&2; fail "eacu bench batch exited $rc"; }
echo "$bench"
expect_contains "$bench" "ending on the same display: 2 of 2 rounds" "bench batch: same display"
expect_contains "$bench" "speed-up:" "bench batch: the speed-up"
echo "batch: 21 passed, 0 failed"
