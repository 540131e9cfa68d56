#!/usr/bin/env python3
"""eacu serve --queue redis:// and eacu worker end to end (issue 26), with a redis-server of the
test's own and real xcalc under Xvfb: Usage: redis_queue.py EACU OUT SCENARIO, SCENARIO one of
  tasks   start errors (unreachable, wrong or no password, no XAUTOCLAIM, another protocol), the
          registry (eacu workers, GET /api/workers), 12 tasks over 3 workers each run exactly
          once and complete, every session's SSE stream has every event in order, also across
          a server restart (Last-Event-ID), the password in no log, run log or API answer; the
          person's ack, input (a click while the remote run awaits them), take-over, hand-back
          and stop reach remote runs through the control stream.
  restart redis-server killed with -9 and restarted while a task runs and others are queued: the
          server and the worker reconnect, every task runs once and completes, nothing is lost,
          every run log passes PRAGMA integrity_check.
  bench   short tasks (the calculator template) per minute with 1, 2 and 4 workers on this
          machine, and Redis memory per finished task (timing: not under a sanitizer).
  chromium  --device chromium with no X display: a Lua task on a local page (tap, type, verify)
          through a local `eacu serve --device chromium`, then through `eacu serve --queue` and an
          `eacu worker --device chromium` (one Chromium, no Xvfb): it completes, its steps and
          the page's own live frames reach the SSE stream, its run is in the server's run log;
          the registry says device chromium; prints the live frames/s while the page changes
          and the person's click to input_done through Redis.
  faults  a worker killed between read and commit (EACU_FAULT): another completes the task once;
          a worker killed with -9 after its task's first step: the task ends lost, never re-run,
          no input after the kill; started again on the same run log (twice, killed with -9 between),
          it sends the lost task's run home once, never running it again; a worker paused (SIGSTOP) past its lease: it stops its run,
          and once it holds a lease again the lost task's run comes home (in the server's run
          log, marked lost, with every step, once); only the worker process paused (not its runs): the run stops itself on its lease.
Prints measurements as "name value" lines."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_lib import Fail, Redis, Worker, check, free_port, integrity, runs_of, wait_until  # noqa: E402
from serve_client import Api, Server, Stream, latency_line, live_fps, sse_latencies_ms  # noqa: E402

EACU, OUT, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
DB = os.path.join(OUT, "serve.db")
PASSWORD = "s3cret-Pw-26"


def eacu(*args, env=None, timeout=30):
    return subprocess.run([EACU, *args], capture_output=True, text=True, timeout=timeout, env=env or os.environ.copy())


def start_errors(redis):
    t0 = time.monotonic()
    r = eacu("serve", "--port", "0", "--queue", f"redis://127.0.0.1:{free_port()}", "--db", os.path.join(OUT, "e.db"))
    check(r.returncode == 1 and "cannot reach Redis at redis://127.0.0.1:" in r.stderr,
          f"serve with Redis unreachable: a clear error: {r.returncode} {r.stderr!r}")
    r = eacu("worker", "--queue", f"redis://:wrong-Pw-1@127.0.0.1:{redis.port}", "--db", os.path.join(OUT, "e.db"))
    check(r.returncode == 1 and "refused the password" in r.stderr and "wrong-Pw-1" not in r.stderr,
          f"a worker with a wrong password: a clear error without the password: {r.returncode} {r.stderr!r}")
    r = eacu("serve", "--port", "0", "--queue", f"redis://127.0.0.1:{redis.port}", "--db", os.path.join(OUT, "e.db"))
    check(r.returncode == 1 and "needs a password" in r.stderr and "EACU_REDIS_PASSWORD" in r.stderr,
          f"serve without the password: says how to give it: {r.returncode} {r.stderr!r}")
    env = os.environ.copy()
    env["EACU_REDIS_PASSWORD"] = PASSWORD
    r = eacu("workers", "--queue", f"redis://127.0.0.1:{redis.port}", env=env)
    check(r.returncode == 0 and PASSWORD not in r.stdout + r.stderr,
          f"eacu workers with the password from EACU_REDIS_PASSWORD: {r.returncode} {r.stdout!r} {r.stderr!r}")
    old = Redis(os.path.join(OUT, "redis-noclaim"), extra=["--rename-command", "XAUTOCLAIM", ""])
    try:
        r = eacu("serve", "--port", "0", "--queue", old.url(), "--db", os.path.join(OUT, "e.db"))
        check(r.returncode == 1 and "has no XAUTOCLAIM" in r.stderr and "redis_version" in r.stderr,
              f"serve on a Redis without XAUTOCLAIM: a clear error: {r.returncode} {r.stderr!r}")
    finally:
        old.stop()
    redis.cli("-n", "1", "SET", "eacu:protocol", "999")
    r = eacu("worker", "--queue", redis.url() + "/1", "--name", "oldie", "--db", os.path.join(OUT, "e.db"))
    check(r.returncode == 1 and "protocol 999" in r.stderr and "same eacu version" in r.stderr,
          f"a worker of another protocol version is refused: {r.returncode} {r.stderr!r}")
    check(time.monotonic() - t0 < 30, f"the start errors came at once, not after a hang: {time.monotonic() - t0:.1f} s")


def check_stream_order(stream, db_events, task_id, what):
    """The stream's persisted events are the run log's events of the session, in order, once."""
    got = [(int(e[0]), e[1]) for e in stream if e[0] is not None]
    want = [(i, t) for i, t in db_events]
    check(got == want, f"{what}: the SSE stream has every event of the session in order: "
                       f"{got[:6]}... ({len(got)}) vs {want[:6]}... ({len(want)})")
    types = [t for _, t in got]
    check(types[0] == "task.started" and types[-1] == "task.completed",
          f"{what}: task.started first, task.completed last: {types}")
    idx = [e[2]["index"] for e in stream if e[1] == "progress.append"]
    check(idx == list(range(1, len(idx) + 1)) and idx,
          f"{what}: progress items numbered 1..n without gaps or repeats: {idx}")


def db_events(session_id):
    import sqlite3
    c = sqlite3.connect(DB)
    try:
        return c.execute("SELECT id, type FROM task_events WHERE session_id = ? ORDER BY id", (session_id,)).fetchall()
    finally:
        c.close()


def worker_db_of(run_text):
    """The run log of the worker (w1..w3) whose runs hold a run of `run_text`."""
    for n in ("w1", "w2", "w3"):
        db = os.path.join(OUT, n + ".db")
        if any(run_text in (r[2] or "") for r in runs_of(db)):
            return db
    return None


def control(api, server, runs):
    """Through the control stream: the person's ack, a stop; the live screen; latencies."""
    # Queue to start with idle workers: the task's started_at (the worker's "started", relayed)
    # minus its created_at, for tasks sent one at a time.
    import sqlite3
    starts = []
    for a, b in ((2, 3), (4, 5), (6, 7)):
        t = api.ok("POST", "/task", {"task": f"compute {a}*{b}"})["task_id"]
        wait_until(lambda: api.ok("GET", f"/task/{t}")["status"] in ("completed", "failed"), 120, f"task {t} to end")
        c = sqlite3.connect(DB)
        created, started = c.execute("SELECT created_at, started_at FROM tasks WHERE id = ?", (t,)).fetchone()
        c.close()
        starts.append((started - created) * 1000)
    starts.sort()
    print(f"redis_queue_to_start_ms median {starts[1]:.0f} (n 3, idle workers: {', '.join(f'{s:.0f}' for s in starts)})")

    r = api.ok("POST", "/api/chat/send", {"text": "work out 12*34 after login"})
    s = Stream(server, r["session_id"])
    aw = s.wait("task.awaiting_user", r["task_id"], timeout=120)
    check(aw[0][2]["show_ack_button"] is True, f"a remote task awaits the person: {aw[0][2]}")
    # The person's input to a remote task that awaits them (issue 29 over Redis): a click on the
    # bare desktop (bottom right, away from xcalc) injected by the worker's run, recorded as a step
    # of actor "user", answered through the task's events stream.
    live = s.wait("screen.live", r["task_id"], timeout=30)[-1][2]
    t0 = time.monotonic()
    js = api.ok("POST", f"/api/tasks/{r['task_id']}/input",
                {"event": {"kind": "click", "x": live["width"] - 6, "y": live["height"] - 6}})
    print(f"redis_input_to_done_ms {(time.monotonic() - t0) * 1000:.0f}")
    check(js["seq"] >= 1 and js["step_id"] and js["step"].get("actor") == "user" and js["step"].get("action") == "tap",
          f"a click through POST /api/tasks/ID/input reached the remote run awaiting the person: {js}")
    user_items = wait_until(lambda: [e for e in s.of("progress.append", r["task_id"]) if e[2].get("actor") == "user"],
                            30, "the person's step as a progress item (actor user)")
    check(user_items[0][2]["screenshot"] and user_items[0][2]["screenshot"].startswith("/api/tasks/"),
          f"the person's step has its screenshot, from Redis: {user_items[0][2]}")
    api.ok("POST", "/api/chat/ack-user-action", {"task_id": r["task_id"]})
    end = s.wait_end(r["task_id"], 180)
    check(end[1] == "task.completed", f"the ack reached the remote run through Redis; it completed: {end}")
    fps, n = live_fps(s, r["task_id"])
    print(f"redis_live_fps_agent_task {fps:.1f} ({n} frames)")
    check(n >= 5, f"the remote worker's live screen reached the stream: {n} frames")
    db = worker_db_of("work out 12*34 after login")
    print("redis_" + latency_line(sse_latencies_ms(s, db, r["task_id"])) + " (step commit on the worker to SSE)")
    s.close()

    r = api.ok("POST", "/api/chat/send", {"text": "work out 98*76"})
    tid = r["task_id"]
    s = Stream(server, r["session_id"])
    # Taken over as soon as a worker runs it (its programs may still start: the take_over line
    # waits in the worker's TaskRunner until the run is there); paused at its first step
    # boundary; the person's click; handed back; then stopped.
    wait_until(lambda: api.ok("GET", f"/task/{tid}")["status"] == "running", 120, f"task {tid} to run on a worker")
    st, js, _ = api.post(f"/api/tasks/{tid}/hand-back", {})
    check(st == 409, f"hand-back of a remote task not taken over: 409: {st} {js}")
    api.ok("POST", f"/api/tasks/{tid}/take-over", {})
    st, js, _ = api.post(f"/api/tasks/{tid}/take-over", {})
    check(st == 409, f"a second take-over: 409: {st} {js}")
    s.wait("task.paused", tid, timeout=60)
    live = s.wait("screen.live", tid, timeout=30)[-1][2]
    js = api.ok("POST", f"/api/tasks/{tid}/input", {"event": {"kind": "click", "x": live["width"] - 6, "y": live["height"] - 6}})
    check(js["step"].get("actor") == "user", f"a click on the paused remote run: {js}")
    api.ok("POST", f"/api/tasks/{tid}/hand-back", {})
    s.wait("task.resumed", tid, timeout=30)
    st, js, _ = api.post(f"/api/tasks/{tid}/input", {"event": {"kind": "click", "x": 5, "y": 5}})
    check(st == 409, f"input to a remote run that was handed back: 409: {st} {js}")
    s.wait("progress.append", tid, timeout=120)
    t0 = time.monotonic()
    api.ok("POST", "/api/chat/stop", {"task_id": r["task_id"]})
    end = s.wait_end(r["task_id"], 30)
    check(end[1] == "task.stopped", f"a stop reached the remote run through Redis: {end}")
    print(f"redis_stop_to_task_stopped_ms {(end[3] - t0) * 1000:.0f}")
    st, js, _ = api.post("/api/chat/stop", {"task_id": r["task_id"]})
    check(st == 409, f"a second stop: 409: {st} {js}")
    s.close()


