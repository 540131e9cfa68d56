#!/usr/bin/env python3
"""Input -> changed frame on the page, through eacu serve's HTTP path, on an Android device
(issue 38's goal: <= 300 ms):

  adb_page_input.py EACU SERIAL N OUT [NAME]

Starts `eacu serve --device adb:SERIAL` (the adb server of $ANDROID_ADB_SERVER_PORT; the adb
client runs with HOME=$ADB_CLIENT_HOME when that is set), posts a task that loops on sleep(0.1),
takes it over (POST /api/tasks/ID/take-over, task.paused on the SSE stream) and then, N times,
on a still screen: POST /api/tasks/ID/input {kind: click} on the tree element NAME (default
张三, found with `uiautomator dump` through the adb client) and POST ... {kind: key, keys:
back}. Each is timed
from the moment its POST is sent to the arrival, on the session's SSE stream (what the page
shows), of the first screen.live event after it whose image differs from the one before it
(the pointer stays on NAME: the person's move to NAME comes first, then the screen goes still
for 0.6 s). Prints the median and p90 in ms and as ratios to the median of N raw screencaps
(`adb exec-out screencap`, the adb client's start included) taken in the same run:

  page_tap_to_frame_ms median M p90 P n N
  page_key_to_frame_ms median M p90 P n N
  page_raw_screencap_ms median M
  page_ratio tap median X p90 Y key median X p90 Y

The browser's decoding and painting of the JPEG is not in the figure. Exits 1 on a failure,
saying what did not come. A bench, not a test: it prints numbers and checks nothing else.
"""
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from serve_client import Api, Fail, Server, Stream, wait_until  # noqa: E402


def adb(out, serial, *args, timeout=60):
    env = dict(os.environ, HOME=os.environ.get("ADB_CLIENT_HOME", os.environ.get("HOME", out)))
    return subprocess.run(["adb", "-P", os.environ["ANDROID_ADB_SERVER_PORT"], "-s", serial, *args],
                          capture_output=True, env=env, timeout=timeout, check=True).stdout


def element_centre(out, serial, name):
    """The centre of the tree element whose text is `name`, from `uiautomator dump`."""
    adb(out, serial, "shell", "uiautomator", "dump", "/sdcard/eacu_page_input.xml")
    xml = adb(out, serial, "exec-out", "cat", "/sdcard/eacu_page_input.xml").decode()
    m = re.search(r'text="' + re.escape(name) + r'"[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    if not m:
        raise Fail(f"{name!r} is not in the device's tree")
    x1, y1, x2, y2 = map(int, m.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def p90(v):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]


def main():
    eacu, serial, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    name = sys.argv[5] if len(sys.argv) > 5 else "张三"
    os.makedirs(out, exist_ok=True)
    raw = []
    for _ in range(n):
        t = time.monotonic()
        adb(out, serial, "exec-out", "screencap")
        raw.append((time.monotonic() - t) * 1000)
    x, y = element_centre(out, serial, name)
    token = "t0ken-page-input"
    server = Server(eacu, ["--device", "adb:" + serial, "--allow-scripts", "--token", token, "--db",
                           os.path.join(out, "page_input.db")], os.path.join(out, "page_input_serve.log"))
    stream = None
    try:
        api = Api(server, token=token)
        tid = api.ok("POST", "/task", {"script": "for i = 1, 30000 do sleep(0.1) end\nreturn 'loop ended'\n"})["task_id"]
        session = wait_until(lambda: api.ok("GET", f"/task/{tid}").get("session_id"), 60, "the task's session")
        stream = Stream(server, session, token=token)
        stream.wait("task.started", tid, timeout=90)
        wait_until(lambda: api.request("POST", f"/api/tasks/{tid}/take-over", {})[0] == 200, 60, "the take-over")
        stream.wait("task.paused", tid, timeout=60)

        def live():
            return stream.of("screen.live", tid)

        def still():
            """Waits until no live frame came for 0.6 s and the newest shows the pointer at (x, y)."""
            def quiet():
                v = live()
                return v and v[-1][2].get("cursor_x") == x and v[-1][2].get("cursor_y") == y and \
                    time.monotonic() - v[-1][3] >= 0.6
            wait_until(quiet, 30, "a still live screen with the pointer on " + name)

        def timed(event):
            still()
            before = live()[-1][2]["image"]
            k = len(live())
            t0 = time.monotonic()
            st, r, _ = api.post(f"/api/tasks/{tid}/input", {"event": event})
            if st != 200:
                raise Fail(f"input {event}: expected 200, got {st}: {r!r}")

            def changed():
                for e in live()[k:]:
                    if e[3] > t0 and e[2]["image"] != before:
                        return e[3]
                return None
            return (wait_until(changed, 20, f"a changed live frame after {event}") - t0) * 1000

        api.ok("POST", f"/api/tasks/{tid}/input", {"event": {"kind": "move", "x": x, "y": y}})
        taps, keys = [], []
        for _ in range(n):
            taps.append(timed({"kind": "click", "x": x, "y": y}))
            keys.append(timed({"kind": "key", "keys": "back"}))
        api.request("POST", f"/api/tasks/{tid}/hand-back", {})
        api.request("POST", "/api/chat/stop", {"task_id": tid})
    finally:
        if stream:
            stream.close()
        server.stop()
    floor = statistics.median(raw)
    print(f"page_tap_to_frame_ms median {statistics.median(taps):.0f} p90 {p90(taps):.0f} n {n}")
    print(f"page_key_to_frame_ms median {statistics.median(keys):.0f} p90 {p90(keys):.0f} n {n}")
    print(f"page_raw_screencap_ms median {floor:.0f}")
    print(f"page_ratio tap median {statistics.median(taps) / floor:.2f} p90 {p90(taps) / floor:.2f} "
          f"key median {statistics.median(keys) / floor:.2f} p90 {p90(keys) / floor:.2f}")


if __name__ == "__main__":
    try:
        main()
    except (Fail, subprocess.SubprocessError) as e:
        print(f"adb_page_input: {e}", file=sys.stderr)
        sys.exit(1)
