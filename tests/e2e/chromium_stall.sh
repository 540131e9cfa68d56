#!/usr/bin/env bash
# Issue 36 item 1 on the chromium device: every wait for the page ends at the step's deadline.
# One Chromium started here, each run a page of it (cdp:): a page whose script spins
# (`while (true) {}`) fails its step with a `device` error naming the device, the operation
# and how long it waited, within the step's timeout + 1 s, and the same page answers the next
# step; a renderer killed during a 30 s wait fails that step at once ("its page crashed");
# after each, the next run on the same Chromium gets a working page. The run log says so.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"

cat >"$OUT/spin.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="font: 32px sans-serif; margin: 60px">
<p>Spinning soon</p>
<script>addEventListener("load", () => setTimeout(() => { while (true) {} }, 1500));</script></body>
HTML
cat >"$OUT/ready.html" <<'HTML'
<!doctype html><meta charset="utf-8"><body style="font: 32px sans-serif; margin: 60px"><p>Ready here</p></body>
HTML

profile=$OUT/tmp/profile
chromium --headless=new --no-sandbox --remote-debugging-port=0 --user-data-dir="$profile" --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync about:blank >"$OUT/chromium.log" 2>&1 &
chromium_pid=$!
trap 'kill "$chromium_pid" 2>/dev/null || true' EXIT
port=
for _ in $(seq 300); do
  port=$(head -1 "$profile/DevToolsActivePort" 2>/dev/null || true)
  [ -n "$port" ] && break
  kill -0 "$chromium_pid" 2>/dev/null || { cat "$OUT/chromium.log" >&2; fail "chromium exited"; }
  sleep 0.1
done
[ -n "$port" ] || fail "chromium wrote no DevToolsActivePort within 30 s"
dev=cdp:http://127.0.0.1:$port

ready_run() {  # $1: what came before
  out=$(timeout 60 "$EACU" run "$here/chromium_stall.lua" --device "$dev" --db "$db" -- ready "file://$OUT/ready.html" 2>"$OUT/ready.err") || {
    cat "$OUT/ready.err" >&2; fail "the run after $1 failed"; }
  expect_contains "$out" "ready" "the run after $1"
}

# 1. The spinning page: the step fails at its deadline, the page answers again afterwards.
out=$(timeout 60 "$EACU" run "$here/chromium_stall.lua" --device "$dev" --db "$db" -- spin \
  "file://$OUT/spin.html" "file://$OUT/ready.html" 2>"$OUT/spin.err") || { cat "$OUT/spin.err" >&2; fail "the spin run"; }
echo "$out"
expect_contains "$out" "stalled step: false code device" "the stalled step's code"
expect_contains "$out" "chromium at http://127.0.0.1:$port: Page.captureScreenshot" "the error names the device"
expect_contains "$out" "Page.captureScreenshot: no answer within" "the error names the operation and the time waited"
# The bound named is the one that ended the wait: the step's 4 s, or the part of it left to an
# inner find when that ends first (nested bounds take the earlier end; a slow machine reaches it).
grep -qE "the step's deadline, [0-9.]+ s \+ 1 s\)" <<<"$out" || fail "the error names the bound: expected \"the step's deadline, N s + 1 s)\", got: $out"
expect_contains "$out" "after the stall: ready" "the same page after the stall"
run=$(q "SELECT MAX(id) FROM runs")
row=$(q "SELECT status || '|' || printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=$run AND action='step'")
echo "spin step: $row"
expect_eq "${row%%|*}" "failed" "the stalled step's row"
expect_contains "$row" "Page.captureScreenshot: no answer within" "the run log's error"
secs=$(echo "$row" | cut -d'|' -f2)
python3 -c "import sys; sys.exit(0 if float('$secs') <= 5 + $(scaled 0.6) else 1)" || fail "the stalled step took $secs s (timeout 4 s + 1 s)"
ready_run "the spinning page"

# 2. A renderer killed during a step's 30 s wait: the step fails at once with the page crashed.
timeout 60 "$EACU" run "$here/chromium_stall.lua" --device "$dev" --db "$db" -- crash "file://$OUT/ready.html" \
  >"$OUT/crash.out" 2>"$OUT/crash.err" &
run_pid=$!
await_printed "$OUT/crash.out" "$run_pid" 's/^\(waiting\)$/\1/p' "the crash run" "$OUT/crash.err" >/dev/null
renderers() {  # the renderer processes of the Chromium started here
  ps -e -o pid=,ppid=,args= | awk -v root="$chromium_pid" '
    { pid[NR] = $1; ppid[NR] = $2; renderer[NR] = index($0, "--type=renderer") > 0 }
    END { mine[root] = 1; do { more = 0; for (i = 1; i <= NR; i++) if (mine[ppid[i]] && !mine[pid[i]]) { mine[pid[i]] = 1; more = 1 } } while (more);
          for (i = 1; i <= NR; i++) if (mine[pid[i]] && renderer[i]) print pid[i] }'
}
r=$(renderers)
[ -n "$r" ] || fail "no renderer of the Chromium started here"
t0=$(date +%s.%N)
kill -9 $r
if ! timeout 20 tail --pid="$run_pid" -f /dev/null; then fail "the crash run was still going 20 s after its renderer was killed"; fi
rc=0; wait "$run_pid" || rc=$?
t1=$(date +%s.%N)
[ "$rc" = 0 ] || { cat "$OUT/crash.err" >&2; fail "the crash run exited $rc"; }
out=$(cat "$OUT/crash.out")
echo "$out"
expect_contains "$out" "crashed step: false code device" "the crashed step's code"
expect_contains "$out" "its page crashed" "the crashed step's reason"
run=$(q "SELECT MAX(id) FROM runs")
row=$(q "SELECT printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=$run AND action='step'")
echo "crash step: $row (the run ended $(python3 -c "print(round($t1 - $t0, 1))") s after the kill)"
expect_contains "$row" "its page crashed" "the run log's error"
secs=${row%%|*}
python3 -c "import sys; sys.exit(0 if float('$secs') < 15 else 1)" || fail "the crashed step took $secs s (its wait was 30 s)"
ready_run "the killed renderer"
kill "$chromium_pid"; wait "$chromium_pid" 2>/dev/null || true
echo "chromium_stall: ok"
