#!/usr/bin/env python3
"""Plays the server's side of the worker protocol (docs/serve-protocol.md §1) for
tests/e2e/worker_protocol.sh: starts its own Xvfb (-displayfd) and xcalc, spawns `eacu run` with
one end of a socketpair as fd 3, reads the JSON lines with deadlines and answers awaiting_user
with an ack. Every scenario checks what it was sent and what the run log holds; it touches only
the processes it started (by pid) and stops them at the end.

Usage: worker_protocol.py EACU OUT ROOT   (the model server's env is set by the caller)
"""
import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import time

EACU, OUT, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
DB = os.path.join(OUT, "runs.db")
STARTED = []  # processes this driver started, stopped at the end


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def start_xvfb():
    r, w = os.pipe()
    p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                         pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=open(os.path.join(OUT, "xvfb.err"), "w"))
    STARTED.append(p)
    os.close(w)
    buf, deadline = b"", time.monotonic() + 20
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or p.poll() is not None:
            fail("Xvfb did not report its display within 20 s")
        if select.select([r], [], [], left)[0]:
            chunk = os.read(r, 64)
            if not chunk:
                fail("Xvfb closed -displayfd without a display number")
            buf += chunk
    os.close(r)
    return ":" + buf.decode().strip()


def eacu(args, **kw):
    return subprocess.run([EACU] + args, capture_output=True, text=True, timeout=120, **kw)


def read_display(display):
    r = eacu(["run", os.path.join(ROOT, "tests/e2e/read_display.lua"), "--display", display,
              "--db", os.path.join(OUT, "read.db")])
    expect(r.returncode == 0, f"reading xcalc's display failed: {r.stderr}")
    return r.stdout.strip().split("display=")[-1]


