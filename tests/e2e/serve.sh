#!/usr/bin/env bash
# eacu serve end to end (issue 12), through its HTTP API: bad requests and tokens; a template
# task and agent tasks on xcalc (each on a private Xvfb started by the server, xcalc started by
# --launch) against the suite's local model server; two sessions side by side on two workers;
# needs_user → awaiting_user → ack; stop mid-task (its Xvfb gone); kill -9 and a restart (history
# kept, the task interrupted). The page is tested by serve_page.sh.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
start_model_server
export EACU_MODEL_PROVIDER=openai EACU_MODEL=fake-qwen-vl EACU_MODEL_BASE_URL=http://127.0.0.1:$port/v1
export EACU_MODEL_API_KEY=sk-e2e EACU_MODEL_MAX_RETRIES=0 EACU_MODEL_TIMEOUT=20
export XVFB_LOG
python3 "$here/serve_api.py" "$EACU" "$OUT" "$root"
