#!/usr/bin/env bash
# The chat page in real Chromium (serve_page.py) with its tasks on a remote worker (issue 26):
# eacu serve --queue on a redis-server of the test's own, one `eacu worker` (2 slots, xcalc)
# as the other machine. The page shows the remote worker's live screen and its step screenshots
# (served from Redis by reference): xcalc reads 408 on the last one; the ack button and the stop
# button reach the remote run through Redis; the stopped task's Xvfb is gone.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
use_model_server
rport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$OUT/redis"
redis-server --port "$rport" --bind 127.0.0.1 --dir "$OUT/redis" --appendonly yes --save "" \
  --logfile "$OUT/redis/redis.log" &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p "$rport" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
redis-cli -p "$rport" ping | grep -q PONG || fail "redis-server did not answer on port $rport"
db=$OUT/serve.db
start_serve --queue "redis://127.0.0.1:$rport" --db "$db"
"$EACU" worker --queue "redis://127.0.0.1:$rport" --name page-worker --slots 2 --launch xcalc \
  --db "$OUT/worker.db" >"$OUT/worker.log" 2>&1 &
worker_pid=$!
trap 'kill "$worker_pid" "$serve_pid" 2>/dev/null; wait "$worker_pid" 2>/dev/null; kill "$redis_pid" "${server_pid:-}" 2>/dev/null || true' EXIT
await_printed "$OUT/worker.log" "$worker_pid" 's/.*\(slots\).*/\1/p' "eacu worker" >/dev/null || exit 1

# The first paint is checked against serve_page.py's bound (5 s), as in serve_page.sh.
python3 "$here/serve_page.py" "$url" --out "$OUT/page" --stop --login-task "work out 12*34 after login" \
  | tee "$OUT/page.out"
shot=$(sed -n 's/^last_screenshot //p' "$OUT/page.out")
[ -f "$shot" ] || fail "serve_page.py printed no last_screenshot"
out=$("$EACU" run "$here/read_display.lua" --display "image:$shot" --db "$OUT/read.db" 2>&1)
expect_contains "$out" "display=408" "xcalc's display on the last progress screenshot (from Redis)"

task=$(sed -n 's/^stopped_task //p' "$OUT/page.out")
[ -n "$task" ] || fail "serve_page.py printed no stopped_task"
status=$(sqlite3 "$db" "SELECT status FROM tasks WHERE id=$task")
expect_eq "$status" "stopped" "the stopped remote task's status"
run=$(sqlite3 "$db" "SELECT run_id FROM tasks WHERE id=$task")
[ -n "$run" ] || fail "the stopped task's run was not copied into the server's run log"
expect_display_gone "$(display_of_run "$db" "$run")"
echo "redis_page: passed"
