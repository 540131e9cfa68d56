#!/usr/bin/env python3
"""Benchmark of eacu serve (issue 12's numbers), printed as "name value" lines:
- sse_latency_ms: from a step's commit (steps.ended_at in the run log, written by the worker) to
  the arrival of its progress event at an SSE client (median, p90, max);
- live_fps: screen.live frames per second an SSE client receives while the autopilot task runs on a
  screen that keeps changing (xcalc plus the x11-apps animation `ico` beside it);
- first_paint_ms: the chat page's first paint in headless Chromium (performance paint entry).

Usage: serve_bench.py EACU [--task TEXT]. Starts its own model server (tests/model_server/
fake_model.py), its own eacu serve with a private Xvfb per task, and Chromium; stops them all."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(root, "tests", "e2e"))
from serve_client import Api, Server, Stream, latency_line, live_fps, sse_latencies_ms  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eacu")
    ap.add_argument("--task", default="work out 12*34")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="eacu-serve-bench-")
    model = subprocess.Popen([sys.executable, os.path.join(root, "tests/model_server/fake_model.py")],
                             stdout=subprocess.PIPE, text=True)
    port = int(re.search(r"PORT (\d+)", model.stdout.readline()).group(1))
    env = dict(os.environ, EACU_MODEL_PROVIDER="openai", EACU_MODEL="fake-qwen-vl",
               EACU_MODEL_BASE_URL=f"http://127.0.0.1:{port}/v1", EACU_MODEL_API_KEY="sk-bench",
               EACU_HOME=root, TMPDIR=tmp)
    env.pop("DISPLAY", None)
    db = os.path.join(tmp, "runs.db")
    server = Server(a.eacu, ["--workers", "1", "--db", db, "--launch", "xcalc",
                             "--launch", "ico -geometry 300x300+900+450"], os.path.join(tmp, "serve.log"), env)
    try:
        api = Api(server)
        r = api.ok("POST", "/api/chat/send", {"text": a.task})
        s = Stream(server, r["session_id"])
        end = s.wait_end(r["task_id"], 300)
        print(f"task {end[1]} ({a.task!r})")
        fps, n = live_fps(s, r["task_id"])
        print(f"live_fps {fps:.1f} ({n} frames)")
        print(latency_line(sse_latencies_ms(s, db, r["task_id"])))
        s.close()
        try:
            import cdp  # tests/e2e/cdp.py
            with cdp.Browser(width=1280, height=800) as b:
                page = b.new_page()
                page.navigate(server.url + "/")
                page.wait_for("performance.getEntriesByType('paint').length > 0", 10, "the first paint")
                cold = page.first_paint().get("first-paint", -1)
                page.reload()
                page.wait_for("performance.getEntriesByType('paint').length > 0", 10, "the first paint")
                print(f"first_paint_ms {page.first_paint().get('first-paint', -1):.0f} (first load in a fresh "
                      f"browser {cold:.0f})")
        except ImportError:
            print("first_paint_ms (tests/e2e/cdp.py missing)")
    finally:
        server.stop()
        model.kill()


if __name__ == "__main__":
    main()
