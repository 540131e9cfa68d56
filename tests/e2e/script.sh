#!/usr/bin/env bash
# eacu script (issue 29 item 6): the autopilot's run on a real xcalc, driven by the suite's local
# model server (tests/model_server/fake_model.py, answering like a model from the Set-of-Marks
# list it is sent), written as a script; the script repeats the task on a fresh display with
# the server stopped and no model configured.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
use_model_server

cat >"$OUT/task.lua" <<'LUA'
local calc = require "calculator"
calc.open()
local r = autopilot("compute 12*34 on the calculator", { max_steps = 12 })
print(string.format("autopilot: %s after %d steps", r.status, r.steps))
verify(function() return calc.read_display() == "408" end, "the display shows 408", 3)
LUA
out=$("$EACU" run "$OUT/task.lua" --display virtual --db "$db" 2>&1) || fail "the autopilot run failed: $out"
expect_contains "$out" "autopilot: done" "the autopilot finished"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
taps=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='model' AND status='ok'")

out=$("$EACU" script "$run" -o "$OUT/autopilot.lua" --db "$db" 2>&1) || fail "eacu script failed: $out"
echo "$out"; cat "$OUT/autopilot.lua"
expect_contains "$(cat "$OUT/autopilot.lua")" 'launch "xcalc"' "the launch of calc.open()"
expect_eq "$(grep -c "^tap(.*the model's step" "$OUT/autopilot.lua")" "$taps" "one tap per model tap"
# Who acted comes from the steps.actor column (schema 6), not from the method: a copy of the
# log with the first model tap's actor set to 'user' names it the person's step.
cp "$db" "$OUT/actor.db"
sqlite3 "$OUT/actor.db" "UPDATE steps SET actor='user' WHERE id=(SELECT MIN(id) FROM steps WHERE run_id=$run AND action='tap' AND method='model')"
"$EACU" script "$run" -o "$OUT/actor.lua" --db "$OUT/actor.db" >/dev/null 2>&1 || fail "eacu script on the copy failed"
expect_eq "$(grep -c "^tap(.*the person's step" "$OUT/actor.lua")" "1" "the step whose actor is user"
expect_eq "$(grep -c "^tap(.*the model's step" "$OUT/actor.lua")" "$((taps - 1))" "the other model taps"
if grep -n 'autopilot\s*(\|agent\s*(\|dynamic\|sleep' "$OUT/autopilot.lua"; then fail "the script still asks a model or sleeps"; fi
if grep -n '{ x = ' "$OUT/autopilot.lua" | grep -v 'no target could be proven'; then fail "coordinates without saying why"; fi

# No model: the server stopped, the provider unset.
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
unset EACU_MODEL_PROVIDER EACU_MODEL EACU_MODEL_BASE_URL EACU_MODEL_API_KEY
cp "$OUT/autopilot.lua" "$OUT/autopilot_check.lua"
cat >>"$OUT/autopilot_check.lua" <<'LUA'
local calc = require "calculator"
verify(function() return calc.read_display() == "408" end, "the display shows 408", 5)
print("scripted display: " .. calc.read_display())
LUA
out=$("$EACU" run "$OUT/autopilot_check.lua" --display virtual --db "$db" 2>&1) || fail "the written script failed: $out"
expect_contains "$out" "scripted display: 408" "the script repeats the autopilot's task with no model"
run2=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM model_calls WHERE run_id=$run2")" "0" "no model call"
echo "PASS script"
