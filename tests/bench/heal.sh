#!/usr/bin/env bash
# Healing on the v1 -> v2 pair of tests/e2e/heal_app.py (issue 34's closing note): the v1 script
# as `eacu script` writes it, run on v2 with --heal without a model and with the suite's
# stand-in model server; then on v4 (v2 with the icon turned into a button 收藏, what only a
# model carries) with both. Prints per mode: lines broken (a step whose targets were all missing:
# it has params.heal), lines healed, wrong clicks (an event the app received that the v1 run
# did not: the app's own log, in order), and the healing time per broken line (median of
# params.heal.ms), also as a ratio to the median time to find a line that was not broken (the
# floor, measured in the same run). Not part of make test. Usage: tests/bench/heal.sh EACU [OUT]
set -euo pipefail
EACU=$(realpath "$1"); OUT=${2:-$(mktemp -d /tmp/eacu-bench-heal-XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.bash"
. "$here/../e2e/heal_lib.bash"
export EACU_HOME=${EACU_HOME:-$(cd "$here/../.." && pwd)}
start_test
db=$OUT/runs.db
heal_record_v1
script_for v1 "$OUT/v1.log" run_v1.lua
"$EACU" run "$OUT/run_v1.lua" --display virtual --db "$db" >/dev/null 2>&1 || fail "the v1 script failed on v1"
expected=$(app_events "$OUT/v1.log")

# bench_mode NAME [VERSION]: runs the script on VERSION (v2) with --heal and prints its line.
bench_mode() {
  local v=${2:-v2}
  rm -f "$OUT/${v}_$1.log"
  script_for "$v" "$OUT/${v}_$1.log" "run_${v}_$1.lua"
  "$EACU" run "$OUT/run_${v}_$1.lua" --heal --display virtual --db "$db" >"$OUT/${v}_$1.out" 2>&1 || true
  local run; run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
  local q="FROM steps WHERE run_id=$run AND json_extract(params, '\$.heal') IS NOT NULL"
  local broken healed ms floor wrong
  broken=$(sqlite3 "$db" "SELECT COUNT(*) $q")
  healed=$(sqlite3 "$db" "SELECT COUNT(*) $q AND json_extract(params, '\$.heal.healed') = 1 AND status = 'ok'")
  ms=$(sqlite3 "$db" "SELECT json_extract(params, '\$.heal.ms') $q" | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.0f", (a[int((NR+1)/2)] + a[int(NR/2)+1]) / 2; else print 0}')
  local each; each=$(sqlite3 "$db" "SELECT printf('%.0f', json_extract(params, '\$.heal.ms')) $q" | tr '\n' ' ')
  floor=$(sqlite3 "$db" "SELECT locate_ms FROM steps WHERE run_id=$run AND locate_ms IS NOT NULL AND method NOT LIKE 'heal:%' AND status='ok'" |
    sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.1f", a[int((NR+1)/2)]; else print 0}')
  # A wrong click: an event of the v2 run that is not the v1 run's event at the same place.
  wrong=$(python3 - "$expected" "$(app_events "$OUT/${v}_$1.log")" <<'PY'
import sys
exp = [e for e in sys.argv[1].strip().split(" ") if e]
seen = [e for e in sys.argv[2].strip().split(" ") if e]
pairs = [" ".join(exp[i:i + 2]) for i in range(0, len(exp), 2)]
done = [" ".join(seen[i:i + 2]) for i in range(0, len(seen), 2)]
print(sum(1 for i, e in enumerate(done) if i >= len(pairs) or pairs[i] != e))
PY
)
  local ratio; ratio=$(awk -v a="$ms" -v b="$floor" 'BEGIN {if (b > 0) printf "%.1f", a / b; else print "-"}')
  echo "BENCH heal $v $1: lines broken $broken, healed $healed, wrong clicks $wrong, healing median ${ms} ms per broken line (each: ${each% }) (${ratio}x the ${floor} ms median find of an unbroken line); run $run"
  # Where the similarity search's time went (params.heal.phases_ms), medians over the broken lines.
  echo "BENCH heal $v $1 phases (ms, median): $(sqlite3 "$db" "SELECT p.key, p.value FROM steps s, json_each(s.params, '\$.heal.phases_ms') p WHERE s.run_id=$run" |
    python3 -c 'import sys, statistics, collections
v = collections.defaultdict(list)
for l in sys.stdin:
    k, x = l.strip().split("|"); v[k].append(float(x))
print(", ".join("%s %.0f" % (k, statistics.median(x)) for k, x in v.items()))')"
}

bench_mode no_model
bench_mode no_model v4
use_model_server
bench_mode model
bench_mode model v4
