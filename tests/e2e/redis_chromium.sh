#!/usr/bin/env bash
# --device chromium for eacu serve and eacu worker (issue 26 item 7): scenario "chromium" of
# redis_queue.py (see its docstring), with no X display, a redis-server of the test's own.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"
python3 "$here/redis_queue.py" "$EACU" "$OUT" chromium
# No task started an X server (lib.bash's Xvfb stand-in logs every start).
[ ! -s "$XVFB_LOG" ] || fail "an Xvfb was started for a --device chromium task: $(cat "$XVFB_LOG")"
echo "e2e_redis_chromium: passed"
