#!/usr/bin/env bash
# Widget-label accuracy on the widget corpus (tests/corpus/widgets-v1: GTK3, GTK2, Tk and Xaw
# screenshots, labels and boxes from the toolkits; made by tests/corpus/widgets/make_widgets.sh):
# eacu bench ocr, blind. Checks recall >= 98 % on labels of words (3 characters or more) and
# >= 95 % on labels of one or two characters over all toolkits, and that no label is found in a
# wrong place. Recall per toolkit is printed.
set -euo pipefail
EACU=$1; OUT=$2
CORPUS=${3:-$(cd "$(dirname "$0")" && pwd)/widgets-v1}
[ -f "$CORPUS/cases.json" ] || { echo "FAIL: no corpus at '$CORPUS' (expected cases.json there)"; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
"$EACU" bench ocr "$CORPUS" --out "$OUT/cases.jsonl" | tee "$OUT/summary.txt"
python3 - "$CORPUS/cases.json" "$OUT/cases.jsonl" <<'PY'
import json, sys, unicodedata
cases = [c for c in json.load(open(sys.argv[1], encoding="utf-8")) if c["kind"] == "text"]
results = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
if len(cases) != len(results):
    sys.exit("FAIL: %d text cases, %d results" % (len(cases), len(results)))
def length(t):  # visible characters, as the bench's chars/words groups count them
    return sum(1 for ch in t if not ch.isspace() and not unicodedata.category(ch).startswith(("P", "S")))
groups, wrong, fails = {}, 0, 0
for c, r in zip(cases, results):
    g = groups.setdefault((c["toolkit"], "chars" if length(c["text"]) <= 2 else "words"), [0, 0])
    g[0] += 1; g[1] += r["hit"]
    if r["found"] and not r["hit"]:
        wrong += 1; print("FAIL: %s \"%s\" found in a wrong place" % (c["screenshot"], c["text"]))
for (toolkit, kind), (n, hits) in sorted(groups.items()):
    print("      %-5s %-5s %3d/%3d = %5.1f%%" % (toolkit, kind, hits, n, 100.0 * hits / n))
for kind, need in (("words", 98.0), ("chars", 95.0)):
    n = sum(v[0] for (t, k), v in groups.items() if k == kind)
    hits = sum(v[1] for (t, k), v in groups.items() if k == kind)
    rate = 100.0 * hits / n
    bad = rate < need
    fails += bad
    print("%s all toolkits %s %d/%d = %.1f%% (expected >= %.0f%%)" % ("FAIL:" if bad else "ok:", kind, hits, n, rate, need))
sys.exit(1 if fails or wrong else 0)
PY
echo "widgets_corpus: recall per toolkit and no wrong place passed"
