#!/usr/bin/env python3
"""The floor of the studio's page click -> device input on the agent (tests/bench/studio_agent.sh):
what eacu's device sends for a click (move, sync, cursor, click, sync: ActionExecutor's
moveExactly and the click), N times at X,Y on a connection of its own, with nothing else asking
the agent. Prints `studio_bench agent floor_click_ms median M ...`.
usage: agent_click_floor.py HOST:PORT TOKEN N X,Y"""
import socket
import statistics
import sys
import time

from agent_wire import call

addr, token, n, at = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
host, port = addr.rsplit(":", 1)
x, y = (int(v) for v in at.split(","))
s = socket.create_connection((host, int(port)), timeout=30)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as eacu's client (AgentConnection)


def ok(req):
    h, _ = call(s, req)
    if not h.get("ok"):
        sys.exit(f"agent_click_floor: {req['op']}: expected ok, got {h}")


ok({"op": "hello", "version": 1, "token": token})
ms = []
for i in range(n):
    t0 = time.monotonic()
    for r in ({"op": "move", "x": x + i % 2, "y": y}, {"op": "sync"}, {"op": "cursor"},
              {"op": "click", "button": 1, "count": 1}, {"op": "sync"}):
        ok(r)
    ms.append((time.monotonic() - t0) * 1000)
print(f"studio_bench agent floor_click_ms median {statistics.median(ms):.1f} (move, sync, cursor, click, sync "
      f"on the agent alone, n {len(ms)})", flush=True)
