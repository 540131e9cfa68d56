#!/usr/bin/env python3
"""Taking over from the page (issue 29), in headless Chromium (tests/e2e/cdp.py) against a real
`eacu serve --token T --allow-scripts --launch xcalc` started by serve_takeover.sh:

  serve_takeover.py URL --token T --form FILE [--out DIR] [--bench N]

 1. A Lua task launches a zenity entry dialog and asks the person (ask_user) to fill it. The
    page is opened once with ?access_token=T: its address bar loses the token, the cookie is
    HttpOnly (document.cookie does not show it), and no request after that load carries the
    token (neither in its URL nor as a header). The test clicks the dialog through CDP
    Input.dispatchMouseEvent on the page's live screen (data-testid="screen"), types
    "张三 Zhang" with Input.insertText and presses Enter: zenity writes the text to FILE. The
    ack button (我已经操作) resumes the task to its answer. Prints `form_task ID`.
 2. A Lua task that keeps running (sleeps in a loop): input to it is refused (409, with a
    reason), and without the token (403); the take-over button pauses it (task.paused: the
    hand-back button shows), N clicks on xcalc's keys through the page are injected (the
    benchmark: page click -> device input (the step's params.sent_at) and -> the first live
    frame in which xcalc's display changed, median and p90, printed as
    `bench_click_to_input_ms median M p90 P` and `bench_click_to_frame_ms median M p90 P`);
    the hand-back button resumes it (task.resumed); then it is stopped. Prints `loop_task ID`.
 3. A computer-tool autopilot task (the local Messages API stand-in, which calls the needs_user tool
    first): the page shows the ack button; the test clicks on the live screen, then 我已经操作:
    the autopilot resumes and completes. Prints `agent_task ID`.
Every wait polls a condition with a deadline.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from checks import CheckFailed, check, logger  # noqa: E402

log = logger("serve_takeover")


# Pixels from the left of zenity's entry dialog to inside the first word of its entry (the
# dialog's margin and the entry's padding are about 20 px; "Wang" is about 35 px wide).
DOUBLE_CLICK_DX = 34

# In the page: a card's state, the live screen's frame box, and a watch of the live frames that
# records when xcalc's display (a region of the frame) changes.
HELPERS = r"""
window.__k = window.__k || {
  card(id) { return document.querySelector(`[data-testid="task"][data-task-id="${id}"]`); },
  visible(el) { return !!el && el.checkVisibility({visibilityProperty: true, opacityProperty: true}); },
  state(id) {
    const c = this.card(id);
    if (!c) return null;
    const img = c.querySelector('[data-testid="screen"]');
    const ans = c.querySelector('[data-testid="answer"]');
    return {
      status: c.dataset.status, mode: c.dataset.mode, control: c.dataset.control,
      ack: this.visible(c.querySelector('[data-testid="ack"]')),
      take: this.visible(c.querySelector('[data-testid="take-over"]')),
      back: this.visible(c.querySelector('[data-testid="hand-back"]')),
      live: !!img && (img.getAttribute('src') || '').startsWith('data:') && img.complete && img.naturalWidth > 0 &&
            this.visible(img),
      answer: ans && this.visible(ans) ? ans.textContent : null,
      userItems: [...c.querySelectorAll('[data-testid="progress-item"][data-actor="user"]')].length,
    };
  },
  // The viewport point showing physical pixel (x, y) of the live frame (object-fit: contain).
  pagePoint(id, x, y) {
    const img = this.card(id).querySelector('[data-testid="screen"]');
    img.scrollIntoView({block: 'center'});
    const r = img.getBoundingClientRect(), W = img.naturalWidth, H = img.naturalHeight;
    const k = Math.min(r.width / W, r.height / H);
    return {x: r.left + (r.width - W * k) / 2 + (x + 0.5) * k, y: r.top + (r.height - H * k) / 2 + (y + 0.5) * k};
  },
  // Watches the card's live frames: each one's arrival time (Date.now(), ms) and a checksum of
  // the region [x, y, w, h] of the frame.
  watch(id, region) {
    const img = this.card(id).querySelector('[data-testid="screen"]');
    const seen = this.seen = [];
    const canvas = document.createElement('canvas');
    const sum = () => {
      const [x, y, w, h] = region;
      canvas.width = w; canvas.height = h;
      const g = canvas.getContext('2d', {willReadFrequently: true});
      g.drawImage(img, x, y, w, h, 0, 0, w, h);
      const d = g.getImageData(0, 0, w, h).data;
      let s = 0;
      for (let i = 0; i < d.length; i += 4) s = (s * 31 + (d[i] >> 5) + (d[i + 1] >> 5) * 8 + (d[i + 2] >> 5) * 64) >>> 0;
      return s;
    };
    img.addEventListener('load', () => {
      if ((img.getAttribute('src') || '').startsWith('data:')) seen.push([Date.now(), sum()]);
    });
    seen.push([Date.now(), sum()]);  // the frame shown now
    return true;
  },
};
true
"""


class Test:
    def __init__(self, args):
        self.args = args
        self.out = args.out or tempfile.mkdtemp(prefix="serve-takeover-")
        os.makedirs(self.out, exist_ok=True)
        self.base = args.url.rstrip("/")
        self.browser = None
        self.page = None
        self.session = None

    # ---- plumbing ----
    def api(self, method, path, body=None, token=True):
        """(status, JSON body) of a request to the server, with the bearer token or none."""
        req = urllib.request.Request(self.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + self.args.token)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def send_script(self, source):
        body = {"script": source}
        if self.session is not None:
            body["session_id"] = self.session
        st, r = self.api("POST", "/api/chat/send", body)
        check(st == 200, f"POST /api/chat/send (script): HTTP {st} {r}")
        self.session = r["session_id"]
        return r["task_id"]

    def js(self, expr):
        return self.page.evaluate(expr)

    def wait(self, expr, timeout, what):
        try:
            return self.page.wait_for(expr, timeout=timeout, what=what)
        except cdp.CDPTimeout as e:
            raise CheckFailed(str(e)) from None

    def wait_state(self, tid, cond, timeout, what):
        return self.wait(f"(() => {{ const s = __k.state({tid}); return s && ({cond}) && s; }})()", timeout, what)

    def click_frame(self, tid, x, y):
        """A click through CDP on the page's live screen where it shows physical pixel (x, y)."""
        p = self.js(f"__k.pagePoint({tid}, {x}, {y})")
        self.page.click_at(p["x"], p["y"])

    def display_of(self, tid):
        st, r = self.api("GET", f"/task/{tid}")
        check(st == 200 and r.get("display"), f"GET /task/{tid}: no display ({st} {r})")
        return r["display"]

    def task_status(self, tid):
        return self.api("GET", f"/task/{tid}")[1].get("status")

    def wait_task(self, tid, statuses, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.task_status(tid)
            if s in statuses:
                return s
            time.sleep(0.1)
        raise CheckFailed(f"task {tid} did not reach {statuses} within {timeout} s (it is {self.task_status(tid)})")

    # ---- the cases ----
    def open_page(self):
        self.browser = cdp.Browser(width=1280, height=900, chromium=self.args.chromium,
                                   log_path=os.path.join(self.out, "chromium.log"))
        self.page = self.browser.new_page()
        self.page.call("Network.enable")
        self.page.navigate(f"{self.base}/?session={self.session}&access_token={self.args.token}")
        self.js(HELPERS)
        href = self.js("location.href")
        check("access_token" not in href, f"the address bar still holds the token: {href}")
        check("eacu_token" not in self.js("document.cookie"), "the token cookie is readable by the page's script")

    def requests_carry_no_token(self):
        sent = self.page.events("Network.requestWillBeSent")
        first = True
        n = 0
        for e in sent:
            url = e["request"]["url"]
            if url.startswith("data:"):
                continue
            if first and "access_token=" in url:
                first = False  # the first load itself
                continue
            first = False
            n += 1
            check(self.args.token not in url, f"a request after the first load carries the token in its URL: {url}")
            hdrs = {k.lower(): v for k, v in e["request"].get("headers", {}).items()}
            check(self.args.token not in hdrs.get("authorization", ""), f"a request carries the token as a header: {url}")
        check(n >= 3, f"expected the page's requests after its first load (style, script, stream...), saw {n}")
        log(f"{n} requests after the first load, none with the token")

    def form_case(self):
        src = f"""
launch{{"sh", "-c", "exec zenity --entry --title 表单 --text 姓名 --width 420 > {self.args.form}"}}
local said = ask_user("请在屏幕上的表单里填写姓名，按回车确认，然后点「我已经操作」")
return "表单已填写（" .. said .. "）"
"""
        tid = self.send_script(src)
        print(f"form_task {tid}", flush=True)
        self.open_page()
        self.wait_state(tid, "s.ack && s.live", 60, "the ack button and the live screen of the form task")
        disp = self.display_of(tid)
        env = dict(os.environ, DISPLAY=disp)
        geo = subprocess.run(["xdotool", "search", "--sync", "--name", "表单", "getwindowgeometry", "--shell"],
                             env=env, capture_output=True, text=True, timeout=30).stdout
        g = dict(line.split("=", 1) for line in geo.split() if "=" in line)
        x, y, w, h = (int(g[k]) for k in ("X", "Y", "WIDTH", "HEIGHT"))
        log(f"zenity's dialog at {x},{y} {w}x{h} on {disp}")
        # Its entry runs across the dialog below the label: click it (left part, mid height).
        self.click_frame(tid, x + w // 3, y + h // 2)
        self.page.call("Input.insertText", text="Wang 张三")
        # A double click on the first word selects it (GTK): the name typed next replaces it.
        # Two single clicks would only move the caret into it ("WZhangang 张三").
        self.wait_state(tid, "s.userItems >= 2", 20, "the person's click and text in the timeline")
        p = self.js(f"__k.pagePoint({tid}, {x + DOUBLE_CLICK_DX}, {y + h // 2})")
        self.page.double_click_at(p["x"], p["y"])
        self.wait_state(tid, "s.userItems >= 4", 20, "the person's double click in the timeline")
        self.page.call("Input.insertText", text="Zhang")
        self.page.press_key("Enter", vk=13, text="\r")
        end = time.monotonic() + 30
        got = ""
        while time.monotonic() < end:
            if os.path.exists(self.args.form):
                got = open(self.args.form, encoding="utf-8").read()
                if got.strip():
                    break
            time.sleep(0.1)
        check(got.strip() == "Zhang 张三", f"zenity wrote {got!r}, expected 'Zhang 张三' (the double click selects 'Wang')")
        log("the form received Zhang 张三")
        self.wait_state(tid, "s.userItems >= 6", 20, "the person's steps in the timeline (click, text, double click, text, key)")
        self.page.click(f'[data-testid="task"][data-task-id="{tid}"] [data-testid="ack"]')
        s = self.wait_state(tid, "s.status === 'completed' && s.answer", 60, "the form task's answer")
        check("我已经操作" in s["answer"], f"the answer: {s['answer']!r}")
        self.requests_carry_no_token()

    def loop_case(self):
        tid = self.send_script("for i = 1, 3000 do sleep(0.1) end\nreturn 'loop ended'\n")
        print(f"loop_task {tid}", flush=True)
        self.wait_state(tid, "s.status === 'running' && s.take && s.live", 60, "the loop task running, with 接管")
        ev = {"event": {"kind": "click", "x": 70, "y": 347}}
        st, r = self.api("POST", f"/api/tasks/{tid}/input", ev)
        check(st == 409 and "neither awaits the person nor is taken over" in r.get("error", ""),
              f"input to a running task: expected 409 with a reason, got {st} {r}")
        st, r = self.api("POST", f"/api/tasks/{tid}/input", ev, token=False)
        check(st == 403, f"input without the token: expected 403, got {st} {r}")
        st, r = self.api("POST", f"/api/tasks/{tid}/hand-back", {})
        check(st == 409, f"hand-back of a task not taken over: expected 409, got {st} {r}")
        self.page.click(f'[data-testid="task"][data-task-id="{tid}"] [data-testid="take-over"]')
        self.wait_state(tid, "s.back && s.control === 'person'", 20, "the task paused (hand-back shown)")
        log("taken over")
        self.bench(tid)
        self.page.click(f'[data-testid="task"][data-task-id="{tid}"] [data-testid="hand-back"]')
        self.wait_state(tid, "s.take && s.control === 'run'", 20, "the task resumed (take-over shown again)")
        check(self.task_status(tid) == "running", "the loop task after hand-back")
        t0 = time.monotonic()
        st, r = self.api("POST", "/api/chat/stop", {"task_id": tid})
        check(st == 200, f"stop: {st} {r}")
        self.wait_task(tid, {"stopped"}, 30)
        # The stop line ends the run at its sleep; SIGTERM would come only after the 5 s grace
        # (TaskRunner::kStopGrace).
        took = time.monotonic() - t0
        check(took < 4.5, f"the stop took {took:.1f} s: the worker did not end on the stop line")
        log(f"stopped by the stop line in {took:.2f} s")

    def bench(self, tid):
        """Clicks xcalc's 1 and AC keys in turn through the page; each click's time to the device
        input (params.sent_at of its step) and to the first live frame whose display region
        changed."""
        self.js(f"__k.watch({tid}, [8, 20, 220, 40])")
        to_input, to_frame = [], []
        keys = [(70, 347), (202, 77)]
        for i in range(self.args.bench):
            x, y = keys[i % 2]
            p = self.js(f"__k.pagePoint({tid}, {x}, {y})")
            before = self.js("__k.seen.length ? __k.seen[__k.seen.length - 1][1] : null")
            n_steps = self.user_steps(tid)
            t0 = time.time() * 1000
            self.page.click_at(p["x"], p["y"])
            step = self.wait_user_step(tid, n_steps)
            sent = step["params"]["sent_at"] * 1000
            frame = self.wait(f"(() => {{ const s = __k.seen.find(([t, h]) => t >= {t0} && h !== {json.dumps(before)});"
                              f" return s && s[0]; }})()", 10, f"a live frame showing click {i + 1}")
            to_input.append(sent - t0)
            to_frame.append(frame - t0)
        for name, v in (("bench_click_to_input_ms", to_input), ("bench_click_to_frame_ms", to_frame)):
            v = sorted(v)
            p90 = v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
            print(f"{name} median {statistics.median(v):.0f} p90 {p90:.0f} n {len(v)}", flush=True)

    def user_steps(self, tid):
        return len(self.run_user_steps(tid))

    def run_user_steps(self, tid):
        import sqlite3
        run = self.api("GET", f"/task/{tid}")[1].get("run_id")
        if not run:
            return []
        con = sqlite3.connect(f"file:{self.args.db}?mode=ro", uri=True, timeout=10)
        try:
            rows = con.execute("SELECT params FROM steps WHERE run_id=? AND actor='user' ORDER BY id", (run,)).fetchall()
        finally:
            con.close()
        return [json.loads(r[0]) for r in rows]

    def wait_user_step(self, tid, n_before):
        end = time.monotonic() + 15
        while time.monotonic() < end:
            rows = self.run_user_steps(tid)
            if len(rows) > n_before:
                return {"params": rows[-1]}
            time.sleep(0.02)
        raise CheckFailed(f"no step of the person recorded for task {tid} within 15 s")

    def agent_case(self):
        src = 'local r = autopilot("compute 12*34 after login", {protocol = "computer", max_steps = 14})\n' \
              'return "autopilot " .. r.status\n'
        tid = self.send_script(src)
        print(f"agent_task {tid}", flush=True)
        self.wait_state(tid, "s.ack && s.live", 90, "the computer-tool autopilot handing over (ack shown)")
        self.click_frame(tid, 640, 600)  # the person does something on the screen
        self.wait_state(tid, "s.userItems >= 1", 20, "the person's click in the timeline")
        self.page.click(f'[data-testid="task"][data-task-id="{tid}"] [data-testid="ack"]')
        s = self.wait_state(tid, "s.status === 'completed' && s.answer", 120, "the autopilot task's answer")
        check(s["answer"] == "autopilot done", f"the autopilot task's answer: {s['answer']!r}")

    def run(self):
        try:
            self.form_case()
            self.loop_case()
            self.agent_case()
            errors = [c for c in self.page.console() if c.startswith("exception")]
            check(not errors, f"page exceptions: {errors}")
        finally:
            if self.page:
                try:
                    self.page.screenshot(os.path.join(self.out, "last.png"))
                except Exception:  # noqa: BLE001 - a failed shot must not hide the failure
                    pass
            if self.browser:
                self.browser.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url")
    ap.add_argument("--token", required=True)
    ap.add_argument("--form", required=True, help="where the zenity dialog's answer is written")
    ap.add_argument("--db", required=True, help="the server's run log (read-only, for the person's steps)")
    ap.add_argument("--out")
    ap.add_argument("--bench", type=int, default=12, help="clicks for the latency benchmark")
    ap.add_argument("--chromium")
    args = ap.parse_args()
    try:
        Test(args).run()
    except (CheckFailed, cdp.CDPError) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("serve_takeover: passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
