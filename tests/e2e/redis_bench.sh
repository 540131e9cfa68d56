#!/usr/bin/env bash
# eacu serve --queue redis:// with eacu worker processes (issue 26): scenario "bench" of
# redis_queue.py (see its docstring), against a redis-server started by the test.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
use_model_server
python3 "$here/redis_queue.py" "$EACU" "$OUT" bench