def tasks():
    redis = Redis(os.path.join(OUT, "redis"), password=PASSWORD)
    workers, server = [], None
    try:
        start_errors(redis)
        server = Server(EACU, ["--queue", redis.url(), "--db", DB, "--reaper", "0.5"], os.path.join(OUT, "serve.log"))
        api = Api(server)
        env = os.environ.copy()
        env["EACU_REDIS_PASSWORD"] = PASSWORD
        for i in range(3):
            url = redis.url() if i == 0 else redis.url(with_password=False)
            workers.append(Worker(EACU, OUT, f"w{i + 1}", url, ["--launch", "xcalc", "--lease", "8"], env=env))
        for w in workers:
            w.wait_printed("slot")
        listed = wait_until(lambda: len(api.ok("GET", "/api/workers")["workers"]) == 3 and api.ok("GET", "/api/workers"),
                            20, "3 workers in GET /api/workers")
        names = sorted(w["name"] for w in listed["workers"])
        check(names == ["w1", "w2", "w3"] and all(w["slots"] == 1 and w["device"] == "virtual" and w["protocol"] == 1
                                                  and w["age"] < 8 for w in listed["workers"]),
              f"GET /api/workers: name, slots, device, protocol, a recent heartbeat: {listed}")
        r = eacu("workers", "--queue", redis.url())
        check(r.returncode == 0 and all(n in r.stdout for n in names) and "virtual" in r.stdout,
              f"eacu workers lists them: {r.stdout!r}")

        # No digit twice in a task (xcalc's display is read back; a repeated key shows no change).
        pairs = [(12, 34), (13, 42), (14, 23), (15, 26), (16, 27), (17, 28), (18, 29), (19, 32), (21, 37), (23, 45),
                 (24, 56), (25, 67)]
        sent = []
        for a, b in pairs:
            js = api.ok("POST", "/api/chat/send", {"text": f"compute {a}*{b}"})
            sent.append((js["session_id"], js["task_id"], a * b))
        streams = {sid: Stream(server, sid) for sid, _, _ in sent}
        # A server restart while the tasks run: the relay goes on where it was, streams resume.
        wait_until(lambda: sum(1 for sid, tid, _ in sent if streams[sid].of("task.completed", tid)) >= 2, 240,
                   "two tasks to complete")
        before = {sid: list(s.events) for sid, s in streams.items()}
        for s in streams.values():
            s.close()
        check(server.stop() == 0, "the server stops on SIGTERM while tasks run on the workers")
        server = Server(EACU, ["--queue", redis.url(), "--db", DB, "--reaper", "0.5"], os.path.join(OUT, "serve.log"))
        api = Api(server)
        resumed = {}
        for sid, ev in before.items():
            ids = [int(e[0]) for e in ev if e[0] is not None]
            resumed[sid] = Stream(server, sid, last_event_id=ids[-1] if ids else None)
        t0 = time.monotonic()
        for sid, tid, _ in sent:
            if not any(e[1] == "task.completed" for e in before[sid]):
                resumed[sid].wait_end(tid, timeout=max(10, 300 - (time.monotonic() - t0)))
        elapsed = time.monotonic() - t0
        for sid, tid, product in sent:
            view = api.ok("GET", f"/task/{tid}")
            check(view["status"] == "completed" and str(product) in (view["result"] or ""),
                  f"task {tid} completed with {product}: {view['status']} {view['result']!r} {view['error']!r}")
            events = [e for e in before[sid] if e[0] is not None] + [e for e in resumed[sid].events if e[0] is not None]
            check_stream_order(events, db_events(sid), tid, f"session {sid}")
        print(f"redis_12_tasks_after_restart_s {elapsed:.1f}")
        # Step screenshots of a remote task come by reference, from Redis (§5.3).
        shots = [e[2]["screenshot"] for s in resumed.values() for e in s.events
                 if e[1].startswith("progress.") and e[2].get("screenshot")]
        check(shots and all(u.startswith("/api/tasks/") for u in shots), f"screenshots of remote tasks: {shots[:3]}")
        st, png, _ = api.get(shots[-1])
        check(st == 200 and png[:8] == b"\x89PNG\r\n\x1a\n", f"{shots[-1]} is a PNG from Redis: {st}")
        # Exactly once: every task is one run, in one worker's run log, with its inputs.
        runs = {w.name: runs_of(w.db) for w in workers}
        for sid, tid, product in sent:
            text = [f"compute {a}*{b}" for a, b in pairs if a * b == product][0]
            where = [(n, r) for n, rs in runs.items() for r in rs if text in (r[2] or "")]
            check(len(where) == 1 and where[0][1][1] == "passed" and where[0][1][3] > 0,
                  f"task {tid} ({text}) ran exactly once, passed, with input: {where}")
        # Each remote run was copied into the server's run log: eacu show works there.
        server_runs = {r[0]: r for r in runs_of(DB)}
        for sid, tid, product in sent:
            rid = api.ok("GET", f"/task/{tid}")["run_id"]
            text = [f"compute {a}*{b}" for a, b in pairs if a * b == product][0]
            orig = [r for rs in runs.values() for r in rs if text in (r[2] or "")][0]
            check(rid in server_runs and server_runs[rid][1:4] == orig[1:4],
                  f"task {tid}'s run is in the server's run log as run {rid}: {server_runs.get(rid)} vs {orig}")
        shown = eacu("show", str(rid), "--db", DB)
        check(shown.returncode == 0 and "tap" in shown.stdout, f"eacu show {rid} on the server's run log: {shown.stdout[:300]!r}")
        used = [n for n, rs in runs.items() if rs]
        check(len(used) >= 2, f"the tasks were spread over the workers: {[(n, len(rs)) for n, rs in runs.items()]}")
        control(api, server, runs)
        info = redis.cli("INFO", "memory")
        used_mem = [line for line in info.split("\n") if line.startswith("used_memory:")][0].split(":")[1].strip()
        keys = redis.cli("DBSIZE").strip()
        print(f"redis_used_memory_bytes_after_12_tasks {used_mem} ({keys} keys; events and state kept 3600 s)")
    finally:
        for w in workers:
            w.stop()
        if server:
            server.stop()
        redis.stop()
    # The password appears in no log, run log or page answer.
    for name in os.listdir(OUT):
        path = os.path.join(OUT, name)
        if os.path.isfile(path) and not name.startswith("redis"):
            with open(path, "rb") as f:
                check(PASSWORD.encode() not in f.read(), f"the password is not in {name}")
    for w in workers:
        check(integrity(w.db) == "ok", f"{w.name}'s run log passes PRAGMA integrity_check")
    check(integrity(DB) == "ok", "the server's run log passes PRAGMA integrity_check")


