#!/usr/bin/env bash
# The worker side of eacu serve (docs/serve-protocol.md §1) end to end: `eacu run --serve-fd 3`
# with one end of a socketpair as fd 3, driven by tests/e2e/worker_protocol.py playing the
# server, on a real xcalc under the driver's own Xvfb (-displayfd), against the suite's local
# model server. Scenarios: a script's ask_user/confirm answered by acks and its returned string
# as the answer; a task whose model first answers needs_user ("compute 12*34 after login"):
# awaiting_user, an ack, the autopilot goes on, steps and intents line by line, answer, end passed,
# xcalc reads 408; SIGTERM while it waits (or while a script spins in pure Lua) ends it as
# interrupted within 3 s, with its end line; EACU_CLICK_CHECK=1
# checks every click with the model and passes; a "misaligned pointer" never clicks and asks the
# person (awaiting_user kind click), and a server that then closes its end fails the run closed.
# Also seed 001 §9: the browser module refuses a URL outside EACU_ALLOW_DOMAINS or on
# EACU_BLOCK_DOMAINS before it starts anything.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.bash"
start_test
use_model_server
unset EACU_CLICK_CHECK EACU_CONFIRM EACU_ALLOW_DOMAINS EACU_BLOCK_DOMAINS
python3 "$here/worker_protocol.py" "$EACU" "$OUT" "$root"
python3 - "$OUT/server.jsonl" <<'PY' || fail "the model server saw a bad request"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in rows if r.get("error")]
assert not bad, bad
kinds = {}
for r in rows:
    kinds[r.get("kind")] = kinds.get(r.get("kind"), 0) + 1
assert kinds.get("click_check", 0) == 10, kinds  # 5 on target + 5 for the misaligned pointer
print("server:", kinds)
PY
echo "worker_protocol: ok"
