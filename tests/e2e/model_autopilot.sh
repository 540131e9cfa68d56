#!/usr/bin/env bash
# Model-driven steps end to end: a real local model server (tests/model_server/fake_model.py on
# 127.0.0.1, OpenAI API shape) that reads each request (the Set-of-Marks list, the history, the
# planner prompt) and answers like a model; the real xcalc under a private Xvfb.
# 1. autopilot("compute 12*34 ...") → 408; tap{dynamic=...} grounding; plan(...) with a replan → 63.
#    model_calls rows recorded, the API key nowhere in the run log. 1b: eacu run --task with a
#    sentence no template matches goes to the autopilot.
# 2. The same script with --model-cache replay and the server stopped: same results, every
#    answer from the cache, no network.
# 3. Replay with a different task (no recorded answer) and no server: a clear error.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
key=sk-e2e-SECRET-0123456789

MODEL_KEY=$key use_model_server --key "$key"

cat > "$OUT/task.lua" <<'LUA'
local calc = require "calculator"
calc.open()
local r = autopilot("compute 12*34 on the calculator", { max_steps = 12 })
print(string.format("autopilot: %s after %d steps (%d cached)", r.status, r.steps, r.cached))
for _, line in ipairs(r.history) do print(line) end
verify(function() return calc.read_display() == "408" end, "the display shows 408", 3)
print("display after autopilot: " .. calc.read_display())
local m = tap { dynamic = 'the "AC" key' }
tap { dynamic = "the seven key (box)" }
verify(function() return calc.read_display() == "7" end, "the display shows 7", 3)
print(string.format("grounded: %s at (%d,%d) by %s", "AC", m.cx, m.cy, m.method))
local p = plan("compute 56+7 on the calculator, with a replan")
print(string.format("plan: ok=%s steps=%d replans=%d", tostring(p.ok), p.steps, p.replans))
verify(function() return calc.read_display() == "63" end, "the display shows 63", 3)
print("display after plan: " .. calc.read_display())
LUA

# 1. Live, recorded.
t0=$(date +%s.%N)
out=$("$EACU" run "$OUT/task.lua" --display virtual --db "$db" 2>"$OUT/run1.err") || { rc=$?;
  cat "$OUT/run1.err" >&2; echo "$out" >&2; fail "the live run exited $rc"; }
echo "$out"
expect_contains "$out" "autopilot: done after 8 steps (0 cached)" "autopilot summary"
expect_contains "$out" 'Step 1: 点击了 [' "history line in seed 000's form"
expect_contains "$out" '"AC" → 界面' "history names the element"
expect_contains "$out" "display after autopilot: 408" "autopilot result"
expect_contains "$out" "by model-element" "grounding by element id"
expect_contains "$out" "plan: ok=true steps=6 replans=1" "plan with one replan"
expect_contains "$out" "display after plan: 63" "plan result"
run1=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run1")" "passed" "run 1 status"
q() { sqlite3 "$db" "$1"; }
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1 AND kind='autopilot' AND status='ok'")" "8" "autopilot calls"
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1 AND kind='plan' AND status='ok'")" "2" "plan calls (plan + replan)"
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1 AND cache_key IS NULL")" "0" "every call keyed (record mode)"
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1 AND provider='openai' AND model='fake-qwen-vl' AND http_status=200 AND input_tokens > 0 AND latency_ms > 0 AND length(fingerprint) = 516 AND frame_ids_json LIKE '[%]' AND frame_ids_json != '[]'")" \
  "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1")" "complete model_calls rows"
# Images are referenced by frame id; the frames exist.
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1 AND request_json LIKE '%\"url\":\"frame:%' AND request_json NOT LIKE '%base64,%' AND request_json NOT LIKE '%iVBOR%'")" \
  "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1")" "images redacted to frame ids"
