#!/usr/bin/env python3
"""The elements the stand-in's taps hit, for tests/e2e/heal_adb.sh.

heal_adb_taps.py LIST.xml CHAT.xml LOG: every `input tap X Y` and `touch down X Y` (a touch through
sendevent) of the stand-in's command log LOG,
named by the smallest element of the app's tree (uiautomator XML) under it that has a
resource-id: its text, else its resource-id's name ("input"); "?" when none. The first tap is
looked up on LIST.xml (the chat list), the others on CHAT.xml (the chat). Prints the names on
one line.
heal_adb_taps.py --centre TEXT LIST.xml: the centre "X Y" of the element whose text is TEXT."""
import re
import sys
import xml.etree.ElementTree as ET


def nodes(path):
    out = []
    for n in ET.parse(path).iter("node"):
        x1, y1, x2, y2 = (int(v) for v in re.findall(r"\d+", n.get("bounds")))
        out.append((n.get("text", ""), n.get("resource-id", ""), (x1, y1, x2, y2)))
    return out


def name_at(tree, x, y):
    hits = [(b[2] - b[0]) * (b[3] - b[1]) for _, rid, b in tree]
    best = None
    for (text, rid, b), area in zip(tree, hits):
        if rid and b[0] <= x < b[2] and b[1] <= y < b[3] and (best is None or area < best[0]):
            best = (area, text or rid.split("/")[-1])
    return best[1] if best else "?"


if sys.argv[1] == "--centre":
    for text, _, b in nodes(sys.argv[3]):
        if text == sys.argv[2]:
            print((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
            sys.exit(0)
    sys.exit(f"heal_adb_taps: no element reads {sys.argv[2]!r} in {sys.argv[3]}")

screens = [nodes(sys.argv[1]), nodes(sys.argv[2])]
names = []
with open(sys.argv[3], encoding="utf-8") as f:
    for line in f:
        m = re.match(r"(?:input tap|touch down) (\d+) (\d+)", line)
        if m:
            names.append(name_at(screens[min(len(names), 1)], int(m.group(1)), int(m.group(2))))
print(" ".join(names))
