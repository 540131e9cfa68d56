#!/usr/bin/env bash
# eacu serve killed with SIGKILL mid-task: nothing it started survives, and a restart shows its
# tasks interrupted and their runs closed crashed (serve_killed.py says how it is judged).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
python3 "$here/serve_killed.py" "$EACU" "$OUT"
