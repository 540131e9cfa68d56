#!/usr/bin/env python3
"""Records the v1 script of tests/e2e/heal_adb.sh through eacu studio's HTTP side (the routes the
studio's page uses, docs/studio.md; no browser): on the stand-in's chat app, a tap on the row 张三
(found in the studio's own tree), a tap on the chat's text field, 你好 as an input method commits
it, a tap on 发送, BACK; then waits until every line is proven and saves. Each click names the
live frame it was made on, as the page does (the newest frame of the studio's event stream,
once the screen has stood still 0.5 s and the studio's tree is that screen's: the studio proves
the line on that frame).

Usage: heal_adb_record.py URL. Prints the lines as written, then "heal_adb_record: saved PATH"."""
import json
import sys
import threading
import time
import urllib.request

url = sys.argv[1].rstrip("/")
live = {"seq": 0, "at": 0.0}  # the newest live frame of the stream, and when it came


def follow():
    """Reads the studio's event stream (SSE), keeping the newest screen.live frame's seq."""
    with urllib.request.urlopen(url + "/api/studio/stream", timeout=600) as r:
        event = ""
        for raw in r:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "screen.live":
                live["seq"], live["at"] = json.loads(line[6:])["seq"], time.monotonic()


threading.Thread(target=follow, daemon=True).start()


def shown_frame(timeout=30):
    """The seq of the live frame on screen once no newer one came for 0.5 s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if live["seq"] and time.monotonic() - live["at"] >= 0.5:
            return live["seq"]
        time.sleep(0.05)
    sys.exit(f"heal_adb_record: no live frame that stood still 0.5 s within {timeout} s")


def api(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def element(pred, what, timeout=30):
    """The first node of the studio's tree (breadth first) for which pred holds, waiting for it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        queue = [api("/api/studio/tree").get("root")]
        while queue:
            n = queue.pop(0)
            if n and pred(n) and n["bounds"]["w"] > 0:
                return n
            queue.extend(n["children"] if n else [])
        time.sleep(0.2)
    sys.exit(f"heal_adb_record: no {what} in the studio's tree within {timeout} s")


def settled_frame(timeout=30):
    """The shown frame once the studio's tree is that screen's own (read while it stood still:
    on_frame), as a person clicks once the screen has settled; the studio proves tree targets
    only on such a tree."""
    end = time.monotonic() + timeout
    seen = None
    while time.monotonic() < end:
        seq = shown_frame(max(0.1, end - time.monotonic()))
        t = api("/api/studio/tree")
        seen = (seq, live["seq"], t.get("seq"), t.get("on_frame"))
        if t.get("on_frame") and t.get("seq") and t["seq"] <= seq:
            return seq
        time.sleep(0.1)
    sys.exit(f"heal_adb_record: the studio's tree was not the shown screen's within {timeout} s "
             f"(last: shown frame {seen[0]}, newest {seen[1]}, tree's frame {seen[2]}, on_frame {seen[3]})")


def tap(n):
    b = n["bounds"]
    api("/api/studio/input", {"event": {"kind": "click", "x": b["x"] + b["w"] // 2, "y": b["y"] + b["h"] // 2,
                                        "frame": settled_frame()}})


tap(element(lambda n: n["name"] == "张三" and n["id"].endswith("contact_0"), "row 张三"))
element(lambda n: n["id"].endswith("chat_title") and n["name"] == "张三", "chat of 张三")
tap(element(lambda n: n["id"].endswith("input"), "text field"))
api("/api/studio/input", {"event": {"kind": "text", "text": "你好"}})
tap(element(lambda n: n["name"] == "发送", "send button"))
element(lambda n: n["name"] == "你好", "sent message 你好")
api("/api/studio/input", {"event": {"kind": "key", "keys": "back"}})
element(lambda n: n["id"].endswith("title") and n["name"] == "Chats", "chat list again")
end = time.monotonic() + 120
while True:
    lines = api("/api/studio/lines")["lines"]
    if len(lines) == 5 and all(l["state"] != "pending" for l in lines):
        break
    if time.monotonic() > end:
        sys.exit(f"heal_adb_record: 5 proven lines not there within 120 s: {lines}")
    time.sleep(0.2)
for l in lines:
    print(l["lua"])
print("heal_adb_record: saved " + api("/api/studio/save", {})["path"], flush=True)
