"""Helpers of the Redis tests (redis_*.sh): a redis-server of the test's own (free loopback port,
its own folder, appendonly yes), `eacu worker` processes standing for machines (each with its
own --db and --name), and the checks on their run logs. Every wait has a deadline."""
import os
import signal
import socket
import sqlite3
import subprocess
import time

from serve_client import Fail, wait_until  # noqa: F401


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what.split(":")[0], flush=True)


class Redis:
    """redis-server on 127.0.0.1:PORT with its folder DIR and the append-only file on."""

    def __init__(self, folder, password=None, extra=(), port=None):
        self.folder, self.password, self.extra = folder, password, list(extra)
        os.makedirs(folder, exist_ok=True)
        self.port = port or free_port()
        self.start()

    def start(self):
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.folder,
                "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--logfile",
                os.path.join(self.folder, "redis.log")] + self.extra
        if self.password:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.ping(), 10, f"redis-server on port {self.port}")

    def ping(self):
        try:
            return self.cli("PING").strip() == "PONG"
        except Exception:  # noqa: BLE001
            return False

    def cli(self, *args):
        env = os.environ.copy()
        if self.password:
            env["REDISCLI_AUTH"] = self.password
        out = subprocess.run(["redis-cli", "-p", str(self.port), "--no-raw", *args], capture_output=True, text=True,
                             timeout=10, env=env)
        if out.returncode != 0:
            raise Fail(f"redis-cli {' '.join(args)}: {out.stderr}")
        return subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True,
                              timeout=10, env=env).stdout

    def url(self, with_password=True):
        auth = f":{self.password}@" if self.password and with_password else ""
        return f"redis://{auth}127.0.0.1:{self.port}"

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Worker:
    """`eacu worker --queue URL --name NAME --db OUT/NAME.db ARGS` logging to OUT/NAME.log."""

    def __init__(self, eacu, out, name, url, args=(), env=None):
        self.name, self.db = name, os.path.join(out, name + ".db")
        self.log_path = os.path.join(out, name + ".log")
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([eacu, "worker", "--queue", url, "--name", name, "--db", self.db, *args],
                                     stdout=self.log, stderr=self.log, env=env or os.environ.copy())

    def text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait_printed(self, what, timeout=30):
        return wait_until(lambda: what in self.text() or (self.proc.poll() is not None and what in self.text())
                          or self._died(what), timeout, f"worker {self.name} to print {what!r}")

    def _died(self, what):
        if self.proc.poll() is not None and what not in self.text():
            raise Fail(f"worker {self.name} exited ({self.proc.returncode}) before printing {what!r}: {self.text()}")
        return False

    def descendants(self):
        """Every process below the worker (its runs, their Xvfb and programs)."""
        out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
        kids = {}
        for line in out.split("\n"):
            if line.strip():
                pid, ppid = map(int, line.split())
                kids.setdefault(ppid, []).append(pid)
        found, todo = [], [self.proc.pid]
        while todo:
            for k in kids.get(todo.pop(), []):
                found.append(k)
                todo.append(k)
        return found

    def stop(self, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                raise Fail(f"worker {self.name} did not stop within {timeout} s of SIGTERM")
        return self.proc.returncode


def runs_of(db):
    """[(run id, status, script, steps with input, first step start, last step start)] of a run log."""
    if not os.path.exists(db):
        return []
    c = sqlite3.connect(db)
    try:
        if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'steps'").fetchone():
            return []  # created, its schema not yet written
        rows = c.execute("SELECT r.id, r.status, r.script, "
                         "(SELECT COUNT(*) FROM steps s WHERE s.run_id = r.id AND s.input_x IS NOT NULL), "
                         "(SELECT MIN(started_at) FROM steps s WHERE s.run_id = r.id), "
                         "(SELECT MAX(started_at) FROM steps s WHERE s.run_id = r.id) "
                         "FROM runs r ORDER BY r.id").fetchall()
    finally:
        c.close()
    return rows


def integrity(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        c.close()


class QueueWithWorker:
    """A redis-server in OUT/redis, `eacu serve --queue` on it (run log OUT/queue.db) and one
    `eacu worker --name NAME ARGS`, for `with`: waits until the worker is in GET /api/workers
    (asked with `token`; `.listed` is its entry); stops all three on leaving."""

    def __init__(self, eacu, out, name, serve_args, worker_args, token=None, env=None):
        from serve_client import Api, Server
        self.redis = Redis(os.path.join(out, "redis"))
        self.db = os.path.join(out, "queue.db")
        self.server = Server(eacu, ["--queue", self.redis.url(), "--db", self.db, *serve_args],
                             os.path.join(out, "serve-queue.log"), env=env)
        self.worker = Worker(eacu, out, name, self.redis.url(), worker_args, env=env)
        self.name, self.token, self.api_class = name, token, Api

    def __enter__(self):
        try:
            self.worker.wait_printed(f"eacu worker: {self.name} on", 60)
            api = self.api_class(self.server, token=self.token)
            self.listed = wait_until(lambda: [w for w in api.ok("GET", "/api/workers")["workers"]
                                              if w["name"] == self.name], 30, "the worker in GET /api/workers")[0]
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        self.worker.proc.terminate()
        try:
            self.worker.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.worker.proc.kill()
        self.server.stop()
        self.redis.stop()
        return False
