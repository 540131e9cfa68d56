#!/usr/bin/env bash
# Taking over from the page (issue 29): a real eacu serve (--token, --allow-scripts, xcalc from
# --launch on each task's private Xvfb), its page in headless Chromium driven through CDP
# (serve_takeover.py), a real zenity dialog filled through the page's live screen (Chinese
# text included), the take-over / hand-back buttons, refusals (409 for a task that does not
# wait, 403 without the token), the token out of the page's address and requests, a
# computer-tool autopilot (the local Messages API stand-in) handing over to the person, and the
# run log's steps with actor = "user". Prints the click-latency benchmark.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
command -v zenity >/dev/null || fail "zenity is not installed (make deps installs it)"
command -v xdotool >/dev/null || fail "xdotool is not installed (make deps installs it)"
key="sk-test-takeover-$$"
start_model_server --key "$key"
export EACU_MODEL_PROVIDER=anthropic EACU_MODEL=fake-claude EACU_MODEL_BASE_URL=http://127.0.0.1:$port
export EACU_MODEL_API_KEY=$key EACU_MODEL_MAX_RETRIES=0 EACU_MODEL_TIMEOUT=20
db=$OUT/serve.db
token="tk-$$-$RANDOM"
start_serve --workers 1 --token "$token" --allow-scripts --launch xcalc --db "$db"

python3 "$here/serve_takeover.py" "$url" --token "$token" --form "$OUT/form.txt" --db "$db" --out "$OUT/page" \
  --bench "${BENCH_CLICKS:-12}" | tee "$OUT/page.out"
grep -q '^serve_takeover: passed' "$OUT/page.out" || fail "serve_takeover.py did not pass"

# The run log: the person's steps (click, text, key) with actor "user" and frames before and
# after; the script's own steps stay "script", the autopilot's clicks "model".
form=$(sed -n 's/^form_task //p' "$OUT/page.out")
run=$(sqlite3 "$db" "SELECT run_id FROM tasks WHERE id=$form")
users=$(sqlite3 "$db" "SELECT group_concat(action, ' ') FROM (SELECT action FROM steps WHERE run_id=$run AND actor='user' ORDER BY id)")
expect_contains "$users" "tap input tap double_tap input key" "the person's steps in the form task's run"
# The page's double click: the click of its first press, then one double click that names it.
expect_eq "$(sqlite3 "$db" "SELECT json_extract(d.params, '\$.after_click') = c.idx AND json_extract(d.params, '\$.count') = 2
  FROM steps d JOIN steps c ON c.run_id = d.run_id AND c.idx = d.idx - 1
  WHERE d.run_id=$run AND d.actor='user' AND d.action='double_tap' AND c.action='tap'")" "1" \
  "the double click's step (count 2, after_click = the click before it)"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND actor='user' AND (frame_before IS NULL OR frame_after IS NULL)")" "0" \
  "the person's steps without a frame before or after"
expect_eq "$(sqlite3 "$db" "SELECT group_concat(json_extract(params, '\$.event'), ' ') FROM steps WHERE run_id=$run AND actor='user' AND action='input'")" "text text" \
  "the typed texts' steps"
expect_eq "$(sqlite3 "$db" "SELECT actor FROM steps WHERE run_id=$run AND action='ask_user'")" "script" "the script's own step"
# eacu script on that run: the person's steps (named so from the steps.actor column), the
# page's click + double click written as one double_tap.
"$EACU" script "$run" -o "$OUT/form.lua" --db "$db" >"$OUT/script.out" 2>&1 || fail "eacu script: $(cat "$OUT/script.out")"
cat "$OUT/form.lua"
expect_eq "$(grep -c "^double_tap(.*the person's step" "$OUT/form.lua")" "1" "the double click in the written script"
expect_eq "$(grep -c "^tap(.*the person's step" "$OUT/form.lua")" "1" "single clicks in the written script (only the first)"
expect_eq "$(grep -c '^input "Wang 张三"' "$OUT/form.lua") $(grep -c '^input "Zhang"' "$OUT/form.lua") $(grep -c '^key "Return"' "$OUT/form.lua")" \
  "1 1 1" "the person's texts and key in the written script"
autopilot=$(sed -n 's/^agent_task //p' "$OUT/page.out")
run=$(sqlite3 "$db" "SELECT run_id FROM tasks WHERE id=$autopilot")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND actor='model' AND action='tap'")" "7" "the autopilot's clicks (actor model)"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND actor='user'")" -ge 1 ] || fail "no step of the person in the autopilot task's run"
expect_eq "$(sqlite3 "$db" "SELECT status FROM tasks WHERE id=$autopilot")" "completed" "the autopilot task"

kill -TERM "$serve_pid"
wait "$serve_pid" || fail "eacu serve exited $? on SIGTERM"
echo "serve_takeover: passed"
