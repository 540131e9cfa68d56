#!/usr/bin/env python3
"""eacu serve end to end, through its HTTP API (the page has its own test, serve_page.py):
real workers on private Xvfb servers with xcalc, the suite's local model server.

Usage: serve_api.py EACU OUT ROOT. Needs EACU_MODEL_* in the environment (the fake model server)
and XVFB_LOG (lib.bash's record of the Xvfb servers started). Prints measurements as
"name value" lines."""
import json
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import Api, Fail, Server, Stream, latency_line, live_fps, sse_latencies_ms, wait_until  # noqa: E402

EACU, OUT, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
DB = os.path.join(OUT, "serve.db")


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what.split(":")[0])


def read_display(api, frame_url, name):
    """What xcalc's display shows on a frame the server serves (the calculator module reads it)."""
    st, png, _ = api.get(frame_url)
    check(st == 200 and png[:8] == b"\x89PNG\r\n\x1a\n", f"{frame_url} is a PNG: got {st}")
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(png)
    out = subprocess.run([EACU, "run", os.path.join(ROOT, "tests/e2e/read_display.lua"), "--display", "image:" + path,
                          "--db", os.path.join(OUT, "read.db")], capture_output=True, text=True, timeout=60,
                         cwd=os.path.join(ROOT, "tests/e2e"))
    for line in out.stdout.splitlines():
        if line.startswith("display="):
            return line[len("display="):]
    raise Fail(f"read_display printed no display=: {out.stdout!r} {out.stderr!r}")


def xvfb_pid_of(display):
    """The pid of the Xvfb this test started on `display` (":N"), from lib.bash's XVFB_LOG."""
    pid = None
    with open(os.environ["XVFB_LOG"]) as f:
        for line in f:
            parts = line.split()
            if display in parts[2:]:
                pid = int(parts[0])
    return pid


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def bad_requests(api, server):
    st, js, _ = api.post("/api/chat/send", raw=b"{bad json")
    check(st == 400 and "malformed JSON" in js["error"], f"malformed JSON: 400: {st} {js}")
    st, js, _ = api.post("/api/chat/send", raw=b"[1, 2]")
    check(st == 400 and "JSON object" in js["error"], f"a JSON array: 400: {st} {js}")
    st, js, _ = api.post("/api/chat/send", {"text": "   "})
    check(st == 400 and "non-empty" in js["error"], f"an empty text: 400: {st} {js}")
    st, js, _ = api.post("/api/chat/send", {"session_id": 999999, "text": "hi"})
    check(st == 404 and "no session" in js["error"], f"an unknown session: 404: {st} {js}")
    st, js, _ = api.post("/api/chat/send", raw=b'{"text": "' + b"a" * (1 << 20) + b'"}')
    check(st == 413 and "too large" in js["error"], f"a body over 1 MB: 413: {st} {js}")
    st, js, _ = api.post("/api/chat/stop", {"task_id": 424242})
    check(st == 404 and "no task" in js["error"], f"stop of an unknown task: 404: {st} {js}")
    st, js, _ = api.post("/api/chat/ack-user-action", {"task_id": "x1"})
    check(st == 400 and "integer id" in js["error"], f"a task id that is no id: 400: {st} {js}")
    st, js, _ = api.get("/api/chat/stream?session_id=777777")
    check(st == 404, f"the stream of an unknown session: 404: {st} {js}")
    st, js, _ = api.get("/task/31337")
    check(st == 404 and "no task" in js["error"], f"an unknown task: 404: {st} {js}")
    st, js, _ = api.get("/no/such/route")
    check(st == 404 and "error" in js, f"an unknown route: JSON 404: {st} {js}")
    st, js, _ = api.post("/task", {"script": "print(1)"})
    check(st == 403 and "--allow-scripts" in js["error"], f"Lua source without --allow-scripts: 403: {st} {js}")
    check(server.proc.poll() is None, "the server goes on after bad requests")
    st, js, _ = api.get("/healthz")
    check(st == 200 and js["ok"] is True, f"/healthz answers: {st} {js}")
    st, page, r = api.get("/")
    check(st == 200 and b"<html" in page.lower() or b"<!doctype" in page.lower(), f"the page at /: {st}")