PAGE = """<!doctype html><html><body style="font: 28px sans-serif; margin: 30px">
<button id="b" style="font-size: 28px" onclick="document.getElementById('s').textContent = 'Accepted'">Submit</button>
<p id="s">Waiting</p>
<input id="i" style="font-size: 28px" placeholder="Type here"
       oninput="if (this.value === 'quokka') { document.getElementById('e').textContent = 'Matched'; startTicks(); }">
<p id="e">Mirror</p>
<p id="t">Still</p>
<script>
function startTicks() {
  const t0 = performance.now(), el = document.getElementById('t');
  const id = setInterval(() => {
    const ms = performance.now() - t0;
    el.textContent = ms < 6000 ? 'Tick ' + Math.floor(ms / 40) : 'Finished';
    el.style.marginLeft = (ms < 6000 ? Math.floor(ms / 40) % 300 : 0) + 'px';
    if (ms >= 6000) clearInterval(id);
  }, 40);
}
</script></body></html>"""

WEB_TASK = """open_url('file://{page}')
tap('text:Submit')
verify({{ text = 'Accepted' }}, 15)
tap('text:Type here')
input('quokka')
verify({{ text = 'Matched' }}, 15)
verify({{ text = 'Finished' }}, 30)
{tail}
return 'web ok'"""


