#!/usr/bin/env bash
# The REPL's record() and stop() on the Windows device agent under Wine (issue 37 item 6), in
# tmux: a REPL on --device agent:HOST:PORT with our Win32 form (tests/e2e/win32/form.c) open;
# record() starts the studio's record mode on the session's own device and prints its URL; the
# form's 确定 is clicked on the studio page's live screen (studio_page.py --case repl_agent,
# through headless Chromium's DevTools, as a person): the form gets it (it writes what it got and
# exits); stop() returns the line proven there (the tree's push button 确定) and puts it in the
# history; on a fresh form the returned line, run again in the REPL, clicks its 确定 too.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/win32/wine_env.bash"
start_test
db=$OUT/runs.db
trap 'stop_wine' EXIT

build_agent
start_wine_xvfb 1280x800
make_wine_prefix "$OUT/wine" 1280x800
start_agent
export EACU_AGENT_TOKEN=$token

start_form recorded
. "$here/repl_tmux.bash"
REPL_DEVICE="agent:$addr" start_repl_tmux eacu-repl-record-agent "$OUT"
trap 'tm kill-server 2>/dev/null || true; stop_wine' EXIT  # start_repl_tmux set its own
send 'record()'
wait_for "recording what you do on" 60
url=$(pane | sed -n 's|^eacu studio: \(http://127\.0\.0\.1:[0-9]*/\)$|\1|p' | tail -1)
[ -n "$url" ] || { pane >&2; fail "record() did not print the studio's loopback URL"; }
timeout 300 python3 "$here/studio_page.py" "$url" --case repl_agent --out "$OUT" | tee "$OUT/page.out"
grep -q '^studio_page: passed' "$OUT/page.out" || fail "studio_page.py --case repl_agent did not pass"
expect_form recorded "form: ||0" "what the form got from the page's click on 确定"
send 'lines = stop()'
wait_for "line recorded" 120
send 'n = 0; for l in lines:gmatch("[^\n]+") do if l:match("^tap%(") and l:find("确定", 1, true) then n = n + 1 end end; print("TAPS" .. n)'
wait_for "TAPS1"
grep -q '^tap(.*确定' "$OUT/history" || { cat "$OUT/history" >&2; fail "stop() did not put the line in the history"; }
# A fresh form: the recorded line clicks its 确定.
start_form replayed
send 'assert(load(lines))(); print("R" .. "AN")'
wait_for "RAN" 60
expect_form replayed "form: ||0" "what the fresh form got from the recorded line"
pane >"$OUT/pane.txt"
send '.exit'
wait_for "REPL-EXITED 0" 30
stop_wine
expect_wine_gone
echo "PASS repl_record_agent"
