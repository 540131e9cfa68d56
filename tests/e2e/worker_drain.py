#!/usr/bin/env python3
"""eacu worker --drain S (issue 35), with eacu serve --queue on a redis-server of the test's own:
  1. SIGTERM while a task runs: the worker takes no new task (one queued meanwhile stays queued,
     its registry entry says draining), the running task ends by itself (completed), then the
     worker unregisters and exits 0; the queued task then runs on another worker, once.
  2. SIGTERM with a task that outlasts --drain: the worker stops it after S seconds (it ends
     stopped, not completed) and exits.
  3. A second SIGTERM during a drain stops the running task at once.
Usage: worker_drain.py EACU OUT"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redis_lib import Redis, Worker, check, runs_of, wait_until  # noqa: E402
from serve_client import Api, Server  # noqa: E402

EACU, OUT = sys.argv[1], sys.argv[2]
TOKEN = "dr4in-35"
WARGS = ["--allow-scripts", "--lease", "3", "--heartbeat", "0.5"]


def ended(api, tid, timeout):
    return wait_until(lambda: (v := api.ok("GET", f"/task/{tid}"))["status"] not in ("queued", "running") and v,
                      timeout, f"task {tid} to end")


def stream_id(entry_id):
    return tuple(int(x) for x in entry_id.split("-"))


def group_read(redis, task_id):
    """Whether the workers' consumer group has read the task's entry of the task stream (its
    last-delivered-id is at or past the entry's id)."""
    lines = redis.cli("XRANGE", "eacu:tasks", "-", "+").splitlines()
    entry = next(lines[i - 2] for i, ln in enumerate(lines) if f'"task_id":{task_id},' in ln.replace(" ", ""))
    info = redis.cli("XINFO", "GROUPS", "eacu:tasks").splitlines()
    last = info[info.index("last-delivered-id") + 1]
    return stream_id(last) >= stream_id(entry)


def listed(api, name):
    return [w for w in api.ok("GET", "/api/workers")["workers"] if w["name"] == name]


def main():
    redis = Redis(os.path.join(OUT, "redis"))
    server = Server(EACU, ["--queue", redis.url(), "--db", os.path.join(OUT, "serve.db"), "--token", TOKEN,
                           "--allow-scripts", "--reaper", "0.5"], os.path.join(OUT, "serve.log"))
    api = Api(server, token=TOKEN)
    workers = []
    try:
        # 1. Drain: the running task completes, a new one waits for another worker.
        a = Worker(EACU, OUT, "da", redis.url(), WARGS + ["--slots", "2", "--drain", "60"])
        workers.append(a)
        a.wait_printed("slot", 60)
        t1 = api.ok("POST", "/task", {"script": "sleep(6)\nreturn 'first done'"})["task_id"]
        wait_until(lambda: f"task {t1}: committed" in a.text(), 60, "the first task to start on da")
        a.proc.send_signal(signal.SIGTERM)
        t_term = time.monotonic()
        a.wait_printed("draining: no new task", 10)
        entry = wait_until(lambda: (e := listed(api, "da")) and e[0]["draining"] and e, 10,
                           "GET /api/workers to say da is draining")
        check(entry[0]["busy"] == 1, f"the draining worker still holds its task: {entry}")
        t2 = api.ok("POST", "/task", {"script": "return 'second done'"})["task_id"]
        v1 = ended(api, t1, 60)
        check(v1["status"] == "completed" and v1["result"] == "first done",
              f"the running task ended by itself during the drain: {v1['status']} {v1.get('result')!r} {v1.get('error')!r}")
        wait_until(lambda: a.proc.poll() is not None, 20, "da to exit once drained")
        print(f"drain_exit_after_sigterm_s {time.monotonic() - t_term:.1f}")
        # da had a free slot for the whole drain (until it exited, with no other worker): the
        # workers' group never read t2's entry of the task stream.
        check(api.ok("GET", f"/task/{t2}")["status"] == "queued" and f"task {t2}" not in a.text() and
              not group_read(redis, t2),
              f"a draining worker takes no new task: {api.ok('GET', f'/task/{t2}')['status']}")
        check(a.proc.returncode == 0 and "drained: no task running" in a.text(),
              f"da exited 0 once its task ended: {a.proc.returncode}")
        check(not listed(api, "da"), "da unregistered on exit")
        b = Worker(EACU, OUT, "db", redis.url(), WARGS)
        workers.append(b)
        v2 = ended(api, t2, 90)
        check(v2["status"] == "completed" and v2["result"] == "second done",
              f"the task queued during the drain ran on another worker: {v2['status']} {v2.get('error')!r}")
        check(len(runs_of(a.db)) == 1 and len(runs_of(b.db)) == 1, "each task ran once")
        b.stop()

        # 2. The drain time runs out: the task still running is stopped, the worker exits.
        c = Worker(EACU, OUT, "dc", redis.url(), WARGS + ["--drain", "2"])
        workers.append(c)
        c.wait_printed("slot", 60)
        t3 = api.ok("POST", "/task", {"script": "sleep(120)\nreturn 'never'"})["task_id"]
        wait_until(lambda: any(r[1] == "running" for r in runs_of(c.db)), 60, "the long task to run on dc")
        c.proc.send_signal(signal.SIGTERM)
        t_term = time.monotonic()
        wait_until(lambda: c.proc.poll() is not None, 30, "dc to exit after its drain time")
        took = time.monotonic() - t_term
        print(f"drain_timeout_exit_s {took:.1f} (--drain 2)")
        check(2 <= took < 20 and c.proc.returncode == 0 and "drain time over" in c.text(),
              f"dc stopped its task after --drain 2 and exited: {took:.1f} s, exit {c.proc.returncode}")
        v3 = ended(api, t3, 30)
        check(v3["status"] != "completed", f"the task that outlasted the drain was stopped: {v3['status']} {v3.get('error')!r}")
        print(f"task outlasting the drain: {v3['status']}: {v3.get('error')!r}")

        # 3. A second SIGTERM stops at once.
        d = Worker(EACU, OUT, "dd", redis.url(), WARGS + ["--drain", "600"])
        workers.append(d)
        d.wait_printed("slot", 60)
        t4 = api.ok("POST", "/task", {"script": "sleep(120)\nreturn 'never'"})["task_id"]
        wait_until(lambda: any(r[1] == "running" for r in runs_of(d.db)), 60, "the long task to run on dd")
        d.proc.send_signal(signal.SIGTERM)
        d.wait_printed("draining: no new task", 10)
        # Positive: the registry says dd drains while its task still runs (not a pause and a look).
        wait_until(lambda: (e := listed(api, "dd")) and e[0]["draining"] and e[0]["busy"] == 1, 10,
                   "GET /api/workers to say dd drains with its task running")
        check(d.proc.poll() is None, "dd drains (still running) after one SIGTERM")
        d.proc.send_signal(signal.SIGTERM)
        t_term = time.monotonic()
        wait_until(lambda: d.proc.poll() is not None, 30, "dd to exit after a second SIGTERM")
        check(time.monotonic() - t_term < 15 and "SIGTERM: stopping" in d.text(),
              f"a second SIGTERM stops at once: {time.monotonic() - t_term:.1f} s")
        v4 = ended(api, t4, 30)
        check(v4["status"] != "completed", f"its task was stopped: {v4['status']}")
    finally:
        for w in workers:
            if w.proc.poll() is None:
                w.proc.kill()
        server.stop()
        redis.stop()
    print("worker_drain: ok")


main()