def web_task(server, api, what, token):
    """Runs WEB_TASK as a Lua task; returns (task id, its stream, the live frames/s while the page
    animated, frames in that window)."""
    page = os.path.join(OUT, "page.html")
    with open(page, "w") as f:
        f.write(PAGE)
    r = api.ok("POST", "/task", {"script": WEB_TASK.format(page=page, tail="")})
    tid = r["task_id"]
    view = wait_until(lambda: (v := api.ok("GET", f"/task/{tid}")) and v.get("session_id") and v, 30, "the task's session")
    s = Stream(server, view["session_id"], token=token)
    end = s.wait_end(tid, 240)
    check(end[1] == "task.completed", f"{what}: the --device chromium task completed: {end} "
                                      f"{api.ok('GET', f'/task/{tid}')}")
    steps = s.of("progress.append", tid)
    check(len(steps) >= 6, f"{what}: its steps reached the SSE stream: {[e[2].get('title') for e in steps]}")
    live = s.of("screen.live", tid)
    check(len(live) >= 5, f"{what}: the page's own live frames reached the SSE stream: {len(live)}")
    # Live frames while the page changes (typing the word starts 6 s of animation): the longest
    # burst of frames received less than 1 s apart (frames are sent only on a change).
    bursts, cur = [], [live[0][3]]
    for e in live[1:]:
        if e[3] - cur[-1] < 1.0:
            cur.append(e[3])
        else:
            bursts.append(cur)
            cur = [e[3]]
    bursts.append(cur)
    window = max(bursts, key=len)
    span = window[-1] - window[0]
    check(span >= 3, f"{what}: a burst of live frames over the animation (6 s): {len(window)} frames in {span:.1f} s")
    fps = (len(window) - 1) / span
    w = live[-1][2]
    check(w["width"] == 1280 and w["height"] == 800, f"{what}: live frames of the page's size: {w['width']}x{w['height']}")
    s.close()
    return tid, fps, len(window)


def page_urls(endpoint):
    """The URLs of the page targets of the browser at `endpoint` (its /json/list)."""
    import urllib.request
    with urllib.request.urlopen(endpoint + "/json/list", timeout=10) as r:
        return [t["url"] for t in json.load(r) if t.get("type") == "page"]


def killed_task_page_is_closed(api, endpoint):
    """A task whose worker process is killed with SIGKILL cannot close its page: serve closes it
    (OrphanPages: a page no client is attached to on two looks 5 s apart)."""
    mark = "killed-task-page"
    script = (f'open_url("data:text/html,<title>{mark}</title><h1>Loop</h1>")\n'
              "for i = 1, 1000 do screenshot() sleep(0.2) end\nreturn 'not killed'")
    tid = api.ok("POST", "/task", {"script": script})["task_id"]
    wait_until(lambda: any(mark in u for u in page_urls(endpoint)), 60, "the task's page to open")
    workers = []
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{d}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm == "eacu" and b"--serve-fd" in argv and any(a.endswith(f"-task{tid}.lua".encode()) for a in argv):
            workers.append(int(d))
    check(len(workers) == 1, f"local serve: one worker process runs task {tid}: {workers}")
    os.kill(workers[0], signal.SIGKILL)
    t0 = time.monotonic()
    v = wait_until(lambda: (v := api.ok("GET", f"/task/{tid}"))["status"] not in ("queued", "running") and v, 60,
                   "the killed task to end")
    wait_until(lambda: not any(mark in u for u in page_urls(endpoint)), 30,
               f"serve to close the page of the killed task ({v['status']})")
    print(f"killed task ({v['status']}): its page was closed {time.monotonic() - t0:.1f} s after the kill")


