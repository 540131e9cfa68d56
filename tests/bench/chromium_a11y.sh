#!/usr/bin/env bash
# The chromium device's tree read (Accessibility.getFullAXTree + DOMSnapshot.captureSnapshot,
# docs/devices.md) on pages of N buttons (each in a list item, with a label: about 4 tree
# elements per button): the median locate of an a11y target on each page (one tree read and the
# search), REPS looks each, as ms and as a ratio to the same on a page of 10 buttons, the floor,
# measured in the same run. Not part of make test. Usage: tests/bench/chromium_a11y.sh EACU [REPS] [OUT]
set -euo pipefail
EACU=$(realpath "$1"); REPS=${2:-9}; OUT=${3:-$(mktemp -d /tmp/eacu-bench-cdp-a11y-XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.bash"
export EACU_HOME=${EACU_HOME:-$(cd "$here/../.." && pwd)}
start_test
sizes="10 100 300 1000 3000"
for n in $sizes; do
  python3 - "$n" >"$OUT/page$n.html" <<'PY'
import sys
n = int(sys.argv[1])
print('<!doctype html><meta charset="utf-8"><title>Buttons</title><body><ul>')
for i in range(n):
    print(f'<li><label>Row {i}</label> <button onclick="location.hash=\'b{i}\'">Button {i}</button></li>')
print('</ul></body>')
PY
done
cat >"$OUT/bench.lua" <<'LUA'
for _, n in ipairs(arg) do
  open_url("file://" .. os.getenv("BENCH_DIR") .. "/page" .. n .. ".html")
  for _ = 1, tonumber(os.getenv("BENCH_REPS")) do
    -- The first button: on the screen at every size.
    wait({ role = "push button", name = "Button 0" }, 30)
  end
end
LUA
# shellcheck disable=SC2086
BENCH_DIR=$OUT BENCH_REPS=$REPS "$EACU" run "$OUT/bench.lua" --device chromium --db "$OUT/runs.db" -- $sizes \
  >"$OUT/run.out" 2>"$OUT/run.err" || { cat "$OUT/run.err" >&2; fail "the bench run"; }
run=$(sqlite3 "$OUT/runs.db" "SELECT MAX(id) FROM runs")
# The steps in order: REPS waits per page size, in the order of $sizes.
mapfile -t ms < <(sqlite3 "$OUT/runs.db" "SELECT locate_ms FROM steps WHERE run_id=$run AND action='wait' ORDER BY idx")
[ "${#ms[@]}" -eq $(( REPS * $(echo $sizes | wc -w) )) ] || fail "expected $REPS waits per size, got ${#ms[@]} steps"
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
i=0; floor=
printf '%-8s %-14s %s\n' buttons "tree read ms" "x floor (10 buttons)"
for n in $sizes; do
  m=$(median "${ms[@]:i:REPS}"); i=$((i + REPS))
  [ -n "$floor" ] || floor=$m
  printf '%-8s %-14.1f %.2f\n' "$n" "$m" "$(echo "$m / $floor" | bc -l)"
done
