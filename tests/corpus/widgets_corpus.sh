#!/usr/bin/env bash
# Widget-label accuracy on the widget corpus (tests/corpus/widgets-v1: GTK3, GTK2, Tk and Xaw
# screenshots, labels and boxes from the toolkits; made by tests/corpus/widgets/make_widgets.sh):
# eacu bench ocr, blind. Checks recall >= 98 % on labels of words (3 characters or more, one or
# two words), >= 95 % on labels of one or two characters, and no label found in a wrong place.
set -euo pipefail
EACU=$1; OUT=$2
CORPUS=${3:-$(cd "$(dirname "$0")" && pwd)/widgets-v1}
[ -f "$CORPUS/cases.json" ] || { echo "FAIL: no corpus at '$CORPUS' (expected cases.json there)"; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
"$EACU" bench ocr "$CORPUS" --out "$OUT/cases.jsonl" | tee "$OUT/summary.txt"
field() {  # field GROUP NAME: the value after NAME on GROUP's line
  awk -v g="$1" -v f="$2" '$1 == g { for (i = 1; i <= NF; i++) if ($i == f) { v = $(i + 1); sub("%", "", v); print v } }' "$OUT/summary.txt"
}
fails=0
check() {  # check GROUP MIN_PERCENT
  local hit; hit=$(field "$1" hit)
  [ -n "$hit" ] || { echo "FAIL: no '$1' line in the bench output"; fails=$((fails + 1)); return; }
  if awk -v r="$hit" -v m="$2" 'BEGIN { exit !(r < m) }'; then
    echo "FAIL: $1 recall $hit% (expected >= $2%)"; fails=$((fails + 1))
  fi
}
check words 98
check chars 95
wrong=$(field total wrong)
[ "$wrong" = 0 ] || { echo "FAIL: $wrong labels found in a wrong place (expected 0)"; fails=$((fails + 1)); }
[ "$fails" = 0 ] || exit 1
echo "widgets_corpus: 3 passed, 0 failed"