def stopped_task_closes_its_page(api, endpoint):
    """A task stopped from the API while its page streams live frames: its page is open in the
    serve's Chromium while it runs and closed once the task is stopped (the worker waits for
    Target.closeTarget's answer although the stop cancelled its run: a page left open keeps a
    renderer per stopped task, which a long soak showed as memory that grew)."""
    def pages():
        return page_urls(endpoint)

    mark = "stopped-task-page"
    script = (f'open_url("data:text/html,<title>{mark}</title><h1>Loop</h1>")\n'
              "for i = 1, 1000 do screenshot() sleep(0.2) end\nreturn 'not stopped'")
    tid = api.ok("POST", "/task", {"script": script})["task_id"]
    wait_until(lambda: any(mark in u for u in pages()), 60, "the stopped task's page to open")
    api.ok("POST", "/api/chat/stop", {"task_id": tid})
    v = wait_until(lambda: (v := api.ok("GET", f"/task/{tid}"))["status"] not in ("queued", "running") and v, 60,
                   "the stopped task to end")
    check(v["status"] == "stopped", f"local serve: the task was stopped: {v}")
    # Target.closeTarget answers once Chromium has begun to close the page; the target leaves
    # /json/list when its renderer has gone, a moment later (ci57 saw it still listed at the
    # instant the task ended). A page left open stays listed: the orphan sweep would take it
    # only after two looks 5 s apart, past this bound's reach for a page closed by its own run.
    t0 = time.monotonic()
    wait_until(lambda: not any(mark in u for u in pages()), 4,
               "the stopped task's page to be closed by its own run")
    print(f"stopped task: its page was closed {time.monotonic() - t0:.2f} s after the task ended")


