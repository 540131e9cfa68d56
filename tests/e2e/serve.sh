#!/usr/bin/env bash
# eacu serve end to end (issue 12), through its HTTP API: bad requests and tokens; a template
# task and autopilot tasks on xcalc (each on a private Xvfb started by the server, xcalc started by
# --launch) against the suite's local model server; two sessions side by side on two workers;
# needs_user → awaiting_user → ack; stop mid-task (its Xvfb gone); kill -9 and a restart (history
# kept, the task interrupted; the run log intact, every run listed, the killed run not shown
# running, no committed step lost). The page is tested by serve_page.sh.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
use_model_server
export XVFB_LOG
python3 "$here/serve_api.py" "$EACU" "$OUT" "$root"