class Worker:
    """One `eacu run ... --serve-fd 3`: the server's end of the socketpair, its lines, its exit."""

    def __init__(self, args, env=None):
        self.sock, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fd = child.fileno()
        # The worker's end becomes its fd 3, as eacu serve spawns it (bash moves it there and
        # execs; dash takes only one-digit descriptors).
        cmd = ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{fd} {fd}<&-', EACU, "run", "--serve-fd", "3"] + args
        self.err_path = os.path.join(OUT, f"worker{len(STARTED)}.err")
        self.proc = subprocess.Popen(cmd, pass_fds=(fd,), stdout=subprocess.DEVNULL,
                                     stderr=open(self.err_path, "w"), env=env)
        STARTED.append(self.proc)
        child.close()
        self.buf = b""
        self.lines = []

    def stderr(self):
        return open(self.err_path).read()

    def next(self, timeout=60):
        """The next line as JSON; fails after `timeout` seconds or at end of input."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                fail(f"no line from the worker within {timeout} s (so far: {self.types()}); stderr: {self.stderr()}")
            if select.select([self.sock], [], [], left)[0]:
                chunk = self.sock.recv(65536)
                if not chunk:
                    fail(f"the worker closed the channel after {self.types()}; stderr: {self.stderr()}")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            obj = json.loads(line)
        except ValueError:
            fail(f"a line that is not JSON: {line!r}")
        expect(isinstance(obj, dict) and "type" in obj, f"a line without a type: {line!r}")
        self.lines.append(obj)
        return obj

    def until(self, kind, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            obj = self.next(max(0.1, deadline - time.monotonic()))
            if obj["type"] == kind:
                return obj
            expect(obj["type"] != "end", f"the run ended before a {kind} line: {obj}; stderr: {self.stderr()}")

    def ack(self, text="我已经操作"):
        self.sock.sendall((json.dumps({"type": "ack", "text": text}, ensure_ascii=False) + "\n").encode())

    def wait(self, timeout=60):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            fail(f"the worker did not exit within {timeout} s; stderr: {self.stderr()}")

    def types(self):
        return [l["type"] for l in self.lines]


def lua_script(name, source):
    """Writes the Lua script OUT/name and returns its path."""
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        f.write(source)
    return path


def db():
    return sqlite3.connect(DB)


def check_steps_against_log(w, run_id):
    """Each step line is the committed row: same id, action, status and frames, frames stored."""
    steps = [l["step"] for l in w.lines if l["type"] == "step"]
    con = db()
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT id, action, status, frame_before, frame_after FROM steps WHERE run_id=?", (run_id,))}
    expect(len(steps) == len(rows), f"{len(steps)} step lines for {len(rows)} steps in the run log")
    for s in steps:
        expect(s["id"] in rows, f"step line {s['id']} is not a step of run {run_id}")
        expect(rows[s["id"]] == (s["action"], s["status"], s["frame_before"], s["frame_after"]),
               f"step line {s} differs from its row {rows[s['id']]}")
        for f in (s["frame_before"], s["frame_after"]):
            if f is not None:
                expect(con.execute("SELECT COUNT(*) FROM frames WHERE id=? AND run_id=?", (f, run_id)).fetchone()[0] == 1,
                       f"frame {f} of step {s['id']} is not in the run log")
    return steps


def scenario_needs_user(display):
    """The autopilot needs the person first (needs_user), waits for the ack, then computes 12*34."""
    t0 = time.monotonic()
    w = Worker(["--task", "compute 12*34 after login", "--display", display, "--db", DB])
    first = w.next()
    expect(first["type"] == "run" and isinstance(first["run_id"], int), f"first line: {first}")
    run_id = first["run_id"]
    wait = w.until("awaiting_user")
    expect(wait["kind"] == "needs_user", f"awaiting_user kind: {wait}")
    expect("请先登录" in wait["text"], f"awaiting_user text: {wait}")
    expect(db().execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()[0] == "running",
           "the run is running while it waits")
    w.ack("我已经操作")
    end = w.until("end")
    code = w.wait()
    expect(end["status"] == "passed" and end["error"] == "", f"end line: {end}; stderr: {w.stderr()}")
    expect(code == 0, f"exit code {code}")
    types = w.types()
    expect(types[0] == "run" and types[-1] == "end", f"line order: {types}")
    expect(types.count("answer") == 1 and types[-2] == "answer", f"one answer right before end: {types}")
    answer = [l for l in w.lines if l["type"] == "answer"][0]["text"]
    expect(answer == "结果已显示", f"the answer is the autopilot's done message, got {answer!r}")
    steps = check_steps_against_log(w, run_id)
    actions = [s["action"] for s in steps]
    expect(actions[0] == "needs_user", f"the first step is the person's: {actions}")
    person = steps[0]
    expect(person["method"] == "person" and person["params"]["answer"] == "我已经操作", f"the needs_user step: {person}")
    taps = [s for s in steps if s["action"] == "tap"]
    expect(len(taps) == 7, f"7 taps (AC 1 2 * 3 4 =), got {actions}")
    expect(all(t["status"] == "ok" and t["frame_before"] and t["frame_after"] and t["input"] for t in taps),
           f"taps with frames and input points: {taps}")
    expect(actions[-1] == "autopilot" and steps[-1]["status"] == "ok", f"the autopilot's summary step last: {actions}")
    history = steps[-1]["params"]["history"]
    expect(history[0].startswith("Step 1: 需要用户：") and "用户已操作: 我已经操作" in history[0],
           f"the history says the person acted: {history}")
    # Each tap is announced first: an intent line (the model's thought) right before its step.
    for i, l in enumerate(w.lines):
        if l["type"] == "step" and l["step"]["action"] == "tap":
            expect(w.lines[i - 1]["type"] == "intent" and w.lines[i - 1]["text"].startswith("点击 "),
                   f"the line before tap {l['step']['id']} is {w.lines[i - 1]}")
    got = read_display(display)
    expect(got == "408", f"xcalc should read 408, reads {got!r}")
    con = db()
    expect(con.execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()[0] == "passed", "the run passed")
    print(f"needs_user: {len(w.lines)} lines ({types.count('step')} steps, {types.count('intent')} intents), "
          f"ack resumed the autopilot, xcalc reads 408, {time.monotonic() - t0:.1f} s")


def scenario_sigterm(display):
    """SIGTERM while the worker waits for an ack: interrupted, quickly, with an end line."""
    w = Worker(["--task", "compute 12*34 after login", "--display", display, "--db", DB])
    run_id = w.next()["run_id"]
    w.until("awaiting_user")
    t0 = time.monotonic()
    w.proc.send_signal(signal.SIGTERM)
    end = w.until("end", 10)
    code = w.wait(10)
    took = time.monotonic() - t0
    expect(end["status"] == "interrupted" and end["error"] == "cancelled", f"end line after SIGTERM: {end}")
    expect(code == 143, f"exit code after SIGTERM: {code}")
    expect(took < 3, f"SIGTERM took {took:.1f} s to end the waiting run")
    status = db().execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()[0]
    expect(status == "interrupted", f"the run's status: {status}")
    print(f"sigterm: interrupted {took:.2f} s after SIGTERM while awaiting the person")


def scenario_busy_loop(display):
    """SIGTERM to a script busy in pure Lua: the watchdog stops it and the end line still comes."""
    script = lua_script("busy.lua", "screenshot()\nlocal n = 0\nwhile true do n = n + 1 end\n")
    w = Worker([script, "--display", display, "--db", DB])
    run_id = w.next()["run_id"]
    shot = w.until("step")  # the loop starts right after this step
    expect(shot["step"]["action"] == "screenshot", f"the busy script's first step: {shot}")
    t0 = time.monotonic()
    w.proc.send_signal(signal.SIGTERM)
    end = w.until("end", 10)
    code = w.wait(10)
    took = time.monotonic() - t0
    expect(end["status"] == "interrupted" and code == 143, f"busy loop after SIGTERM: {end}, exit {code}")
    expect(took < 3, f"SIGTERM took {took:.1f} s to end the busy run")
    expect(db().execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()[0] == "interrupted",
           "the busy run is recorded as interrupted")
    print(f"busy loop: interrupted {took:.2f} s after SIGTERM, end line sent")


def scenario_click_check(display):
    """EACU_CLICK_CHECK=1: every click is checked by the model first, and the run passes."""
    env = dict(os.environ, EACU_CLICK_CHECK="1")
    w = Worker(["--task", "work out 7*9 for me", "--display", display, "--db", DB], env=env)
    run_id = w.next()["run_id"]
    end = w.until("end", 180)
    code = w.wait()
    expect(end["status"] == "passed" and code == 0, f"click-check run: {end}, exit {code}; stderr: {w.stderr()}")
    steps = check_steps_against_log(w, run_id)
    checks = [s for s in steps if s["action"] == "click_check"]
    taps = [s for s in steps if s["action"] == "tap"]
    moves = [s for s in steps if s["action"] == "move"]
    expect(len(taps) == 5, f"5 taps (AC 7 * 9 =), got {[s['action'] for s in steps]}")
    expect(len(checks) == 5 and all(c["params"]["on_target"] is True for c in checks),
           f"one check per tap, each on target: {[c['params'] for c in checks]}")
    expect(len(moves) == 5, f"one pointer move per check through the action path: {len(moves)}")
    expect(all(t["input"] == c["input"] for t, c in zip(taps, checks)), "each tap presses where the check saw the pointer")
    got = read_display(display)
    expect(got == "63", f"xcalc should read 63, reads {got!r}")
    print(f"click check: {len(checks)} checks, all on target, xcalc reads 63")


def scenario_misaligned(display):
    """A pointer the model never sees on target: no click, awaiting_user kind click; the server
    then goes away (closes its end): the run fails closed, recorded, with a clear error."""
    env = dict(os.environ, EACU_CLICK_CHECK="1")
    w = Worker(["--task", "compute 2*3 with a misaligned pointer", "--display", display, "--db", DB], env=env)
    run_id = w.next()["run_id"]
    wait = w.until("awaiting_user", 120)
    expect(wait["kind"] == "click", f"awaiting_user kind: {wait}")
    expect("请帮忙点击" in wait["text"], f"awaiting_user text: {wait}")
    checks = [l["step"] for l in w.lines if l["type"] == "step" and l["step"]["action"] == "click_check"]
    expect(len(checks) == 5 and not any(c["params"]["on_target"] for c in checks),
           f"5 checks (the first look + 4 corrections), none on target: {len(checks)}")
    expect(not any(l["type"] == "step" and l["step"]["action"] == "tap" for l in w.lines), "nothing was clicked")
    w.sock.close()
    code = w.wait(30)
    expect(code == 1, f"exit code after the server went away: {code}")
    status, error = db().execute("SELECT status, error FROM runs WHERE id=?", (run_id,)).fetchone()
    expect(status == "failed", f"the run's status: {status}")
    expect(error.startswith('click "请帮忙点击') and "closed the serve channel" in error.split("\n")[0],
           f"the run's error says what was asked and that the channel closed: {error}")
    print("misaligned pointer: 5 checks, no click, awaiting_user kind click; a closed channel fails the run")


def scenario_script(display):
    """The script form: ask_user and confirm become awaiting_user; the returned string is the answer."""
    script = lua_script("ask.lua", 'local who = ask_user("给谁发消息？")\n'
                                   'local ok = confirm("pay 5 yuan to " .. who)\n'
                                   'return "answer: " .. who .. (ok and " (paid)" or " (refused)")\n')
    w = Worker([script, "--display", display, "--db", DB])
    run_id = w.next()["run_id"]
    ask = w.until("awaiting_user")
    expect(ask["kind"] == "ask" and ask["text"] == "给谁发消息？", f"ask_user: {ask}")
    w.ack("张三")
    conf = w.until("awaiting_user")
    expect(conf["kind"] == "confirm" and "pay 5 yuan to 张三" in conf["text"], f"confirm: {conf}")
    w.ack("我已经操作")
    end = w.until("end")
    expect(w.wait() == 0 and end["status"] == "passed", f"script run: {end}; stderr: {w.stderr()}")
    answers = [l["text"] for l in w.lines if l["type"] == "answer"]
    expect(answers == ["answer: 张三 (paid)"], f"the script's returned string is the answer: {answers}")
    steps = check_steps_against_log(w, run_id)
    expect([s["action"] for s in steps] == ["ask_user"] and steps[0]["params"]["answer"] == "张三",
           f"ask_user recorded with its answer: {steps}")
    print("script: ask_user and confirm answered by acks; its returned string is the answer")


def scenario_domains(display):
    """Seed 001 §9: the browser module checks a URL's domain before it starts anything."""
    script = lua_script("browse.lua", 'local browser = require "browser"\n'
                                      'local ok, err = pcall(browser.open, arg[1])\n'
                                      'if ok then return "opened" end\n'
                                      'return err.code .. " | " .. tostring(err)\n')
    env = dict(os.environ, EACU_ALLOW_DOMAINS="python.org", EACU_BLOCK_DOMAINS="bad.python.org")
    for url, why in (("https://www.example.com/", "the domain www.example.com is not in EACU_ALLOW_DOMAINS (python.org)"),
                     ("https://bad.python.org/x", "the domain bad.python.org is blocked by EACU_BLOCK_DOMAINS (bad.python.org)")):
        w = Worker([script, "--display", display, "--db", DB, "--", url], env=env)
        run_id = w.next()["run_id"]
        end = w.until("end")
        expect(w.wait() == 0 and end["status"] == "passed", f"domain script: {end}; stderr: {w.stderr()}")
        answer = [l["text"] for l in w.lines if l["type"] == "answer"]
        expect(len(answer) == 1 and answer[0].startswith("refused | ") and
               f'open_url "{url}": refused: {why}' in answer[0], f"the refusal for {url}: {answer}")
        steps = check_steps_against_log(w, run_id)
        expect([(s["action"], s["status"], s["method"]) for s in steps] == [("open_url", "failed", "policy")],
               f"one failed open_url step and no launch for {url}: {steps}")
    print("domains: a URL outside EACU_ALLOW_DOMAINS or on EACU_BLOCK_DOMAINS is refused before anything starts")


def main():
    try:
        display = start_xvfb()
        xcalc = subprocess.Popen(["xcalc"], env=dict(os.environ, DISPLAY=display),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        STARTED.append(xcalc)
        # xcalc is up when its AC key can be found (eacu itself waits, on a condition).
        wait_lua = lua_script("wait_xcalc.lua", 'wait("calculator.btn_clear", 20)\n')
        r = eacu(["run", wait_lua, "--display", display, "--db", os.path.join(OUT, "read.db")])
        expect(r.returncode == 0, f"xcalc did not show up on {display}: {r.stderr}")
        scenario_script(display)
        scenario_domains(display)
        scenario_needs_user(display)
        scenario_sigterm(display)
        scenario_busy_loop(display)
        scenario_click_check(display)
        scenario_misaligned(display)
    finally:
        for p in reversed(STARTED):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    print("worker_protocol: ok")


if __name__ == "__main__":
    main()
