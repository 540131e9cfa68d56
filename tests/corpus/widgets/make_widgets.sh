#!/usr/bin/env bash
# Regenerates the widget corpus tests/corpus/widgets-v1 (run by hand, not in CI):
#   tests/corpus/widgets/make_widgets.sh build/eacu
# Screenshots of GTK3 (zenity), GTK2 (HexChat), Tk (tk_widgets.py) and Xaw (xmessage) on a
# virtual display, with cases.json in the format of tests/corpus/locate-v1's text cases plus
# "toolkit" and "role": {"kind":"text","screenshot","text","expect":[x,y,w,h],"toolkit","role"}.
set -euo pipefail
EACU=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
dest=$here/../widgets-v1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out/shots" "$work/hexchat"
"$EACU" run "$here/make_widgets.lua" --display virtual --db "$work/runs.db" -- "$work/out" "$here" "$work/hexchat"
python3 - "$work/out/labels.tsv" "$work/out/cases.json" <<'PY'
import json, sys
cases = []
for line in open(sys.argv[1], encoding="utf-8"):
    toolkit, shot, text, x, y, w, h, role = line.rstrip("\n").split("\t")
    cases.append({"kind": "text", "screenshot": shot, "text": text, "expect": [int(x), int(y), int(w), int(h)],
                  "scale": 1.0, "toolkit": toolkit, "role": role})
# A label shown more than once on a shot (a tab and its page's title): each box is a hit.
for c in cases:
    others = [o["expect"] for o in cases if o is not c and o["screenshot"] == c["screenshot"] and o["text"] == c["text"]]
    if others:
        c["also"] = others
json.dump(cases, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False, indent=1)
print(len(cases), "cases")
PY
rm -rf "$dest"; mkdir -p "$dest"
cp -r "$work/out/shots" "$work/out/cases.json" "$dest/"
echo "corpus written to $dest"
