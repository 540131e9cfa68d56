#!/usr/bin/env python3
"""The agent protocol (docs/agent-protocol.md) spoken directly to eacu-agent.exe: a wrong token,
requests before the hello, malformed and oversized messages, bad arguments (each gets a clear
error and the agent goes on serving), launch/wait/exit code, capture sizes and times (a
whole frame, then the changed region only), and where the element tree comes from (the hello's
"uia" and the tree's "source" agree; EXPECT_TREE_SOURCE=msaa|uia names the one expected).
usage: agent_proto.py HOST:PORT TOKEN"""
import json
import os
import socket
import struct
import sys
import time

from agent_wire import answer, call, send_raw

ADDR, TOKEN = sys.argv[1], sys.argv[2]
HOST, PORT = ADDR.rsplit(":", 1)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def connect(token=TOKEN, hello=True):
    s = socket.create_connection((HOST, int(PORT)), timeout=30)
    if hello:
        h, _ = call(s, {"op": "hello", "version": 1, "token": token})
        check(h.get("ok") is True, f"hello with the right token: {h}")
    return s


def closed(s):
    try:
        return s.recv(1) == b""
    except (ConnectionError, socket.timeout):
        return True


# A wrong token: a clear error, then the agent closes the connection.
s = connect(hello=False)
h, _ = call(s, {"op": "hello", "version": 1, "token": TOKEN + "x"})
check(h.get("ok") is False and "wrong token" in h.get("error", ""), f"a wrong token is refused: {h}")
check(TOKEN not in json.dumps(h), "the answer does not echo the token")
check(closed(s), "the connection closes after a wrong token")
# Another protocol version.
s = connect(hello=False)
h, _ = call(s, {"op": "hello", "version": 99, "token": TOKEN})
check(h.get("ok") is False and "version 1" in h.get("error", ""), f"another version is refused: {h}")
# A request before the hello.
s = connect(hello=False)
h, _ = call(s, {"op": "screen"})
check(h.get("ok") is False and "hello" in h.get("error", ""), f"a request before the hello: {h}")
h, _ = call(s, {"op": "hello", "version": 1, "token": TOKEN})
check(h.get("ok") is True, "the hello after a refused request")

# Malformed messages on an authenticated connection: each answered, the connection goes on.
s = connect()
for bad, want in [(b"not json", "malformed request header"), (b'{"op": "screen"', "malformed request header"),
                  (b'[1, 2]', "expected a JSON object"), (b'{"id": 3}', 'no "op"'),
                  (b'{"op": "fly"}', 'unknown op "fly"'), (b'{"op": "move", "x": 99999, "y": 1}', "move: expected x"),
                  (b'{"op": "window", "action": "focus", "window": 12345678}', "is gone"),
                  (b'{"op": "capture", "window": 12345678}', "is gone"),
                  (b'{"op": "window", "action": "spin", "window": 0}', "is gone"),
                  (b'{"op": "key", "vk": 999, "down": true}', "expected vk"),
                  (b'{"op": "wait", "pid": 4242, "timeout": 0}', "not a program this agent launched"),
                  (b'{"op": "element", "path": [1], "action": "click"}', "expected \"path\" [pid, hwnd]")]:
    send_raw(s, bad)
    h, _ = answer(s)
    check(h.get("ok") is False and want in h.get("error", ""), f"{bad!r}: expected an error with {want!r}, got {h}")
h, _ = call(s, {"op": "text"}, b"\xff\xfe bad utf-8")
check(h.get("ok") is False and "UTF-8" in h.get("error", ""), f"invalid UTF-8 text: {h}")
h, _ = call(s, {"op": "screen"})
check(h.get("ok") is True and h.get("w", 0) > 0, f"the connection still serves after the errors: {h}")
print(f"screen: {h['w']}x{h['h']} dpi {h['dpi']} scale {h['scale']}")

# An oversized message: an error answer, then the connection closes (it cannot be skipped).
s2 = connect()
s2.sendall(struct.pack("<II", 1 << 30, 0))
h, _ = answer(s2)
check(h.get("ok") is False and "too large" in h.get("error", ""), f"an oversized header: {h}")
check(closed(s2), "the connection closes after an oversized message")
# A client that disconnects in the middle of a message.
s3 = connect()
s3.sendall(struct.pack("<II", 100, 0) + b'{"op":')
s3.close()
h, _ = call(s, {"op": "cursor"})
check(h.get("ok") is True, f"the agent serves after a half message and an oversized one: {h}")

# Launch, wait, exit code.
h, _ = call(s, {"op": "launch"}, "cmd.exe /c exit 7".encode())
check(h.get("ok") is True and h.get("pid", 0) > 0, f"launch: {h}")
if h.get("ok"):
    code = None
    deadline = time.time() + 30
    while time.time() < deadline:
        w, _ = call(s, {"op": "wait", "pid": h["pid"], "timeout": 1})
        if w.get("exited"):
            code = w.get("code")
            break
    check(code == 7, f"the launched program's exit code: expected 7, got {code}")
h, _ = call(s, {"op": "launch"}, "Z:\\no\\such\\program.exe".encode())
check(h.get("ok") is False and "CreateProcessW failed" in h.get("error", ""), f"launching a missing program: {h}")

