#!/usr/bin/env python3
"""Soak of eacu serve (issue 36 item 5; a bench, not in make test). Two servers side by side:
`eacu serve --workers 2 --launch xcalc` (two local workers, each on its own Xvfb) and
`eacu serve --device chromium` (a page of a headless Chromium). N short tasks (default 300),
two of three on xcalc and one of three on a page, a tenth of them stopped by the API while they
run, a tenth hit by a fault (on xcalc: a program the task started is killed under it, then its
window is raised; on the page: a script that spins, so the page stops answering and the step
fails at its deadline). Every task must end in a terminal state, that state must not change
afterwards, and at 0, N/3, 2N/3 and N tasks the script prints a table row: resident memory of
the two servers together and of them with all their descendants, the servers' open file
descriptors, their processes, and the two run logs' size per task done. Growth after the first third is printed as a ratio to the first third's
value (the floor measured in the same run).

Usage: soak.py EACU [--tasks N] [--out DIR]. Needs Xvfb, xcalc, xclock and chromium."""
import argparse
import os
import shutil
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(root, "tests", "e2e"))
from serve_client import Api, Fail, Server, wait_until  # noqa: E402

TERMINAL = ("completed", "failed", "stopped", "interrupted", "lost")

XCALC_OK = "tap('calculator.btn_1')\ntap('calculator.btn_plus')\ntap('calculator.btn_1')\nreturn 'ok'"
XCALC_LONG = "for i = 1, 1000 do tap('calculator.btn_1') sleep(0.2) end\nreturn 'not stopped'"
XCALC_FAULT = ("local p = launch { 'xclock', '-geometry', '200x200+600+100' }\n"
               "local w = assert(window({ class = 'xclock' }, 10))\n"
               "os.execute('kill -9 ' .. p:pid())\n"
               "p:wait(5)\nw:focus()\nreturn 'not reached'")
PAGE = "data:text/html,<h1 style='font-size:40px'>Soak page</h1>"
PAGE_OK = f"open_url(\"{PAGE}\")\nwait('text:Soak page', 10)\nreturn 'ok'"
PAGE_LONG = f"open_url(\"{PAGE}\")\nfor i = 1, 1000 do screenshot() sleep(0.2) end\nreturn 'not stopped'"
PAGE_FAULT = ("open_url(\"data:text/html,<h1>Spin</h1><script>setTimeout(() => { while (true) {} }, 300)</script>\")\n"
              "sleep(0.6)\nstep { wait = 'text:Never here', timeout = 2 }\nreturn 'not reached'")


