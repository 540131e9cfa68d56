#!/usr/bin/env bash
# The computer-tool loop (seed 003) end to end: autopilot(task, {protocol = "computer"}) against the
# suite's local model server (tests/model_server/fake_model.py), which answers like a model
# using the tool: a screenshot, then a click on each key of "12*34=" at the declared display's
# pixels. A real xcalc on a private 1600x1000 Xvfb, so the display declared to the tool is the
# scaled 1280x800 and every click is mapped back. Anthropic's computer_20250124 and
# computer_20251124, and the same actions as an OpenAI-compatible function; then the run's
# --max-actions stops the loop.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
key="sk-test-computer-$$"
start_model_server --key "$key" --screen 1600x1000
export EACU_MODEL=fake-claude EACU_MODEL_API_KEY=$key EACU_MODEL_MAX_RETRIES=0 EACU_MODEL_TIMEOUT=20

cat >"$OUT/task.lua" <<'LUA'
local calc = require "calculator"
calc.open()
local r = autopilot("compute 12*34 on the calculator", { protocol = "computer", tool = arg[1], max_steps = 12 })
print(string.format("computer autopilot: %s after %d steps", r.status, r.steps))
verify(function() return calc.read_display() == "408" end, "the display shows 408", 3)
print("display: " .. calc.read_display())
LUA

n=0
for variant in anthropic:computer_20250124 anthropic:computer_20251124 openai:computer_20250124; do
  provider=${variant%%:*}; tool=${variant#*:}
  url=http://127.0.0.1:$port; [ "$provider" = openai ] && url=$url/v1
  out=$(EACU_MODEL_PROVIDER=$provider EACU_MODEL_BASE_URL=$url "$EACU" run "$OUT/task.lua" --display virtual:1600x1000 \
        --db "$db" -- "$tool" 2>"$OUT/$tool.$provider.err") || { cat "$OUT/$tool.$provider.err" >&2; fail "$variant: the run failed"; }
  expect_contains "$out" "computer autopilot: done after 9 steps" "$variant: the loop"
  expect_contains "$out" "display: 408" "$variant: xcalc's display"
  run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
  expect_eq "$(sqlite3 "$db" "SELECT method || ' ' || status FROM steps WHERE run_id=$run AND action='autopilot'")" "computer ok" "$variant: the autopilot step"
  # Seven clicks, each through the one action path, mapped from the 1280x800 display to the screen.
  expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='model' AND status='ok'")" "7" "$variant: taps recorded"
  expect_eq "$(sqlite3 "$db" "SELECT input_x || ',' || input_y FROM steps WHERE run_id=$run AND action='tap' AND method='model' ORDER BY id LIMIT 1")" "203,78" "$variant: AC at (162,62) on the display is (203,78) on the screen"
  n=$((n + 1))
done
python3 - "$OUT/server.jsonl" <<'PY' || fail "the server did not see the computer tool as expected"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
comp = [r for r in rows if r.get("kind") == "computer"]
assert len(comp) == 27, len(comp)  # 3 runs x (screenshot + 7 clicks + the answer)
assert all(r["display"] == [1280, 800] for r in comp), {tuple(r["display"]) for r in comp}
assert not any(r.get("error") for r in rows), [r for r in rows if r.get("error")]
print("server: 27 computer-tool calls, display 1280x800 declared")
PY

# The run's limits hold on this path too: --max-actions 3 stops the loop at its fourth click.
set +e
EACU_MODEL_PROVIDER=anthropic EACU_MODEL_BASE_URL=http://127.0.0.1:$port "$EACU" run "$OUT/task.lua" \
  --display virtual:1600x1000 --db "$db" --max-actions 3 -- computer_20250124 >/dev/null 2>"$OUT/limit.err"
code=$?
set -e
expect_eq "$code" "1" "exit status at --max-actions 3"
expect_contains "$(cat "$OUT/limit.err")" "the run's limit of 3 actions is reached" "the limit's message"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok'")" "3" "taps before the limit"
expect_eq "$(sqlite3 "$db" "SELECT status FROM steps WHERE run_id=$run AND action='autopilot'")" "failed" "the autopilot step at the limit"
expect_display_gone "$(display_of_run "$db" "$run")"

# The click check of seed 001 §4.1 on this path: with EACU_CLICK_CHECK=1 each click first moves
# the pointer (through the action path) and the model checks it on the marked screenshot; on
# target, the click goes where the check saw the pointer.
out=$(EACU_CLICK_CHECK=1 EACU_MODEL_PROVIDER=anthropic EACU_MODEL_BASE_URL=http://127.0.0.1:$port "$EACU" run "$OUT/task.lua" \
      --display virtual:1600x1000 --db "$db" -- computer_20250124 2>"$OUT/check.err") || { cat "$OUT/check.err" >&2; fail "click check: the run failed"; }
expect_contains "$out" "computer autopilot: done after 9 steps" "click check: the loop"
expect_contains "$out" "display: 408" "click check: xcalc's display"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='click_check' AND status='ok' AND json_extract(params, '\$.on_target') = 1")" "7" "click check: one check per click, on target"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='move' AND method='click_check'")" "7" "click check: the pointer moved through the action path"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM model_calls WHERE run_id=$run AND kind='click_check' AND status='ok'")" "7" "click check: the model calls"
expect_eq "$(sqlite3 "$db" "SELECT group_concat(t.input_x || ',' || t.input_y = c.input_x || ',' || c.input_y) FROM steps t JOIN steps c ON c.run_id = t.run_id AND c.action = 'click_check' AND c.id = (SELECT MAX(id) FROM steps WHERE run_id = t.run_id AND action = 'click_check' AND id < t.id) WHERE t.run_id=$run AND t.action='tap'")" "1,1,1,1,1,1,1" "click check: each click where its check saw the pointer"
echo "computer_use: $n protocols, the limit and the click check passed"