# An unknown window action on a window that exists: refused as an unknown action (the window's
# being there is not what the answer is about), and the window is still there after it.
h, _ = call(s, {"op": "launch"}, b"notepad.exe")
check(h.get("ok") is True, f"launch notepad: {h}")
win = None
deadline = time.time() + 30
while time.time() < deadline and not win:
    w, _ = call(s, {"op": "windows"})
    win = next((x for x in w.get("windows", []) if x.get("pid") == h.get("pid")), None)
    if not win:
        time.sleep(0.1)
check(win is not None, "notepad's window is listed within 30 s")
if win:
    r, _ = call(s, {"op": "window", "action": "spin", "window": win["id"]})
    check(r.get("ok") is False and 'unknown action "spin"' in r.get("error", ""),
          f"an unknown action on notepad's window {win['id']}: {r}")
    r, _ = call(s, {"op": "window", "action": "info", "window": win["id"]})
    check(r.get("ok") is True and (r.get("window") or {}).get("id") == win["id"], f"the window is still there: {r}")
    call(s, {"op": "window", "action": "close", "window": win["id"]})

# Capture: a whole frame, then only what changed (nothing, or the clock), timed.
def capture(base):
    t = time.perf_counter()
    h, p = call(s, {"op": "capture", "base": base})
    return h, p, (time.perf_counter() - t) * 1000


full = [capture(0) for _ in range(3)]
h, p, ms = min(full, key=lambda r: r[2])
check(h.get("full") is True and h.get("encoding") == "rle24", f"a capture without a base is whole: {h}")
seq = full[-1][0]["seq"]
changed = []
for _ in range(5):
    hc, pc, mc = capture(seq)
    seq = hc["seq"]
    changed.append((hc, pc, mc))
hc, pc, mc = min(changed, key=lambda r: r[2])
check(hc.get("full") is False, f"a capture on the last frame sends the changed region: {hc}")
raw = h["w"] * h["h"] * 3
print(f"capture full frame {h['w']}x{h['h']}: {len(p)} bytes (raw {raw}, {100.0 * len(p) / raw:.1f}%), "
      f"{ms:.1f} ms; changed region {hc['rect'][2]}x{hc['rect'][3]}: {len(pc)} bytes, {mc:.1f} ms (best of 3 and 5)")
h, _ = call(s, {"op": "capture", "base": seq + 1000})
check(h.get("full") is True, "a capture on a frame the agent does not have is whole")

# Input is not held behind another connection's state request (docs/agent-protocol.md: two
# classes): while connection A's `wait` holds the state lock for 3 s on a running notepad,
# connection B's pointer reads and moves, sent over and over until A's answer comes, are
# answered each within 1 s (before: each waited for A's wait to end).
h, _ = call(s, {"op": "launch"}, b"notepad.exe")
check(h.get("ok") is True, f"launch notepad (for the lock check): {h}")
if h.get("ok"):
    import threading
    pid = h["pid"]
    a, b = connect(), connect()
    held = {}

    def hold():
        t0 = time.time()
        held["answer"], _ = call(a, {"op": "wait", "pid": pid, "timeout": 3})
        held["s"] = time.time() - t0

    th = threading.Thread(target=hold)
    th.start()
    slowest, n, give_up = 0.0, 0, time.time() + 10
    while th.is_alive() and time.time() < give_up:
        for req in ({"op": "cursor"}, {"op": "move", "x": 5 + n % 50, "y": 5}):
            t0 = time.time()
            r, _ = call(b, req)
            slowest = max(slowest, time.time() - t0)
            check(r.get("ok") is True, f"{req['op']} during another connection's wait: {r}")
        n += 1
    th.join()
    check(held.get("s", 0) >= 2.5 and held.get("answer", {}).get("exited") is False,
          f"A's wait held for its 3 s on the running notepad: {held}")
    check(n >= 3 and slowest < 1.0, f"pointer reads and moves during A's wait: {n} pairs, the slowest "
          f"{slowest * 1000:.0f} ms (expected each within 1 s, not held until the wait ended)")
    print(f"during a 3 s wait on another connection: {n} cursor+move pairs, the slowest {slowest * 1000:.0f} ms")
    w, _ = call(s, {"op": "windows"})
    for x in w.get("windows", []):
        if x.get("pid") == pid:
            call(s, {"op": "window", "action": "close", "window": x["id"]})
    for x in (a, b):
        x.close()

# The element tree's source: UI Automation when the hello says "uia": true, else MSAA.
s = connect(hello=False)
h, _ = call(s, {"op": "hello", "version": 1, "token": TOKEN})
uia = h.get("uia")
t, _ = call(s, {"op": "tree", "id": 30, "pid": 0, "max_elements": 200, "max_depth": 3})
source = t.get("source")
check(t.get("ok") is True and source in ("uia", "msaa"), f"the tree names its source (uia or msaa): {str(t)[:300]}")
check(source == ("uia" if uia else "msaa"), f"the tree's source {source} agrees with the hello's uia {uia}")
want = os.environ.get("EXPECT_TREE_SOURCE")
check(not want or source == want, f"the tree's source: expected {want}, got {source}")
print(f"element tree source: {source} (hello uia: {uia})")
s.close()

if failures:
    sys.exit(f"{len(failures)} protocol checks failed")
print("agent protocol: all checks passed")
