#!/usr/bin/env bash
# eacu studio's numbers on the Windows device agent under Wine (issue 37's benchmark: page click
# -> device input median, goal <= 150 ms; pointer rest -> element info p90): e2e_studio_agent's
# run (tests/e2e/studio_agent.sh: our Win32 form, the page driven through headless Chromium)
# with N timed clicks on the form's two fields and N rests first (STUDIO_BENCH=N), their lines
# deleted before the test goes on. The floor in the same run: what the studio's device sends for
# a click (move, sync, cursor, click, sync) straight to the agent with nothing else asking it;
# the click's median is also given as a ratio to it. Not part of make test. Usage: tests/bench/studio_agent.sh EACU [N] [OUT]
set -euo pipefail
EACU=$(realpath "$1"); N=${2:-9}; OUT=${3:-$(mktemp -d /tmp/eacu-bench-studio-agent-XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
export EACU_HOME=${EACU_HOME:-$(cd "$here/../.." && pwd)}
STUDIO_BENCH=$N bash "$here/../e2e/studio_agent.sh" "$EACU" "$OUT" >"$OUT.log" 2>&1 ||
  { tail -30 "$OUT.log"; echo "bench studio agent: the run failed (log $OUT.log)"; exit 1; }
grep '^studio_bench' "$OUT.log"
click=$(sed -n 's/^studio_bench agent click_to_input_median_ms \([0-9.]*\) .*/\1/p' "$OUT.log")
floor=$(sed -n 's/^studio_bench agent floor_click_ms median \([0-9.]*\) .*/\1/p' "$OUT.log")
[ -n "$click" ] && [ -n "$floor" ] && python3 -c "print(f'studio_bench agent click_to_input_over_floor {$click / $floor:.2f}')"
echo "bench studio agent: log in $OUT.log, output in $OUT"
