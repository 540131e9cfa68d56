#!/usr/bin/env bash
# Locate accuracy on the shared corpus (../shared/corpus/locate-v1): eacu bench locate, blind.
# Checks the hit rate at every scale and the false positives on the negative cases; times are
# printed, not checked (benchmarks report them). Skips (exit 77) when the corpus is absent.
set -euo pipefail
EACU=$1; OUT=$2; CORPUS=${3:-}
[ -n "$CORPUS" ] && [ -f "$CORPUS/cases.json" ] || { echo "SKIP: no corpus at '$CORPUS'"; exit 77; }
rm -rf "$OUT"; mkdir -p "$OUT"
"$EACU" bench locate "$CORPUS" --out "$OUT/cases.jsonl" | tee "$OUT/summary.txt"
fail=0
# Rows: scale positives hit% FP/neg median p90
while read -r scale pos hit fpneg med p90; do
  rate=${hit%\%}
  if awk -v r="$rate" 'BEGIN { exit !(r < 97.0) }'; then
    echo "FAIL: hit rate $hit at scale $scale (expected >= 97%)"; fail=1
  fi
done < <(awk '$1 ~ /^[0-9.]+$/ && NF == 6' "$OUT/summary.txt")
fp=$(awk '$1 == "all" { split($4, a, "/"); print a[1] }' "$OUT/summary.txt")
neg=$(awk '$1 == "all" { split($4, a, "/"); print a[2] }' "$OUT/summary.txt")
# Of locate-v1's 111 negative cases, 9 hold what is on the other page too (the Python logo on
# every page, pixel for pixel, in 8; the same "Introduction" link in 1): a correct locator finds
# those. The bound (10 %) leaves room for them and keeps the rest in check; the cases found are
# listed.
python3 - "$CORPUS/cases.json" "$OUT/cases.jsonl" <<'PY'
import json, sys
cases = [c for c in json.load(open(sys.argv[1])) if c["kind"] in ("positive", "negative")]
for c, line in zip(cases, open(sys.argv[2])):
    r = json.loads(line)
    if c["kind"] == "negative" and r["found"]:
        print("found on a negative case: %s in %s at (%d,%d %dx%d) score %.3f" %
              (c["template"], c["screenshot"], r["x"], r["y"], r["w"], r["h"], r["score"]))
PY
if [ "$fp" -gt $(( neg / 10 )) ]; then
  echo "FAIL: $fp false positives of $neg negative cases (expected at most $(( neg / 10 )))"; fail=1
fi
[ "$fail" = 0 ] && echo "locate_corpus: 2 passed, 0 failed" || { echo "locate_corpus: failed"; exit 1; }