def template_task(api, server):
    """A sentence an app module's template takes ("compute 12*34"): progress, live screen, answer."""
    r = api.ok("POST", "/api/chat/send", {"text": "compute 12*34"})
    sid, tid = r["session_id"], r["task_id"]
    s = Stream(server, sid)
    started = s.wait("task.started", tid, timeout=10)
    check(started[0][2]["text"] == "compute 12*34", f"task.started carries the text: {started[0][2]}")
    end = s.wait_end(tid, timeout=120)
    check(end[1] == "task.completed", f"the task completed: {end}")
    check("408" in end[2]["answer"], f"the answer says 408: {end[2]}")
    live = s.of("screen.live", tid)
    check(len(live) >= 1 and live[0][2]["image"].startswith("data:image/jpeg;base64,"),
          f"screen.live frames came: {len(live)}")
    items = {}
    for e in s.events:
        if e[1] in ("progress.append", "progress.update") and e[2]["task_id"] == tid:
            items[e[2]["index"]] = e[2]
    shots = [i for i in items.values() if i.get("screenshot")]
    check(len(shots) >= 3, f"at least 3 progress items with screenshots: {len(shots)} of {len(items)}")
    for e in s.events:
        check(e[0] is None or e[1] != "screen.live", "screen.live has no id")
        break
    for e in s.events:
        if e[1] != "screen.live":
            check("task_id" in e[2] and "time" in e[2], f"every event has task_id and time: {e[1]}")
            break
    last = max(shots, key=lambda i: i["index"])
    check(read_display(api, last["screenshot"], "template_last.png") == "408",
          "the last progress screenshot shows 408 on xcalc")
    view = api.ok("GET", f"/task/{tid}")
    check(view["status"] == "completed" and "408" in view["result"] and len(view["steps"]) >= 3,
          f"GET /task/{tid}: status, result, steps: {view['status']} {view['result']!r} {len(view['steps'])}")
    # SSE latency: from the step's commit (its ended_at in the run log) to its event's arrival.
    print(latency_line(sse_latencies_ms(s, DB, tid)))
    fps, n = live_fps(s, tid)
    print(f"live_fps_template_task {fps:.1f} ({n} frames)")
    # Resume: only the events after Last-Event-ID come.
    ids = [int(e[0]) for e in s.events if e[0]]
    s.close()
    r2 = Stream(server, sid, last_event_id=ids[1])
    wait_until(lambda: r2.events, 10, "the resumed stream's first event")
    first = [e for e in r2.events if e[0]][0]
    check(int(first[0]) == ids[2], f"Last-Event-ID {ids[1]} resumes at {ids[2]}: got {first[0]}")
    r2.close()
    return sid, tid


def side_by_side(api, server):
    """Two sessions, two workers, the autopilot on each: they run at the same time."""
    a = api.ok("POST", "/api/chat/send", {"text": "work out 12*34"})
    b = api.ok("POST", "/api/chat/send", {"text": "work out 21*3"})
    check(a["session_id"] != b["session_id"], "two sessions")
    # A third task while both workers are busy waits in the queue.
    c = api.ok("POST", "/api/chat/send", {"session_id": b["session_id"], "text": "work out 2+3"})
    health = wait_until(lambda: (lambda h: h if h["running"] == 2 and h["queued"] == 1 else None)(api.ok("GET", "/healthz")),
                        60, "two running tasks and one queued")
    check(api.ok("GET", f"/task/{c['task_id']}")["status"] == "queued", f"the third task is queued: {health}")
    sa, sb = Stream(server, a["session_id"]), Stream(server, b["session_id"])
    ea, eb = sa.wait_end(a["task_id"], 180), sb.wait_end(b["task_id"], 180)
    check(ea[1] == "task.completed" and eb[1] == "task.completed", f"both completed: {ea[1]} {eb[1]}")
    ta, tb = api.ok("GET", f"/task/{a['task_id']}"), api.ok("GET", f"/task/{b['task_id']}")
    overlap = ta["started_at"] < tb["ended_at"] and tb["started_at"] < ta["ended_at"]
    check(overlap, f"they ran side by side: {ta['started_at']}-{ta['ended_at']} and {tb['started_at']}-{tb['ended_at']}")
    ec = sb.wait_end(c["task_id"], 180)
    tc = api.ok("GET", f"/task/{c['task_id']}")
    check(ec[1] == "task.completed" and tc["started_at"] >= min(ta["ended_at"], tb["ended_at"]) - 0.5,
          f"the queued task ran once a worker was free and completed: {ec[1]} started {tc['started_at']}")
    shots = [e[2] for e in sa.of("progress.update") + sa.of("progress.append") if e[2].get("screenshot")]
    last = max(shots, key=lambda i: i["frame_id"])
    check(read_display(api, last["screenshot"], "agent_last.png") == "408", "the autopilot's last screenshot shows 408")
    fps, n = live_fps(sa, a["task_id"])
    print(f"live_fps_agent_task {fps:.1f} ({n} frames)")
    sa.close()
    sb.close()