fid=$(q "SELECT json_extract(frame_ids_json, '\$[0]') FROM model_calls WHERE run_id=$run1 AND kind='autopilot' AND seq=1")
expect_eq "$(q "SELECT COUNT(*) FROM frames WHERE id=$fid AND run_id=$run1")" "1" "the frame a call showed is in the run log"
# The key was sent (the server checked it) but is nowhere in the run log.
expect_eq "$(python3 -c "import json,sys; print(all(json.loads(l)['auth_ok'] for l in open(sys.argv[1])))" "$OUT/server.jsonl")" "True" "the server got the key"
if grep -a -q "$key" "$db" "$db-wal" 2>/dev/null; then fail "the API key is in the run log"; fi
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE request_json LIKE '%Authorization%' OR request_json LIKE '%$key%'")" "0" "no auth header in requests"
# Autopilot steps: taps with method model, element boxes, before/after frames; the summary step.
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run1 AND action='tap' AND method='model' AND box_w > 0 AND input_x >= box_x AND input_x < box_x + box_w AND frame_before IS NOT NULL AND frame_after IS NOT NULL AND json_extract(params, '\$.model_call') > 0")" \
  "10" "model taps (7 autopilot + 2 grounding + 1 in the plan)"
expect_eq "$(q "SELECT status || ' ' || json_extract(params, '\$.status') || ' ' || json_array_length(json_extract(params, '\$.history')) FROM steps WHERE run_id=$run1 AND action='autopilot'")" "ok done 8" "autopilot summary step"
expect_eq "$(q "SELECT status || ' ' || json_extract(params, '\$.replans') FROM steps WHERE run_id=$run1 AND action='plan'")" "ok 1" "plan summary step"
"$EACU" show "$run1" --db "$db" >"$OUT/show1.txt"
expect_contains "$(cat "$OUT/show1.txt")" "autopilot" "eacu show lists the autopilot step"
calls1=$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run1")
echo "run 1: $calls1 model calls, $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"

# 1b. eacu run --task: a sentence no app template matches is handed to the autopilot (here on a
#    screenshot of xcalc: the autopilot's taps land, the screen cannot change); with no model it is
#    one line naming what to set, with no traceback.
shot="image:$root/tests/fixtures/xcalc.png"
set +e
"$EACU" run --task "work out 7*9 for me" --display "$shot" --db "$db" >"$OUT/task1b.out" 2>"$OUT/task1b.err"
code=$?
set -e
expect_eq "$code" "0" "exit status of a task handed to the autopilot"
expect_contains "$(cat "$OUT/task1b.out")" "no app module has a template for it" "the route says why"
expect_contains "$(cat "$OUT/task1b.out")" "the autopilot does it" "the autopilot takes the task"
run5=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
taps=$(sqlite3 "$db" "SELECT group_concat(target, ', ') FROM steps WHERE run_id=$run5 AND action='tap'")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run5 AND action='autopilot'")" "1" "one autopilot step"
expect_contains "$taps" 'asset "7", ' "the autopilot's taps"
expect_contains "$taps" 'asset "9", ' "the autopilot's taps"
expect_contains "$taps" 'asset "="' "the autopilot's taps"
# The pointer is marked on each screenshot and given as a field: each call after a tap names
# where that tap left it (the 1280x800 shot is sent unscaled, so pixels are the same).
python3 - "$db" "$run5" <<'PY' || fail "the pointer given to the model is not where the last tap left it"
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); run = int(sys.argv[2])
taps = list(db.execute("SELECT input_x, input_y FROM steps WHERE run_id=? AND action='tap' ORDER BY id", (run,)))
calls = [rq for (rq,) in db.execute("SELECT request_json FROM model_calls WHERE run_id=? ORDER BY seq", (run,))]
pointers = [tuple(map(int, re.findall(r"Mouse pointer \(marked 鼠标指针 on the screenshot\): x=(\d+), y=(\d+)", rq)[-1])) for rq in calls]
assert len(calls) == len(taps) + 1, (len(calls), len(taps))
assert pointers[1:] == taps, (pointers, taps)
print("pointer fields follow the taps:", pointers)
PY
set +e
env -u EACU_MODEL_PROVIDER "$EACU" run --task "work out 7*9 for me" --display "$shot" --db "$db" 2>"$OUT/task1c.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of an unmatched task with no model"
expect_contains "$(cat "$OUT/task1c.err")" "no model is configured to hand it to (set EACU_MODEL_PROVIDER" "the error says what to set"
grep -q "traceback" "$OUT/task1c.err" && fail "an unmatched task printed a traceback: $(cat "$OUT/task1c.err")"

# 2. Replay from the cache with the server stopped.
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
t0=$(date +%s.%N)
out=$("$EACU" run "$OUT/task.lua" --display virtual --db "$db" --model-cache replay 2>"$OUT/run2.err") || { rc=$?;
  cat "$OUT/run2.err" >&2; echo "$out" >&2; fail "the replayed run exited $rc"; }
