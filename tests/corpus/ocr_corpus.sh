#!/usr/bin/env bash
# Text-target accuracy on the shared corpus (../shared/corpus/locate-v1): eacu bench ocr, blind.
# Checks the overall hit rate (>= 95 %); times are printed, not checked. Skips (exit 77) when
# the corpus is absent.
set -euo pipefail
EACU=$1; OUT=$2; CORPUS=${3:-}
[ -n "$CORPUS" ] && [ -f "$CORPUS/cases.json" ] || { echo "SKIP: no corpus at '$CORPUS'"; exit 77; }
rm -rf "$OUT"; mkdir -p "$OUT"
"$EACU" bench ocr "$CORPUS" --out "$OUT/cases.jsonl" | tee "$OUT/summary.txt"
hit=$(awk '$1 == "total" { for (i = 1; i <= NF; i++) if ($i == "hit") { v = $(i + 1); sub("%", "", v); print v } }' "$OUT/summary.txt")
[ -n "$hit" ] || { echo "FAIL: no total line in the bench output"; exit 1; }
if awk -v r="$hit" 'BEGIN { exit !(r < 95.0) }'; then
  echo "FAIL: text hit rate $hit% (expected >= 95%)"; exit 1
fi
echo "ocr_corpus: 1 passed, 0 failed"
