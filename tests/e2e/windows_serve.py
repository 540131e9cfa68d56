"""eacu serve --wm openbox: a Lua task on the private display of a worker maximizes a window, which
needs the window manager. Usage: windows_serve.py EACU OUT"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Api, Fail, Server, wait_until  # noqa: E402

EACU, OUT = sys.argv[1], sys.argv[2]
SCRIPT = """
launch { "xcalc" }
local c = assert(window("xcalc", 20))
c:maximize()
return "maximized " .. tostring(c.maximized)
"""

server = Server(EACU, ["--token", "t0k", "--allow-scripts", "--workers", "1", "--wm", "openbox",
                       "--db", os.path.join(OUT, "serve.db")], os.path.join(OUT, "serve.log"))
try:
    api = Api(server, token="t0k")
    r = api.ok("POST", "/task", {"script": SCRIPT})
    view = wait_until(lambda: (lambda v: v if v["status"] not in ("queued", "running") else None)(
        api.ok("GET", f"/task/{r['task_id']}")), 90, "the window task to end")
    if view["status"] != "completed" or view["result"] != "maximized true":
        raise Fail(f"a task under serve --wm openbox maximizes xcalc: {view['status']} {view['result']!r} "
                   f"{view['error']!r}")
    print("serve --wm openbox: a task maximized a window")
finally:
    server.stop()
