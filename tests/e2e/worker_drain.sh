#!/usr/bin/env bash
# eacu worker --drain (issue 35): SIGTERM drains the worker (what systemd's stop and a
# Kubernetes pod's termination send): worker_drain.py against a redis-server of the test's own.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
python3 "$here/worker_drain.py" "$EACU" "$OUT"