def needs_user(api, server):
    """The model answers needs_user: task.awaiting_user with the ack button; the ack resumes it."""
    r = api.ok("POST", "/api/chat/send", {"text": "work out 12*34 after login"})
    s = Stream(server, r["session_id"])
    aw = s.wait("task.awaiting_user", r["task_id"], timeout=120)
    check(aw[0][2]["show_ack_button"] is True and aw[0][2]["text"], f"awaiting_user with the ack button: {aw[0][2]}")
    check(api.ok("GET", f"/task/{r['task_id']}")["status"] == "awaiting_user", "the task's status is awaiting_user")
    api.ok("POST", "/api/chat/ack-user-action", {"task_id": r["task_id"]})
    end = s.wait_end(r["task_id"], 180)
    check(end[1] == "task.completed", f"after the ack the task completed: {end}")
    st, js, _ = api.post("/api/chat/ack-user-action", {"task_id": r["task_id"]})
    check(st == 409, f"an ack to a task that does not wait: 409: {st} {js}")
    msgs = api.ok("GET", f"/api/sessions/{r['session_id']}")["messages"]
    check(any(m["role"] == "user" and m["text"] == "我已经操作" for m in msgs), "the ack is a message of the session")
    s.close()


def stop_mid_task(api, server):
    r = api.ok("POST", "/api/chat/send", {"text": "work out 98*76"})
    s = Stream(server, r["session_id"])
    s.wait("progress.append", r["task_id"], timeout=120)
    display = api.ok("GET", f"/task/{r['task_id']}")["display"]
    check(display and display.startswith(":"), f"a running task names its display: {display}")
    pid = xvfb_pid_of(display)
    check(pid, f"the task's Xvfb on {display} is in the Xvfb log")
    t0 = time.monotonic()
    api.ok("POST", "/api/chat/stop", {"task_id": r["task_id"]})
    end = s.wait_end(r["task_id"], 30)
    check(end[1] == "task.stopped", f"stop gives task.stopped: {end}")
    print(f"stop_to_task_stopped_ms {(end[3] - t0) * 1000:.0f}")
    wait_until(lambda: gone(pid), 10, f"the Xvfb of {display} (pid {pid}) to be gone")
    check(True, f"the stopped task's Xvfb {display} is gone")
    check(api.ok("GET", f"/task/{r['task_id']}")["status"] == "stopped", "the task's status is stopped")
    s.close()


def kill9_and_restart(eacu_args, env):
    server = Server(EACU, eacu_args, os.path.join(OUT, "serve2.log"), env)
    api = Api(server)
    r = api.ok("POST", "/api/chat/send", {"text": "work out 55*66"})
    s = Stream(server, r["session_id"])
    s.wait("progress.append", r["task_id"], timeout=120)
    display = api.ok("GET", f"/task/{r['task_id']}")["display"]
    pid = xvfb_pid_of(display)
    # Steps the worker reported committed: appended or updated with an outcome (an intent's
    # progress.append with status running is the step in flight). The kill comes after one.
    def committed():
        return len([e for e in s.of("progress.append", r["task_id"]) + s.of("progress.update", r["task_id"])
                    if e[2].get("status") != "running"])
    wait_until(lambda: committed() >= 1, 120, "a step of the task reported done")
    n_before = len([e for e in s.events if e[0]])
    steps_seen = committed()
    run_id = api.ok("GET", f"/task/{r['task_id']}").get("run_id")
    server.kill9()
    s.close()
    wait_until(lambda: gone(pid), 15, f"the killed server's task Xvfb (pid {pid}) to be gone")
    check(True, "the Xvfb of the killed server's task is gone")
    # Issue 15: the run log after SIGKILL of eacu serve mid-task, before any restart.
    db = sqlite3.connect(DB)
    check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "the run log passes PRAGMA integrity_check")
    ids = [row[0] for row in db.execute("SELECT id FROM runs ORDER BY id")]
    steps = db.execute("SELECT COUNT(*) FROM steps WHERE run_id = ?", (run_id,)).fetchone()[0] if run_id else 0
    db.close()
    listed = subprocess.run([EACU, "runs", "--db", DB, "--limit", "1000"], capture_output=True, text=True, timeout=30)
    check(listed.returncode == 0, f"eacu runs after the kill exits 0: {listed.stderr!r}")
    rows = {int(line.split()[0]): line for line in listed.stdout.splitlines() if line.split() and line.split()[0].isdigit()}
    check(set(ids) <= set(rows), f"eacu runs lists every run of the log: {sorted(set(ids) - set(rows))} missing")
    check(run_id in rows and " running " not in f" {rows[run_id]} ",
          f"the killed task's run {run_id} is not shown running: {rows.get(run_id)!r}")
    check(steps >= steps_seen, f"no committed step is lost (at most the one in flight): {steps} steps recorded, "
          f"{steps_seen} reported done before the kill")
    server = Server(EACU, eacu_args, os.path.join(OUT, "serve3.log"), env)
    api = Api(server)
    view = api.ok("GET", f"/task/{r['task_id']}")
    check(view["status"] == "interrupted" and view["error"].startswith("interrupted:"),
          f"after the restart the task is interrupted: {view['status']} {view['error']!r}")
    sess = api.ok("GET", f"/api/sessions/{r['session_id']}")
    check(any(m["text"] == "work out 55*66" for m in sess["messages"]), "the history keeps the user's message")
    s2 = Stream(server, r["session_id"])
    end = s2.wait_end(r["task_id"], 10)
    check(end[1] == "task.failed" and end[2]["error"].startswith("interrupted:"),
          f"the stream replays the history and ends the task as interrupted: {end}")
    check(len([e for e in s2.events if e[0]]) >= n_before + 1, "every event before the kill is still there")
    s2.close()
    check(server.stop() == 0, "eacu serve exits 0 on SIGTERM")


