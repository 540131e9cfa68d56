"""A client of `eacu serve` for the end-to-end tests: start and stop a server, call its JSON API,
and follow a session's SSE stream in a background thread. Every wait has a deadline."""
import http.client
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import threading
import time
import urllib.parse


class Fail(Exception):
    pass


def wait_until(pred, timeout, what):
    """Polls pred() until it returns a true value (returned) or `timeout` seconds pass (Fail)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise Fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


class Server:
    """`eacu serve --port 0 ARGS` as a child process; .url once it listens."""

    def __init__(self, eacu, args, log_path, env=None):
        self.log_path = log_path
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen([eacu, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=self.log, env=env or os.environ.copy())
        line = self.proc.stdout.readline().decode()
        m = re.search(r"listening on (http://\S+?)/? ", line)
        if not m:
            self.proc.kill()
            raise Fail(f"eacu serve did not start: {line!r}; its stderr is in {log_path}")
        self.url = m.group(1)
        host, port = urllib.parse.urlparse(self.url).netloc.rsplit(":", 1)
        self.host, self.port = host, int(port)
        # Drain stdout so the server never blocks on a full pipe.
        threading.Thread(target=lambda: self.proc.stdout.read(), daemon=True).start()

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise Fail("eacu serve did not stop within 30 s of SIGTERM")
        return self.proc.returncode


class Api:
    def __init__(self, server, token=None):
        self.host, self.port, self.token = server.host, server.port, token

    def request(self, method, path, body=None, raw=None, headers=None):
        """Returns (status, parsed JSON or bytes, headers)."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        h = dict(headers or {})
        if self.token:
            h.setdefault("Authorization", "Bearer " + self.token)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            h.setdefault("Content-Type", "application/json")
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        payload = r.read()
        c.close()
        if r.getheader("Content-Type", "").startswith("application/json"):
            return r.status, json.loads(payload), r
        return r.status, payload, r

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def ok(self, method, path, body=None):
        st, js, _ = self.request(method, path, body)
        if st != 200:
            raise Fail(f"{method} {path}: expected 200, got {st}: {js!r}")
        return js


class Stream:
    """Follows GET /api/chat/stream?session_id=S in a thread. `.events` holds (id, type, data,
    arrival monotonic time); comments are counted in `.comments`."""

    def __init__(self, server, session_id, token=None, last_event_id=None):
        self.events, self.comments, self.error = [], [], None
        self.lock = threading.Lock()
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        h = {"Accept": "text/event-stream"}
        if token:
            h["Authorization"] = "Bearer " + token
        if last_event_id is not None:
            h["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", f"/api/chat/stream?session_id={session_id}", headers=h)
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise Fail(f"stream: expected 200, got {self.resp.status}: {self.resp.read()!r}")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        ev = {}
        try:
            while True:
                line = self.resp.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line == "":
                    if "event" in ev:
                        with self.lock:
                            self.events.append((ev.get("id"), ev["event"], json.loads(ev.get("data", "{}")),
                                                time.monotonic()))
                    ev = {}
                elif line.startswith(":"):
                    with self.lock:
                        self.comments.append((line, time.monotonic()))
                else:
                    k, _, v = line.partition(":")
                    v = v[1:] if v.startswith(" ") else v
                    ev[k] = ev.get(k, "") + ("\n" if k == "data" and k in ev else "") + v
        except Exception as e:  # noqa: BLE001 (closed by close())
            self.error = e

    def close(self):
        try:
            self.conn.sock.shutdown(2)
        except Exception:  # noqa: BLE001
            pass
        self.conn.close()

    def of(self, type_, task_id=None):
        with self.lock:
            return [e for e in self.events if e[1] == type_ and (task_id is None or e[2].get("task_id") == task_id)]

    def wait(self, type_, task_id=None, timeout=60, count=1):
        return wait_until(lambda: len(self.of(type_, task_id)) >= count and self.of(type_, task_id), timeout,
                          f"{count} {type_} event(s) for task {task_id}")

    def wait_end(self, task_id, timeout=120):
        """The task's final event (completed, failed or stopped)."""
        ends = ("task.completed", "task.failed", "task.stopped")

        def end():
            with self.lock:
                for e in self.events:
                    if e[1] in ends and e[2].get("task_id") == task_id:
                        return e
            return None
        return wait_until(end, timeout, f"task {task_id} to end")


def sse_latencies_ms(stream, db_path, task_id):
    """For each progress event of `task_id` that names a frame: the time from its step's commit
    (steps.ended_at in the run log at `db_path`, written by the worker) to the event's arrival
    at `stream`, in ms."""
    wall_minus_mono = time.time() - time.monotonic()
    out = []
    con = sqlite3.connect(db_path)
    try:
        for _, type_, data, arrived in list(stream.events):
            if type_ in ("progress.append", "progress.update") and data.get("frame_id") and data["task_id"] == task_id:
                row = con.execute("SELECT ended_at FROM steps WHERE frame_after=? OR frame_before=? ORDER BY id LIMIT 1",
                                  (data["frame_id"], data["frame_id"])).fetchone()
                if row:
                    out.append((arrived + wall_minus_mono - row[0]) * 1000)
    finally:
        con.close()
    return out


def latency_line(lat):
    """'sse_latency_ms median M p90 P max X (n N)', or a line saying there were none."""
    if not lat:
        return "sse_latency_ms (no progress event named a frame)"
    v = sorted(lat)
    p90 = v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
    return f"sse_latency_ms median {statistics.median(v):.1f} p90 {p90:.1f} max {v[-1]:.1f} (n {len(v)})"


def live_fps(stream, task_id):
    """(frames per second, frames) of the screen.live events `stream` got for `task_id`."""
    live = stream.of("screen.live", task_id)
    if len(live) < 2 or live[-1][3] <= live[0][3]:
        return 0.0, len(live)
    return (len(live) - 1) / (live[-1][3] - live[0][3]), len(live)


def gated_task(server, token, script, what, timeout=180):
    """Posts the Lua task `script` (which first waits for the person: ask_user), opens its
    session's SSE stream, acks the wait and waits for the task's end, so the stream holds every
    live frame of the task. Returns (its end event, GET /task/ID, the stream: the caller closes it)."""
    api = Api(server, token=token)
    tid = api.ok("POST", "/task", {"script": script})["task_id"]
    session = wait_until(lambda: api.ok("GET", f"/task/{tid}").get("session_id"), 60, f"{what}: the task's session")
    stream = Stream(server, session, token=token)
    stream.wait("task.awaiting_user", tid, timeout=90)
    api.ok("POST", "/api/chat/ack-user-action", {"task_id": tid})
    end = stream.wait_end(tid, timeout)
    view = api.ok("GET", f"/task/{tid}")
    print(f"{what}: task {tid}: {view['status']}: {view.get('result')!r} {view.get('error')!r}")
    return end, view, stream


def run_devices(db_path):
    """The device column of every run in the run log at `db_path`."""
    con = sqlite3.connect(db_path)
    try:
        return [r[0] for r in con.execute("SELECT device FROM runs")]
    finally:
        con.close()