def tree(pid):
    """pid and all its descendants (from /proc)."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def names(pids):
    """'command xN (RSS MB)' for each command among `pids`, largest RSS first: what the all-RSS
    column is made of."""
    by = {}
    for p in pids:
        try:
            with open(f"/proc/{p}/comm") as f:
                c = f.read().strip()
        except OSError:
            continue
        n, kb = by.get(c, (0, 0))
        by[c] = (n + 1, kb + rss_kb(p))
    return ", ".join(f"{c} x{n} ({kb / 1024:.0f} MB)" for c, (n, kb) in sorted(by.items(), key=lambda i: -i[1][1]))


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def db_bytes(db):
    return sum(os.path.getsize(db + s) for s in ("", "-wal", "-shm") if os.path.exists(db + s))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eacu")
    ap.add_argument("--tasks", type=int, default=300)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="eacu-soak-")
    os.makedirs(os.path.join(out, "tmp"), exist_ok=True)
    env = dict(os.environ, EACU_HOME=root, TMPDIR=os.path.join(out, "tmp"))
    env.pop("DISPLAY", None)
    token = "soak-t0ken"
    dbs = {"x11": os.path.join(out, "x11.db"), "page": os.path.join(out, "page.db")}
    servers = {
        "x11": Server(a.eacu, ["--workers", "2", "--launch", "xcalc", "--db", dbs["x11"], "--token", token,
                               "--allow-scripts"], os.path.join(out, "x11.log"), env),
        "page": Server(a.eacu, ["--device", "chromium", "--db", dbs["page"], "--token", token, "--allow-scripts"],
                       os.path.join(out, "page.log"), env),
    }
    apis = {k: Api(s, token=token) for k, s in servers.items()}
    n = a.tasks
    marks = sorted({0, n // 3, 2 * n // 3, n})
    rows, ends, counts = [], {}, {}
    t_start = time.monotonic()

    def sample(done):
        procs = {k: tree(s.proc.pid) for k, s in servers.items()}
        row = {"tasks": done,
               "serve_rss_mb": sum(rss_kb(s.proc.pid) for s in servers.values()) / 1024,
               "all_rss_mb": sum(rss_kb(p) for ps in procs.values() for p in ps) / 1024,
               "serve_fds": sum(fds(s.proc.pid) for s in servers.values()),
               "processes": sum(len(ps) for ps in procs.values()),
               "runlog_mb": sum(db_bytes(d) for d in dbs.values()) / 2**20,
               "t_s": time.monotonic() - t_start}
        row["runlog_kb_per_task"] = row["runlog_mb"] * 1024 / done if done else 0
        rows.append(row)
        print(f"SOAK tasks={done} serve_rss_mb={row['serve_rss_mb']:.1f} all_rss_mb={row['all_rss_mb']:.1f} "
              f"serve_fds={row['serve_fds']} processes={row['processes']} runlog_mb={row['runlog_mb']:.2f} "
              f"runlog_kb_per_task={row['runlog_kb_per_task']:.1f} elapsed_s={row['t_s']:.0f}", flush=True)
        for k, ps in procs.items():
            print(f"SOAK processes tasks={done} {k}: {names(ps)}", flush=True)

    try:
        sample(0)
        for i in range(n):
            kind = "page" if i % 3 == 2 else "x11"
            mode = "stop" if i % 10 == 3 else "fault" if i % 10 == 7 else "ok"
            script = {("x11", "ok"): XCALC_OK, ("x11", "stop"): XCALC_LONG, ("x11", "fault"): XCALC_FAULT,
                      ("page", "ok"): PAGE_OK, ("page", "stop"): PAGE_LONG, ("page", "fault"): PAGE_FAULT}[(kind, mode)]
            api = apis[kind]
            tid = api.ok("POST", "/task", {"script": script})["task_id"]
            if mode == "stop":
                wait_until(lambda: api.ok("GET", f"/task/{tid}")["status"] == "running", 120, f"task {tid} to run")
                api.ok("POST", "/api/chat/stop", {"task_id": tid})
            v = wait_until(lambda: (v := api.ok("GET", f"/task/{tid}"))["status"] in TERMINAL and v, 180,
                           f"task {tid} ({kind} {mode}) to end")
            ends[(kind, tid)] = v["status"]
            counts[(kind, mode, v["status"])] = counts.get((kind, mode, v["status"]), 0) + 1
            if i + 1 in marks:
                sample(i + 1)
        # Every end stays what it was (no task ended twice).
        changed = {k: (s, apis[k[0]].ok("GET", f"/task/{k[1]}")["status"]) for k, s in ends.items()}
        changed = {k: v for k, v in changed.items() if v[0] != v[1]}
        print("SOAK ends " + " ".join(f"{k}/{m}:{s}={c}" for (k, m, s), c in sorted(counts.items())))
        if changed:
            raise Fail(f"task ends changed afterwards: {changed}")
        if len(rows) > 2:
            base = rows[1]
            last = rows[-1]
            for key in ("serve_rss_mb", "all_rss_mb", "serve_fds", "runlog_kb_per_task"):
                if base[key]:
                    print(f"SOAK growth {key}: {last[key] / base[key]:.2f}x from {base['tasks']} to {last['tasks']} tasks")
    finally:
        for s in servers.values():
            s.stop(60)
        if not a.out:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
