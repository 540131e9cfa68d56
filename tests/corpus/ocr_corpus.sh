#!/usr/bin/env bash
# Text-target accuracy on the corpus in the repository (tests/corpus/locate-v1): eacu bench ocr,
# blind. Checks the overall hit rate (>= 95 %; a found box on the case's element or on another
# occurrence of the phrase listed in "also" is a hit), and that a frame read again after a small
# change agrees with reading it whole; times are printed, not checked.
set -euo pipefail
EACU=$1; OUT=$2
CORPUS=${3:-$(cd "$(dirname "$0")" && pwd)/locate-v1}
[ -f "$CORPUS/cases.json" ] || { echo "FAIL: no corpus at '$CORPUS' (expected cases.json there)"; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
"$EACU" bench ocr "$CORPUS" --out "$OUT/cases.jsonl" | tee "$OUT/summary.txt"
hit=$(awk '$1 == "total" { for (i = 1; i <= NF; i++) if ($i == "hit") { v = $(i + 1); sub("%", "", v); print v } }' "$OUT/summary.txt")
[ -n "$hit" ] || { echo "FAIL: no total line in the bench output"; exit 1; }
if awk -v r="$hit" 'BEGIN { exit !(r < 95.0) }'; then
  echo "FAIL: text hit rate $hit% (expected >= 95%)"; exit 1
fi
# A frame read again after one of its lines changed (the line inverted): the lines read then
# must be those a whole read of the changed frame gives (>= 95 %); its time is printed.
same=$(awk '/changed frame/ { for (i = 1; i <= NF; i++) if ($i == "whole") { v = $(i + 2); print v } }' "$OUT/summary.txt")
[ -n "$same" ] || { echo "FAIL: no changed-frame line in the bench output"; exit 1; }
if awk -v r="$same" 'BEGIN { exit !(r < 95.0) }'; then
  echo "FAIL: a changed frame read only where it changed agrees with a whole read on $same% of the lines (expected >= 95%)"; exit 1
fi
echo "ocr_corpus: 2 passed, 0 failed"