expect_contains "$out" "autopilot: done after 8 steps (8 cached)" "autopilot replayed from the cache"
expect_contains "$out" "display after autopilot: 408" "replayed autopilot result"
expect_contains "$out" "display after plan: 63" "replayed plan result"
run2=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run2 AND status='cached'")" "$calls1" "every call answered from the cache"
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run2 AND status!='cached'")" "0" "no live call"
echo "run 2 (replay): $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"

# 2b. eacu replay of the recorded run (script mode) serves the model answers from its calls.
"$EACU" replay "$run1" --display virtual --db "$db" >"$OUT/replay.out" 2>"$OUT/replay.err" || { rc=$?;
  cat "$OUT/replay.err" >&2; fail "eacu replay of the autopilot run exited $rc"; }
expect_contains "$(cat "$OUT/replay.out")" "display after autopilot: 408" "eacu replay: autopilot result"
run2b=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT replay_of FROM runs WHERE id=$run2b")" "$run1" "the replay is linked to its run"
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run2b AND status!='cached'")" "0" "eacu replay made no live call"

# 2c. Every input goes through one executor: the autopilot and dynamic targets stop at the run's
#     action limit (answers replayed from the cache; no server).
set +e
"$EACU" run "$OUT/task.lua" --display virtual --db "$db" --model-cache replay --max-actions 3 >/dev/null 2>"$OUT/run2c.err"
code=$?
set -e
expect_eq "$code" "1" "exit status at the action limit (autopilot)"
expect_contains "$(cat "$OUT/run2c.err")" "limit of 3 actions is reached" "the autopilot stops at --max-actions"
run2c=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run2c AND action IN ('tap','double_tap','long_press','input','key','scroll','drag')")" "3" "three inputs, no more (autopilot)"
expect_eq "$(q "SELECT json_extract(params, '\$.status') FROM steps WHERE run_id=$run2c AND action='autopilot'")" "limit" "the autopilot's summary step says why it stopped"
cat > "$OUT/dynamic_limit.lua" <<'LUA'
local calc = require "calculator"
calc.open()
tap "AC"
tap { dynamic = 'the "AC" key' }
LUA
set +e
"$EACU" run "$OUT/dynamic_limit.lua" --display virtual --db "$db" --model-cache replay --max-actions 1 >/dev/null 2>"$OUT/run2d.err"
code=$?
set -e
expect_eq "$code" "1" "exit status at the action limit (dynamic target)"
expect_contains "$(cat "$OUT/run2d.err")" 'tap {dynamic="the \"AC\" key"}: the run'"'"'s limit of 1 actions is reached' "a dynamic tap stops at --max-actions"
run2d=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT COUNT(*) FROM model_calls WHERE run_id=$run2d")" "0" "no model call for an action past the limit"

# 3. Replay of a task never recorded, with no server: fails clearly, naming the call.
cat > "$OUT/other.lua" <<'LUA'
-- agent(), the former name of autopilot(), still runs the autopilot.
local calc = require "calculator"
calc.open()
agent("compute 99-1 on the calculator", { max_steps = 3 })
LUA
set +e
env -u EACU_MODEL_PROVIDER "$EACU" run "$OUT/other.lua" --display virtual --db "$db" --model-cache replay 2>"$OUT/run3.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of a replay miss"
err=$(cat "$OUT/run3.err")
expect_contains "$err" "model cache replay: autopilot call #1" "the error names the call"
expect_contains "$err" "no recorded answer" "and why"
expect_display_gone "$(display_of_run "$db" "$(sqlite3 "$db" "SELECT MAX(id) FROM runs")")"

# 4. An assertion is never answered from the cache: verify{dynamic=} in replay with no model fails.
cat > "$OUT/assert.lua" <<'LUA'
local calc = require "calculator"
calc.open()
verify { dynamic = "the equals key" }
LUA
set +e
env -u EACU_MODEL_PROVIDER "$EACU" run "$OUT/assert.lua" --display virtual --db "$db" --model-cache replay 2>"$OUT/run4.err"
code=$?
set -e
expect_eq "$code" "1" "exit status of an assertion with no model"
expect_contains "$(cat "$OUT/run4.err")" "no model is configured" "an assertion needs a live model"

echo "model_autopilot: ok"