def tokens(env):
    out = subprocess.run([EACU, "serve", "--host", "0.0.0.0", "--port", "0", "--db", DB], capture_output=True,
                         text=True, timeout=30, env=env)
    check(out.returncode != 0 and "without --token" in out.stderr,
          f"a non-loopback bind without a token is refused: {out.returncode} {out.stderr!r}")
    out = subprocess.run([EACU, "serve", "--allow-scripts", "--port", "0", "--db", DB], capture_output=True,
                         text=True, timeout=30, env=env)
    check(out.returncode == 2 and "--token" in out.stderr, f"--allow-scripts needs a token: {out.stderr!r}")
    server = Server(EACU, ["--host", "0.0.0.0", "--token", "s3cret", "--allow-scripts", "--db", DB, "--workers", "1",
                           "--heartbeat", "0.3"],
                    os.path.join(OUT, "serve_token.log"), env)
    server.host = "127.0.0.1"
    st, js, r = Api(server).get("/healthz")
    check(st == 401 and "Bearer" in js["error"], f"no token: 401: {st} {js}")
    st, js, _ = Api(server, token="wrong").get("/healthz")
    check(st == 401, f"a wrong token: 401: {st}")
    st, js, _ = Api(server, token="s3cret").get("/healthz")
    check(st == 200 and js["ok"], f"the token: 200: {st} {js}")
    st, js, _ = Api(server).get("/healthz?access_token=s3cret")
    check(st == 200, f"?access_token=: 200: {st}")
    # With --allow-scripts (and the token), Lua source is a task: its returned string is the answer.
    api = Api(server, token="s3cret")
    r = api.ok("POST", "/task", {"script": "local x = 6 * 7\nreturn 'the answer is ' .. x"})
    view = wait_until(lambda: (lambda v: v if v["status"] not in ("queued", "running") else None)(
        api.ok("GET", f"/task/{r['task_id']}")), 60, "the script task to end")
    check(view["status"] == "completed" and view["result"] == "the answer is 42",
          f"a Lua source task runs and answers: {view['status']} {view['result']!r} {view['error']!r}")
    # An idle stream gets a heartbeat comment every --heartbeat seconds.
    s = Stream(server, r["session_id"], token="s3cret")
    beats = wait_until(lambda: [c for c in s.comments if c[0] == ": heartbeat"][:3] if len(
        [c for c in s.comments if c[0] == ": heartbeat"]) >= 3 else None, 10, "3 heartbeats")
    gaps = [b[1] - a[1] for a, b in zip(beats, beats[1:])]
    check(all(0.2 < g < 1.0 for g in gaps), f"heartbeats every 0.3 s on an idle stream: gaps {gaps}")
    s.close()
    check(server.stop() == 0, "the token server stops on SIGTERM")


def main():
    env = os.environ.copy()
    args = ["--workers", "2", "--launch", "xcalc", "--db", DB]
    server = Server(EACU, args, os.path.join(OUT, "serve.log"), env)
    api = Api(server)
    try:
        bad_requests(api, server)
        template_task(api, server)
        side_by_side(api, server)
        needs_user(api, server)
        stop_mid_task(api, server)
    finally:
        code = server.stop()
    check(code == 0, f"eacu serve exits 0 on SIGTERM: {code}")
    kill9_and_restart(args, env)
    tokens(env)
    print("serve_api: all passed")


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print("FAIL:", e, file=sys.stderr)
        sys.exit(1)
