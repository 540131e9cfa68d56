#!/usr/bin/env bash
# The chat page of eacu serve in headless Chromium (serve_page.py over tests/e2e/cdp.py), against
# a real eacu serve (two workers, a private Xvfb per task with xcalc from --launch) and the
# suite's local model server: a task typed and sent on the page shows the screen at once, at least
# 3 progress items and its answer, and xcalc reads 408 on the last screenshot; a needs_user task
# shows the ack button, whose click resumes it to its answer; the stop button stops a task and its
# Xvfb is gone; the first paint is under 1 s.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
use_model_server
db=$OUT/serve.db
start_serve --workers 2 --launch xcalc --db "$db"

python3 "$here/serve_page.py" "$url" --out "$OUT/page" --stop --login-task "work out 12*34 after login" \
  | tee "$OUT/page.out"
shot=$(sed -n 's/^last_screenshot //p' "$OUT/page.out")
[ -f "$shot" ] || fail "serve_page.py printed no last_screenshot"
out=$("$EACU" run "$here/read_display.lua" --display "image:$shot" --db "$OUT/read.db" 2>&1)
expect_contains "$out" "display=408" "xcalc's display on the last progress screenshot"

# The stopped task's run names its display; that Xvfb is gone.
task=$(sed -n 's/^stopped_task //p' "$OUT/page.out")
[ -n "$task" ] || fail "serve_page.py printed no stopped_task"
run=$(sqlite3 "$db" "SELECT run_id FROM tasks WHERE id=$task")
status=$(sqlite3 "$db" "SELECT status FROM tasks WHERE id=$task")
expect_eq "$status" "stopped" "the stopped task's status"
[ -n "$run" ] && expect_display_gone "$(display_of_run "$db" "$run")"

kill -TERM "$serve_pid"
wait "$serve_pid" || fail "eacu serve exited $? on SIGTERM"
echo "serve_page: passed"
