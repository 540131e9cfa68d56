"""`eacu serve` killed with SIGKILL mid-task (issue 36, item 3), started by serve_killed.sh.

Two servers on one run log: local workers on Xvfb (--launch programs, a task whose launched
program leaves a child in a session of its own and a double-forked orphan) and on Chromium
(--device chromium). Each runs a task that loops; once the task's programs run, the test
records every process descended from the server (pid and start time, from /proc) and kills
the server with SIGKILL. Judged by the process table: every recorded process must end within
10 s (nothing the server started survives: Xvfb, the window manager, launched programs and
their children, Chromium and its helpers, the workers). A restart on the same run log shows
each task `interrupted` and its run closed: `interrupted` by its worker (stopped by the guard's
SIGTERM) or `crashed` by the server (a worker killed outright; unit [liveness] tests that
path), never left `running`."""
import os
import signal
import sqlite3
import sys
import time

from serve_client import Api, Fail, Server, wait_until

EACU, OUT = sys.argv[1], sys.argv[2]
DB = os.path.join(OUT, "runs.db")
TOKEN = "killed-token"
checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise Fail(what)
    checks += 1
    print("ok", what)


def procs():
    """{pid: (ppid, start time, comm)} of every process now."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            s = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        f = s[s.rindex(")") + 2:].split()
        if f[0] in "ZX":
            continue
        out[int(d)] = (int(f[1]), f[19], comm)
    return out


def descendants(root):
    table = procs()
    found, todo = {}, [root]
    while todo:
        p = todo.pop()
        for pid, (ppid, start, comm) in table.items():
            if ppid == p and pid not in found:
                found[pid] = (start, comm)
                todo.append(pid)
    return found


def alive(pid, start):
    return procs().get(pid, (0, None, ""))[1] == start


def read_calls(pid):
    """The read system calls process `pid` has made (/proc/PID/io syscr), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return int(next(line.split()[1] for line in f if line.startswith("syscr:")))
    except (OSError, StopIteration):
        return None


def guards_looked(root, what):
    """Waits until every eacu-guard below `root` has made a whole look at the process table since
    the call: a look reads each process's stat once, so a guard that made 3 * (processes now + 100)
    reads more has begun and ended at least one look after this moment (a look under way counts
    for at most one)."""
    guards = [p for p, (_, comm) in descendants(root).items() if comm == "eacu-guard"]
    check(guards, f"{what}: the server and its workers have their guards ({len(guards)})")
    need = 3 * (len(procs()) + 100)
    start = {p: read_calls(p) for p in guards}
    wait_until(lambda: all(read_calls(p) is None or read_calls(p) >= start[p] + need for p in guards), 30,
               f"{what}: each guard to look at the process table once more")


def kill_mid_task(args, script, needs, what):
    server = Server(EACU, ["--db", DB, "--token", TOKEN, "--allow-scripts", *args], os.path.join(OUT, what + ".log"))
    api = Api(server, token=TOKEN)
    tid = api.ok("POST", "/task", {"script": script})["task_id"]
    wait_until(lambda: api.ok("GET", f"/task/{tid}").get("status") == "running", 60, f"{what}: task {tid} running")
    wait_until(lambda: api.ok("GET", f"/task/{tid}").get("run_id"), 60, f"{what}: task {tid}'s run open")

    def ready():
        names = [c for _, c in descendants(server.proc.pid).values()]
        return all(sum(n.startswith(want) for n in names) >= k for want, k in needs)
    wait_until(ready, 60, f"{what}: the task's programs ({needs}) among the server's descendants")
    # The guards (eacu-guard, one per eacu process) record the process table every 250 ms: the
    # orphan (re-parented to its subreaper just now) is among what they recorded once each has
    # made one whole look after this moment.
    guards_looked(server.proc.pid, what)
    started = descendants(server.proc.pid)
    names = sorted({c for _, c in started.values()})
    print(f"{what}: {len(started)} processes under eacu serve {server.proc.pid}: {' '.join(names)}")
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(10)
    t0 = time.monotonic()
    try:
        wait_until(lambda: not [p for p, (s, _) in started.items() if alive(p, s)], 10, "")
    except Fail:
        left = [f"{p} {c}" for p, (s, c) in started.items() if alive(p, s)]
        for p in left:
            os.kill(int(p.split()[0]), signal.SIGKILL)  # the test ends what it started
        raise Fail(f"{what}: still running 10 s after SIGKILL of eacu serve: {left}")
    check(True, f"{what}: all {len(started)} processes the server started ended "
                f"{time.monotonic() - t0:.1f} s after its SIGKILL")
    return tid, args


def restart_shows(tid, args, what):
    server = Server(EACU, ["--db", DB, "--token", TOKEN, "--allow-scripts", *args], os.path.join(OUT, what + "2.log"))
    try:
        api = Api(server, token=TOKEN)
        view = api.ok("GET", f"/task/{tid}")
        check(view["status"] == "interrupted", f"{what}: after the restart task {tid} is interrupted: {view['status']}")
        run_id = view.get("run_id")
        check(run_id is not None, f"{what}: the task has its run")
        db = sqlite3.connect(DB)
        status, error, ended = db.execute("SELECT status, error, ended_at FROM runs WHERE id=?", (run_id,)).fetchone()
        db.close()
        # The worker, stopped by the guard's SIGTERM, may have closed its run itself (interrupted);
        # a run left open (its worker killed outright) the server closes as crashed. Never running.
        check(status in ("crashed", "interrupted") and ended is not None,
              f"{what}: its run {run_id} is closed ({status}, {error!r}, ended {ended})")
    finally:
        server.stop()


def main():
    x11 = kill_mid_task(
        ["--workers", "2", "--wm", "openbox", "--launch", "sh -c 'sleep 1001 & exec xcalc'"],
        'launch { "sh", "-c", "(setsid sleep 1002 &); sleep 1003 & exec xclock" }\n'
        'for i = 1, 100000 do sleep(0.2) end',
        [("Xvfb", 1), ("openbox", 1), ("xcalc", 1), ("xclock", 1), ("sleep", 3)], "x11")
    web = kill_mid_task(
        ["--workers", "1", "--device", "chromium"],
        'open_url("data:text/html,<h1>killed</h1>")\nfor i = 1, 100000 do sleep(0.2) end',
        [("chromium", 3)], "chromium")
    restart_shows(*x11, "x11")
    restart_shows(*web, "chromium")
    print(f"serve_killed: {checks} passed, 0 failed")


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