def chromium():
    # No X display anywhere: a --device chromium task must not need one.
    env = os.environ.copy()
    env.pop("DISPLAY", None)
    token = "t0ken-26c"
    # 1. A local eacu serve --device chromium: one Chromium for its workers, a page per task.
    local_db = os.path.join(OUT, "local.db")
    server = Server(EACU, ["--device", "chromium", "--workers", "2", "--db", local_db, "--token", token,
                           "--allow-scripts"], os.path.join(OUT, "serve-local.log"), env=env)
    api = Api(server, token=token)
    try:
        tid, fps, n = web_task(server, api, "local serve", token)
        print(f"serve_live_fps_chromium {fps:.1f} ({n} frames while the page changed)")
        import sqlite3
        c = sqlite3.connect(local_db)
        dev = c.execute("SELECT device FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0]
        c.close()
        check(dev.startswith("cdp http://127.0.0.1:"), f"local serve: the run was on a page of the serve's Chromium: {dev}")
        stopped_task_closes_its_page(api, dev.split()[1])
        killed_task_page_is_closed(api, dev.split()[1])
    finally:
        server.stop()

    # 2. Through Redis: eacu serve --queue and one eacu worker --device chromium.
    redis = Redis(os.path.join(OUT, "redis"))
    server = Server(EACU, ["--queue", redis.url(), "--db", DB, "--reaper", "0.5", "--token", token, "--allow-scripts"],
                    os.path.join(OUT, "serve.log"), env=env)
    api = Api(server, token=token)
    wk = Worker(EACU, OUT, "wc", redis.url(), ["--device", "chromium", "--slots", "2", "--allow-scripts"], env=env)
    try:
        wk.wait_printed("eacu worker: wc on", 60)
        ws = wait_until(lambda: [w for w in api.ok("GET", "/api/workers")["workers"] if w["name"] == "wc"], 30,
                        "the worker in GET /api/workers")
        check(ws[0]["device"] == "chromium", f"the registry says device chromium: {ws[0]}")
        r = eacu("workers", "--queue", redis.url())
        check(r.returncode == 0 and "chromium" in r.stdout, f"eacu workers lists device chromium: {r.stdout!r}")
        kids = subprocess.run(["ps", "-o", "comm=", "-p", ",".join(map(str, wk.descendants())) or "1"],
                              capture_output=True, text=True).stdout.split()
        check("chromium" in " ".join(kids) and "Xvfb" not in kids,
              f"one Chromium, no Xvfb under the worker: {sorted(set(kids))}")
        tid, fps, n = web_task(server, api, "remote worker", token)
        print(f"redis_live_fps_chromium {fps:.1f} ({n} frames while the page changed, remote worker)")
        check(fps >= 4, f"a remote worker's live screen reaches the page at >= 4 frames/s while it changes: {fps:.1f}")
        import sqlite3
        c = sqlite3.connect(DB)
        row = c.execute("SELECT r.device, r.status, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id) FROM runs r "
                        "ORDER BY r.id DESC LIMIT 1").fetchone()
        c.close()
        check(row and row[0].startswith("cdp http://127.0.0.1:") and row[1] == "passed" and row[2] >= 6,
              f"the remote run is in the server's run log: {row}")
        # The person's click on a remote chromium task that awaits them: click -> input_done.
        r = api.ok("POST", "/task", {"script": "ask_user('click anywhere, then OK')\nreturn 'asked'"})
        t = r["task_id"]
        view = wait_until(lambda: (v := api.ok("GET", f"/task/{t}")) and v.get("session_id") and v, 30, "session")
        s = Stream(server, view["session_id"], token=token)
        s.wait("task.awaiting_user", t, timeout=120)
        lat, sent = [], []
        for i in range(5):
            t0, w0 = time.monotonic(), time.time()
            js = api.ok("POST", f"/api/tasks/{t}/input", {"event": {"kind": "click", "x": 600 + i, "y": 700}})
            lat.append((time.monotonic() - t0) * 1000)
            check(js["step"].get("actor") == "user", f"a click on the remote chromium task: {js}")
            # params.sent_at: when the run sent the click to the device (one machine, one clock).
            sent.append((js["step"]["params"]["sent_at"] - w0) * 1000)
        lat.sort()
        sent.sort()
        print(f"redis_click_to_input_ms median {sent[2]:.0f} max {sent[-1]:.0f} (n 5, page click to the input sent "
              f"to the device by a remote run, through Redis)")
        print(f"redis_input_to_done_ms median {lat[2]:.0f} max {lat[-1]:.0f} (n 5, page click to input_done, with "
              f"the step's frames and effect wait)")
        api.ok("POST", "/api/chat/ack-user-action", {"task_id": t})
        end = s.wait_end(t, 60)
        check(end[1] == "task.completed", f"the asking task completed after the ack: {end}")
        s.close()
    finally:
        wk.stop()
        server.stop()
        redis.stop()
    check(not [p for p in wk.descendants()], "the worker left no process")


LOOP = "for i = 1, 400 do tap('calculator.btn_1') sleep(0.25) end\nreturn 'looped'"


def lost_runs_home(task_id):
    """[(run id, status, error, steps, frames)] of the task's run in the server's run log, if lost."""
    c = sqlite3.connect(DB)
    try:
        return c.execute("SELECT r.id, r.status, r.error, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id), "
                         "(SELECT COUNT(*) FROM frames f WHERE f.run_id = r.id) FROM tasks t JOIN runs r "
                         "ON r.id = t.run_id WHERE t.id = ? AND r.status = 'lost'", (task_id,)).fetchall()
    finally:
        c.close()


def faults():
    redis = Redis(os.path.join(OUT, "redis"))
    token = "t0ken-26"
    server = Server(EACU, ["--queue", redis.url(), "--db", DB, "--reaper", "0.5", "--token", token, "--allow-scripts"],
                    os.path.join(OUT, "serve.log"))
    api = Api(server, token=token)
    workers = []
    lease = 3.0
    wargs = ["--launch", "xcalc", "--lease", str(lease), "--heartbeat", "0.5", "--allow-scripts"]
    try:
        # 0. A worker without --allow-scripts does not run Lua source.
        z = Worker(EACU, OUT, "fz", redis.url(), ["--lease", str(lease)])
        z.wait_printed("slot")
        t = api.ok("POST", "/task", {"script": "return 'hi'"})
        view = wait_until(lambda: (v := api.ok("GET", f"/task/{t['task_id']}"))["status"] not in
                          ("queued", "running") and v, 60, "the script task to end")
        check(view["status"] == "failed" and "--allow-scripts" in view["error"] and runs_of(z.db) == [],
              f"a worker without --allow-scripts refuses Lua source: {view['status']} {view['error']!r}")
        z.stop()
        # 1. Read, then killed before the commit: another worker completes it, once.
        env = os.environ.copy()
        env["EACU_FAULT"] = "after_read_before_commit"
        a = Worker(EACU, OUT, "fa", redis.url(), wargs, env=env)
        workers.append(a)
        a.wait_printed("slot")
        t = api.ok("POST", "/task", {"task": "compute 7*8"})
        wait_until(lambda: a.proc.poll() is not None, 30, "the faulty worker to exit after reading the task")
        check(a.proc.returncode == 70 and "before committing" in a.text(),
              f"the faulty worker read the task and exited before committing it: {a.proc.returncode}")
        b = Worker(EACU, OUT, "fb", redis.url(), wargs)
        workers.append(b)
        view = wait_until(lambda: (v := api.ok("GET", f"/task/{t['task_id']}"))["status"] in
                          ("completed", "failed", "lost", "stopped") and v, 120, "the claimed task to end")
        check(view["status"] == "completed" and "56" in view["result"],
              f"another worker claimed and completed it: {view['status']} {view['result']!r} {view['error']!r}")
        check(len(runs_of(a.db)) == 0 and len(runs_of(b.db)) == 1,
              f"it ran once, on the second worker: {runs_of(a.db)} {runs_of(b.db)}")
        b.stop()

        # 2. kill -9 after the task's first step: lost within lease + reaper, never re-run.
        c = Worker(EACU, OUT, "fc", redis.url(), wargs)
        d = Worker(EACU, OUT, "fd", redis.url(), wargs)
        workers += [c, d]
        c.wait_printed("slot")
        d.wait_printed("slot")
        t = api.ok("POST", "/task", {"script": LOOP})
        holder = wait_until(lambda: next((w for w in (c, d) if "committed, running" in w.text()), None), 60,
                            "a worker to commit the looping task")
        other = d if holder is c else c
        wait_until(lambda: any(r[3] >= 1 for r in runs_of(holder.db)), 60, "the task's first input step")
        # ... and the server has it (a step the worker had no time to forward is not "done" for it).
        wait_until(lambda: api.ok("GET", f"/task/{t['task_id']}")["steps"], 30, "the server to relay the first step")
        kids = holder.descendants()
        holder.proc.send_signal(signal.SIGKILL)
        holder.proc.wait(10)
        killed_at = time.time()
        t_kill = time.monotonic()
        view = wait_until(lambda: (v := api.ok("GET", f"/task/{t['task_id']}"))["status"] not in
                          ("queued", "running") and v, 60, "the task to end after its worker died")
        lost_after = time.monotonic() - t_kill
        check(view["status"] == "lost" and f"worker {holder.name}" in view["error"] and "last step done: #" in view["error"],
              f"the task ended lost, naming the worker and its last step: {view['status']} {view['error']!r}")
        check(lost_after <= lease + 0.5 + 3.0, f"lost within lease + reaper (+3 s of slack): {lost_after:.1f} s")
        print(f"redis_lost_after_kill_s {lost_after:.1f} (lease {lease} s, reaper 0.5 s)")
        wait_until(lambda: not any(os.path.exists(f"/proc/{k}") and open(f"/proc/{k}/stat").read().split(") ")[1][0]
                                   not in "ZX" for k in kids), 20, "the killed worker's run and programs to end")
        late = [r for r in runs_of(holder.db) if r[5] and r[5] > killed_at]
        check(not late, f"no step started after the kill: {late}")
        # Nothing can take it up again: the task is lost in Redis, its entry is gone from the task
        # stream (deleted at the commit) and the group has nothing pending.
        state = redis.cli("HGET", f"eacu:task:{t['task_id']}", "state").strip()
        pending = redis.cli("XPENDING", "eacu:tasks", "eacu-workers").split()
        entries = redis.cli("XRANGE", "eacu:tasks", "-", "+")
        check(state == "lost" and pending[:1] == ["0"] and f'"task_id":{t["task_id"]}' not in entries.replace(" ", ""),
              f"the lost task cannot be read again: state {state!r}, pending {pending[:1]}, stream {entries[:200]!r}")
        check(runs_of(other.db) == [], f"no other worker started the lost task: {runs_of(other.db)}")
        other.stop()
        # The killed worker started again on the same run log (issue 36 item 4): it finds the
        # run it never delivered and sends it home once, marked lost, without running the task
        # again; killed with -9 once more and started again, it sends nothing.
        lost_id = t["task_id"]
        runs_before = runs_of(holder.db)
        key = f"eacu:worker:{holder.name}"
        for nth in (1, 2):
            wait_until(lambda: redis.cli("EXISTS", key).strip() == "0", lease + 5, "the killed worker's lease to end")
            back = Worker(EACU, OUT, holder.name, redis.url(), wargs)
            workers.append(back)
            said = wait_until(lambda: [ln for ln in back.text().splitlines() if "of earlier tasks not delivered" in ln]
                              [1:][nth - 1:] or back._died("its run log scan"), 60,
                              f"restart {nth} to look in its run log")[0]
            want = "1 run of earlier tasks" if nth == 1 else "0 runs of earlier tasks"
            check(want in said, f"restart {nth}: found {want.split(' of')[0]} not delivered: {said!r}")
            if nth == 1:
                back.wait_printed(f"task {lost_id}: its run (the task was lost) sent to the server", 60)
                home = wait_until(lambda: lost_runs_home(lost_id), 30, "the lost task's run in the server's run log")
                c = sqlite3.connect(holder.db)
                worker_steps = c.execute("SELECT COUNT(*) FROM steps WHERE run_id = ?", (runs_before[-1][0],)).fetchone()[0]
                c.close()
                check(len(home) == 1 and home[0][3] == worker_steps >= 1 and "came home" in home[0][2],
                      f"after a restart the lost run came home with its {worker_steps} steps, marked lost: {home}")
                wait_until(lambda: redis.cli("XLEN", "eacu:runs_home").strip() == "0", 10, "the runs_home entry consumed")
            back.proc.send_signal(signal.SIGKILL)
            back.proc.wait(10)
        check(back.text().count(f"task {lost_id}: its run (the task was lost) sent") == 1 and
              redis.cli("XLEN", "eacu:runs_home").strip() == "0",
              "restarted twice, the worker sent the lost run once")
        check(lost_runs_home(lost_id) == home, f"the server holds the lost run once: {lost_runs_home(lost_id)}")
        check([(r[0], r[3], r[5]) for r in runs_of(holder.db)] == [(r[0], r[3], r[5]) for r in runs_before],
              f"the restarted worker ran nothing again (no run, no step): {runs_of(holder.db)}")
        print(f"redis_lost_run_home_after_restart: run {home[0][0]} with {home[0][3]} steps and {home[0][4]} frames")

        # 3. SIGSTOP past the lease (the machine paused), then SIGCONT: it stops its run, no input.
        e = Worker(EACU, OUT, "fe", redis.url(), wargs)
        workers.append(e)
        e.wait_printed("slot")
        t = api.ok("POST", "/task", {"script": LOOP})
        wait_until(lambda: any(r[3] >= 1 for r in runs_of(e.db)), 60, "the paused worker's task to send input")
        tree = [e.proc.pid] + e.descendants()
        for p in tree:
            os.kill(p, signal.SIGSTOP)
        stopped_at = time.time()
        view = wait_until(lambda: (v := api.ok("GET", f"/task/{t['task_id']}"))["status"] not in
                          ("queued", "running") and v, 30, "the paused worker's task to end")
        check(view["status"] == "lost", f"the server ended the paused worker's task lost: {view['status']} {view['error']!r}")
        os.kill(e.proc.pid, signal.SIGCONT)  # the worker first: it must stop its run before that runs on
        e.wait_printed("stopping its run now", 20)
        for p in tree[1:]:
            try:
                os.kill(p, signal.SIGCONT)
            except ProcessLookupError:
                pass
        wait_until(lambda: "task " + str(t["task_id"]) + ": ended" in e.text(), 30, "the paused worker's run to end")
        late = [r for r in runs_of(e.db) if r[5] and r[5] > stopped_at]
        check(not late, f"the paused worker sent no input after the pause: {late}")
        check(e.proc.poll() is None, "the paused worker runs on (it takes new tasks with a new lease)")
        # The lost task's run comes home once (issue 36 item 4): the worker, holding a lease
        # again, sends its run; the server imports it into its run log marked lost and links it
        # to the task, with every step the worker recorded; no second copy comes.
        e.wait_printed(f"task {t['task_id']}: its run (the task was lost) sent to the server", 30)

        home = wait_until(lambda: lost_runs_home(t["task_id"]), 20, "the lost task's run in the server's run log")
        worker_run = [r for r in runs_of(e.db) if r[0] == max(x[0] for x in runs_of(e.db))][0]
        c = sqlite3.connect(e.db)
        worker_steps = c.execute("SELECT COUNT(*) FROM steps WHERE run_id = ?", (worker_run[0],)).fetchone()[0]
        c.close()
        check(len(home) == 1 and home[0][3] == worker_steps and home[0][3] >= 1 and "came home" in home[0][2],
              f"the lost run came home with its {worker_steps} steps, marked lost: {home}")
        wait_until(lambda: redis.cli("XLEN", "eacu:runs_home").strip() == "0", 10, "the runs_home entry consumed")
        again = lost_runs_home(t["task_id"])
        check(len(again) == 1 and again[0][0] == home[0][0], f"the run came home once: {again}")
        print(f"redis_lost_run_home: run {home[0][0]} with {home[0][3]} steps and {home[0][4]} frames, marked lost")

        # 4. Only the worker process SIGSTOPped (not its runs): the run knows the lease from the
        # worker's lease lines and refuses any input once it ran out, while the worker is still
        # stopped; no input step starts after the pause plus the lease.
        for w in workers:
            if w.proc.poll() is None:
                w.stop()  # the task must go to fg
        g = Worker(EACU, OUT, "fg", redis.url(), wargs)
        workers.append(g)
        g.wait_printed("slot")
        t = api.ok("POST", "/task", {"script": LOOP})
        wait_until(lambda: any(r[3] >= 2 for r in runs_of(g.db)), 60, "the worker-only paused task to send input")
        os.kill(g.proc.pid, signal.SIGSTOP)
        stopped_at = time.time()
        try:
            ended = wait_until(lambda: [r for r in runs_of(g.db) if r[1] not in ("running", None)], 30,
                               "the run to end by itself while its worker is stopped")
            print(f"redis_lease_run_ended_after_pause_s {time.time() - stopped_at:.1f} (lease {lease} s)")
            check(ended[0][1] == "interrupted", f"the run ended interrupted on its own lease: {ended[0]}")
            late = [r for r in runs_of(g.db) if r[5] and r[5] > stopped_at + lease]
            check(not late, f"no input after the lease ran out, with only the worker paused: {late}")
            view = wait_until(lambda: (v := api.ok("GET", f"/task/{t['task_id']}"))["status"] not in
                              ("queued", "running") and v, 30, "the worker-only paused task to end")
            check(view["status"] == "lost", f"the server ended it lost: {view['status']} {view['error']!r}")
        finally:
            os.kill(g.proc.pid, signal.SIGCONT)
        wait_until(lambda: "task " + str(t["task_id"]) + ": ended" in g.text(), 30, "the worker to see its run end")
        for w in workers:
            if w.proc.poll() is None:
                w.stop()
            if os.path.exists(w.db):
                check(integrity(w.db) == "ok", f"{w.name}'s run log passes PRAGMA integrity_check")
    finally:
        for w in workers:
            if w.proc.poll() is None:
                w.proc.kill()
        server.stop()
        redis.stop()


def restart():
    redis = Redis(os.path.join(OUT, "redis"))
    server = Server(EACU, ["--queue", redis.url(), "--db", DB, "--reaper", "0.5"], os.path.join(OUT, "serve.log"))
    api = Api(server)
    w = Worker(EACU, OUT, "wr", redis.url(), ["--launch", "xcalc", "--lease", "10"])
    try:
        w.wait_printed("slot")
        nums = [(2, 7), (3, 8), (4, 9), (5, 6)]
        sent = [api.ok("POST", "/task", {"task": f"compute {a}*{b}"})["task_id"] for a, b in nums]
        wait_until(lambda: "committed, running" in w.text(), 60, "the first task to start")
        check(len([t for t in sent if api.ok("GET", f"/task/{t}")["status"] == "queued"]) >= 2,
              "tasks wait in the queue while the worker is busy")
        redis.kill9()
        t0 = time.monotonic()
        redis.start()
        print(f"redis_restart_s {time.monotonic() - t0:.2f}")
        views = {}
        for t in sent:
            views[t] = wait_until(lambda: (v := api.ok("GET", f"/task/{t}"))["status"] not in
                                  ("queued", "running") and v, 240, f"task {t} to end after the Redis restart")
        for t, (a, b) in zip(sent, nums):
            check(views[t]["status"] == "completed" and str(a * b) in views[t]["result"],
                  f"task {t} completed after the restart: {views[t]['status']} {views[t]['result']!r} {views[t]['error']!r}")
        runs = runs_of(w.db)
        check(len(runs) == len(sent) and all(r[1] == "passed" for r in runs),
              f"each task ran once: {[(r[0], r[1], r[2]) for r in runs]}")
    finally:
        w.stop()
        server.stop()
        redis.stop()
    check(integrity(w.db) == "ok" and integrity(DB) == "ok", "every run log passes PRAGMA integrity_check")


def used_memory(redis):
    info = redis.cli("INFO", "memory")
    return int([line for line in info.split("\n") if line.startswith("used_memory:")][0].split(":")[1])


def bench():
    redis = Redis(os.path.join(OUT, "redis"))
    server = Server(EACU, ["--queue", redis.url(), "--db", DB], os.path.join(OUT, "serve.log"))
    api = Api(server)
    workers = []
    n_tasks = 8
    digits = [(1, 2), (3, 4), (5, 6), (7, 8), (2, 9), (3, 7), (4, 8), (6, 9)]
    try:
        for count in (1, 2, 4):
            while len(workers) < count:
                w = Worker(EACU, OUT, f"b{len(workers) + 1}", redis.url(), ["--launch", "xcalc"])
                w.wait_printed("slot")
                workers.append(w)
            mem0 = used_memory(redis)
            t0 = time.monotonic()
            ids = [api.ok("POST", "/task", {"task": f"compute {a}*{b}"})["task_id"] for a, b in digits[:n_tasks]]
            for t in ids:
                v = wait_until(lambda: (x := api.ok("GET", f"/task/{t}"))["status"] not in ("queued", "running") and x,
                               300, f"task {t} to end")
                check(v["status"] == "completed", f"bench task {t} completed: {v['status']} {v['error']!r}")
            dt = time.monotonic() - t0
            print(f"redis_tasks_per_min_{count}_workers {n_tasks / dt * 60:.1f} ({n_tasks} tasks in {dt:.1f} s)")
            if count == 1:
                per = (used_memory(redis) - mem0) / n_tasks
                print(f"redis_memory_per_finished_task_bytes {per:.0f} (kept for --events-ttl, default 3600 s)")
    finally:
        for w in workers:
            w.stop()
        server.stop()
        redis.stop()


if __name__ == "__main__":
    try:
        {"tasks": tasks, "faults": faults, "restart": restart, "bench": bench, "chromium": chromium}[SCENARIO]()
        print(f"redis_queue {SCENARIO}: all passed")
    except Fail as e:
        print("FAIL:", e, file=sys.stderr)
        sys.exit(1)
