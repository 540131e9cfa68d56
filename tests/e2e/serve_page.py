#!/usr/bin/env python3
"""The page test of issue 12: headless Chromium (tests/e2e/cdp.py) drives the chat page of a
running `eacu serve` the way a person does, and checks what the page shows.

  serve_page.py URL [--token T] [--out DIR] [--timeout S] ...     the test (exit 1 on a failure)
  serve_page.py URL [--token T] --screenshot PATH                 a 1280x800 shot mid-task

The server is started by the calling shell test (with --launch xcalc and the fake model). The
test, on a fresh browser profile (so a new session):
 1. opens URL (with ?access_token=T) and prints `first_paint_cold_ms N` (the paint entry of the
    first load in a fresh browser) and `first_paint_ms N` (of a second load, cache off);
 2. types TASK ("compute 12*34") into chat-input and clicks chat-send: the run card shows at
    once (`card_shown_ms N`), its screen image loads a live frame (`screen_shown_ms N`, from the
    click), at least 3 progress items come, the task completes and its answer shows;
 3. saves the last progress item's screenshot (GET of its URL) and prints
    `last_screenshot PATH` (the shell test reads xcalc's display on it);
 4. opens the finished card's steps, expands the timeline, clicks a progress item (the screen
    shows that item's screenshot, and the scrubber marks its node), clicks and drags the
    scrubber (the list marks the item), clicks the live node (the live frame again);
 5. sends LOGIN_TASK ("compute 12*34 after login") with the Enter key: the ack button shows
    (and shows again after a reload), a click on it resumes the task (the card runs again) to
    its answer;
 6. with --stop: sends STOP_TASK and clicks its stop button mid-task: 已停止 (prints
    `stopped_task ID`, for the shell test to check that the task's Xvfb is gone);
 7. reloads the page: the session's history comes back from the stream, unchanged.
Every wait polls a condition with a deadline; an uncaught page exception fails the test too.
"""
import argparse
import json
import os
import signal
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from checks import CheckFailed, check, logger  # noqa: E402

log = logger("serve_page")


def with_token(url, token):
    if not token:
        return url
    u = urllib.parse.urlsplit(url)
    q = urllib.parse.parse_qsl(u.query, keep_blank_values=True)
    q = [(k, v) for k, v in q if k != "access_token"] + [("access_token", token)]
    return urllib.parse.urlunsplit(u._replace(query=urllib.parse.urlencode(q)))


# JavaScript helpers, defined in the page again after each load: a card is scoped by task id.
HELPERS = r"""
window.__t = window.__t || {
  card(id) { return document.querySelector(`[data-testid="task"][data-task-id="${id}"]`); },
  visible(el) { return !!el && el.checkVisibility({visibilityProperty: true, opacityProperty: true}); },
  loaded(img) { return !!img && !!img.getAttribute('src') && img.complete && img.naturalWidth > 0; },
  items(id) { return [...(this.card(id)?.querySelectorAll('[data-testid="progress-item"]') || [])]; },
  // The URL a progress screenshot ("/api/frames/7") has in the page, as the page resolves it.
  frameUrl(path) { return new URL(path.replace(/^\/+/, ''), document.baseURI); },
  screenPath(id) {
    const img = this.card(id)?.querySelector('[data-testid="screen"]');
    const src = img?.getAttribute('src') || '';
    return src.startsWith('data:') ? 'data:' : (src ? new URL(src, document.baseURI).pathname : '');
  },
  state(id) {
    const c = this.card(id);
    if (!c) return null;
    const ans = c.querySelector('[data-testid="answer"]');
    const items = this.items(id);
    return {
      status: c.dataset.status, mode: c.dataset.mode, resumed: Number(c.dataset.resumed || 0),
      answer: ans && this.visible(ans) ? ans.textContent : null,
      answerClass: ans ? ans.parentElement.className : '',
      items: items.map((li) => ({index: Number(li.dataset.index), status: li.dataset.status,
        text: li.querySelector('.text').textContent, shot: li.dataset.screenshot,
        sel: li.classList.contains('sel')})),
      nodes: [...c.querySelectorAll('[data-testid="scrubber"] [data-node]')].map((n) => ({
        node: n.dataset.node, sel: n.classList.contains('sel')})),
      ack: this.visible(c.querySelector('[data-testid="ack"]')),
      screen: this.screenPath(id),
      screenLoaded: this.loaded(c.querySelector('[data-testid="screen"]')),
    };
  },
  // Times from the send click to the new card being visible and to its screen showing a frame.
  arm(before) {
    const m = this.m = {before};
    document.addEventListener('click', (e) => {
      if (!m.click && e.target.closest('[data-testid="chat-send"]')) m.click = performance.now();
    }, true);
    document.addEventListener('keydown', (e) => {
      if (!m.click && e.key === 'Enter' && e.target.closest('[data-testid="chat-input"]')) m.click = performance.now();
    }, true);
    const poll = () => {
      const cards = document.querySelectorAll('[data-testid="task"]');
      const c = cards.length > before ? cards[cards.length - 1] : null;
      if (c && m.click) {
        if (!m.card && this.visible(c)) m.card = performance.now();
        const img = c.querySelector('[data-testid="screen"]');
        if (!m.screen && this.loaded(img) && this.visible(img)) m.screen = performance.now();
      }
      if (!m.screen) requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
    return true;
  },
};
true
"""


class PageTest:
    def __init__(self, args):
        self.args = args
        self.out = args.out or tempfile.mkdtemp(prefix="serve-page-")
        os.makedirs(self.out, exist_ok=True)
        self.url = with_token(args.url, args.token)
        self.browser = None
        self.page = None

    # ---- plumbing ----
    def js(self, expr):
        return self.page.evaluate(expr)

    def helpers(self):
        self.js(HELPERS)

    def wait(self, expr, timeout, what):
        try:
            return self.page.wait_for(expr, timeout=timeout, what=what)
        except cdp.CDPTimeout as e:
            raise CheckFailed(str(e)) from None

    def state(self, tid):
        return self.js(f"__t.state({int(tid)})")

    def fetch(self, path, dest):
        """GETs a server URL, resolved as the page resolves it ("/api/frames/7" against the
        page's folder), with the token, into dest. Returns (bytes, Content-Type)."""
        base = urllib.parse.urlsplit(self.args.url)
        folder = base.path.rsplit("/", 1)[0] + "/"
        url = urllib.parse.urljoin(urllib.parse.urlunsplit((base.scheme, base.netloc, folder, "", "")),
                                   path.lstrip("/") if path.startswith("/") else path)
        req = urllib.request.Request(url)
        if self.args.token:
            req.add_header("Authorization", "Bearer " + self.args.token)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                data = r.read()
                ctype = r.headers.get("Content-Type", "")
        except urllib.error.URLError as e:
            raise CheckFailed(f"GET {url}: {e}") from None
        with open(dest, "wb") as f:
            f.write(data)
        return data, ctype

    def start(self):
        self.browser = cdp.Browser(width=1280, height=800, chromium=self.args.chromium,
                                   log_path=os.path.join(self.out, "chromium.log"))
        self.page = self.browser.new_page()

    def open_page(self):
        self.page.navigate(self.url, timeout=30)
        self.helpers()
        self.wait("document.querySelector('[data-testid=\"chat-input\"]') && true", 10, "the chat input")

    def first_paint(self):
        """ms from navigation start to the first paint of the loaded document."""
        paint = self.wait("(() => { const p = Object.fromEntries(performance.getEntriesByType('paint')"
                          ".map(e => [e.name, e.startTime])); return (p['first-paint'] ?? p['first-contentful-paint']) != null && p; })()",
                          10, "a paint entry of the page")
        return paint.get("first-paint") or paint.get("first-contentful-paint")

    def send(self, text, use_enter=False):
        """Types text into chat-input and sends it (click on chat-send, or Enter); returns the
        new card's task id and the timings."""
        before = self.js("document.querySelectorAll('[data-testid=\"task\"]').length")
        self.js(f"__t.arm({before})")
        self.page.type_text(cdp.testid("chat-input"), text)
        if use_enter:
            self.page.press_key("Enter", vk=13, text="\r")
        else:
            self.page.click(cdp.testid("chat-send"))
        m = self.wait("__t.m.card && __t.m", 5, "the run card after sending (it must show at once)")
        card_ms = m["card"] - m["click"]
        # The card gets its task id when the server accepts the task (or says why not).
        r = self.wait(f"""(() => {{ const c = document.querySelectorAll('[data-testid="task"]')[{before}];
                          return c && (c.dataset.taskId ? {{id: c.dataset.taskId}} : c.dataset.status === 'failed' &&
                            {{error: c.querySelector('[data-testid="answer"]').textContent}}); }})()""",
                      15, "the task id of the new card")
        check("id" in r, f"sending {text!r} failed: {r.get('error')}")
        tid = r["id"]
        check(self.js("document.querySelector('[data-testid=\"chat-input\"]').value") == "",
              "the input was not cleared after sending")
        return int(tid), card_ms

    # ---- the test ----
    def run_test(self):
        a = self.args
        self.start()
        # The first load of a fresh browser also pays for starting its network service and a
        # renderer process for the site (hundreds of ms on a busy machine, none of it the page's):
        # printed as first_paint_cold_ms. The page's own first paint is that of a second load
        # in the same browser with the HTTP cache off (every file fetched again): first_paint_ms.
        self.open_page()
        print(f"first_paint_cold_ms {round(self.first_paint())}", flush=True)
        self.page.call("Network.enable")
        self.page.call("Network.setCacheDisabled", cacheDisabled=True)
        self.open_page()
        fp = self.first_paint()
        print(f"first_paint_ms {round(fp)}", flush=True)
        check(fp <= a.max_first_paint_ms, f"first paint took {fp:.0f} ms (> {a.max_first_paint_ms} ms)")
        check(self.js("document.querySelectorAll('[data-testid=\"task\"]').length") == 0,
              "a fresh profile should start with an empty chat")

        # -- case 1: compute, watch, answer --
        tid, card_ms = self.send(a.task)
        print(f"card_shown_ms {round(card_ms)}", flush=True)
        check(card_ms <= 1000, f"the run card showed {card_ms:.0f} ms after the click (not at once)")
        log(f"task {tid} sent")
        m = self.wait("__t.m.screen && __t.m", a.screen_timeout, "the screen image to load a live frame")
        print(f"screen_shown_ms {round(m['screen'] - m['click'])}", flush=True)
        check(self.js(f"__t.screenPath({tid})") == "data:",
              "the screen of a running task should show the live frame (a data: URL)")
        st = self.wait(f"(() => {{ const s = __t.state({tid}); return s && s.items.length >= 3 && s; }})()",
                       a.timeout, "3 progress items")
        # While the card runs, the list is collapsed to its header: the latest line.
        collapsed = self.js(f"""(() => {{ const c = __t.card({tid});
            if (c.dataset.mode !== 'running') return 'done';
            const items = __t.items({tid});
            const head = c.querySelector('[data-testid="progress-toggle"]');
            return JSON.stringify([__t.visible(head), items.some((li) => __t.visible(li)),
              head.querySelector('.latest').textContent === items[items.length - 1].querySelector('.text').textContent]);
          }})()""")
        if collapsed != "done":
            check(collapsed == "[true,false,true]",
                  f"a running card shows its header with the latest line and hides the list; got {collapsed}")
        st = self.wait(f"(() => {{ const s = __t.state({tid}); return s && s.mode === 'answer' && s; }})()",
                       a.timeout, "the answer of the task")
        check(st["status"] == "completed", f"task {tid} ended {st['status']}: {st['answer']!r}")
        check(st["answer"] and st["answer"].strip(), "the answer text is empty or not visible")
        log(f"task {tid} answered: {st['answer']!r}")
        self.check_items(st, tid)

        # -- the last progress screenshot, for the shell test to read the display --
        last = [it for it in st["items"] if it["shot"]][-1]
        dest = os.path.join(self.out, f"task{tid}_last_progress.png")
        data, ctype = self.fetch(last["shot"], dest)
        check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{last['shot']} is not a PNG (Content-Type {ctype})")
        print(f"last_screenshot {dest}", flush=True)

        self.check_timeline(tid, st)

        # -- case 2: the task waits for the person; 我已经操作 resumes it --
        tid2, _ = self.send(a.login_task, use_enter=True)
        log(f"task {tid2} sent (Enter)")
        st2 = self.wait(f"(() => {{ const s = __t.state({tid2}); return s && s.ack && s; }})()",
                        a.timeout, "the ack button (task.awaiting_user)")
        check(st2["status"] == "awaiting_user", f"the ack button shows but the card is {st2['status']}")
        check(st2["answer"] and st2["answer"].strip(), "awaiting_user shows no text")
        log(f"task {tid2} waits: {st2['answer']!r}")
        # A reload while it waits: the stream's history brings the prompt and the button back.
        self.page.reload()
        self.helpers()
        again = self.wait(f"(() => {{ const s = __t.state({tid2}); return s && s.ack && s; }})()",
                          20, "the ack button again after a reload")
        check(again["answer"] == st2["answer"], f"after a reload the prompt is {again['answer']!r}")
        self.page.click(f'{self.card_sel(tid2)} {cdp.testid("ack")}')
        st2 = self.wait(f"(() => {{ const s = __t.state({tid2}); return s && s.status !== 'awaiting_user' && s; }})()",
                        a.timeout, "the task to resume after 我已经操作")
        st2 = self.wait(f"(() => {{ const s = __t.state({tid2}); return s && s.mode === 'answer' && s.status !== 'awaiting_user' && s; }})()",
                        a.timeout, "the answer after resuming")
        check(st2["status"] == "completed", f"task {tid2} ended {st2['status']}: {st2['answer']!r}")
        check(st2["resumed"] >= 1, "the card never went back to running after the ack")
        check(self.js(f"!!document.querySelector('[data-testid=\"user-action-note\"][data-task-id=\"{tid2}\"]')"),
              "the prompt of the waiting task is not kept in the chat after it resumed")
        check(st2["answer"] and st2["answer"].strip(), "no answer after resuming")
        self.check_items(st2, tid2)
        log(f"task {tid2} answered: {st2['answer']!r}")

        tasks = [tid, tid2]
        if a.stop:
            tasks.append(self.stop_case())

        # -- a reload restores the session from the stream --
        before = {t: self.state(t) for t in tasks}
        check("session=" in self.js("location.search"), "the session id is not in the page URL")
        self.page.reload()
        self.helpers()
        for t in tasks:
            b = before[t]
            s = self.wait(f"(() => {{ const s = __t.state({t}); return s && s.mode === 'answer' && "
                          f"s.status === {json.dumps(b['status'])} && s.items.length === {len(b['items'])} && s; }})()",
                          20, f"task {t} restored after a reload ({b['status']}, {len(b['items'])} items)")
            for k in ("status", "answer"):
                check(s[k] == before[t][k], f"after a reload task {t} {k} is {s[k]!r}, was {before[t][k]!r}")
            check([i["index"] for i in s["items"]] == [i["index"] for i in before[t]["items"]],
                  f"after a reload task {t} has items {[i['index'] for i in s['items']]}")
        n = self.js("document.querySelectorAll('[data-testid=\"task\"]').length")
        check(n == len(tasks), f"after a reload the chat has {n} task cards, expected {len(tasks)}")
        self.check_console()
        st = self.js("JSON.stringify(window.eacuPage)")
        log(f"stream: {st}")
        log("ok")

    def stop_case(self):
        """--stop: a task stopped from its card's stop button mid-task shows 已停止."""
        a = self.args
        tid, _ = self.send(a.stop_task)
        self.wait(f"(() => {{ const s = __t.state({tid}); return s && (s.mode === 'answer' || "
                  f"(s.status === 'running' && s.items.length >= 1)); }})()", a.timeout, f"task {tid} running a step")
        check(self.state(tid)["mode"] == "running", f"task {tid} ended before it could be stopped (use a longer --stop-task)")
        self.page.click(f'{self.card_sel(tid)} {cdp.testid("stop")}')
        st = self.wait(f"(() => {{ const s = __t.state({tid}); return s && s.mode === 'answer' && s; }})()",
                       a.timeout, f"task {tid} to end after the stop click")
        check(st["status"] == "stopped", f"task {tid} ended {st['status']} after the stop click: {st['answer']!r}")
        check(st["answer"] == "已停止", f"a stopped task shows {st['answer']!r}, expected 已停止")
        print(f"stopped_task {tid}", flush=True)
        return tid

    def card_sel(self, tid):
        return f'[data-testid="task"][data-task-id="{int(tid)}"]'

    def check_items(self, st, tid):
        idx = [it["index"] for it in st["items"]]
        check(idx == list(range(1, len(idx) + 1)), f"task {tid}: progress items are {idx}, expected 1..n once each")
        check(len(idx) >= 3, f"task {tid}: {len(idx)} progress items, expected at least 3")
        nodes = [n["node"] for n in st["nodes"]]
        check(nodes == [str(i) for i in idx] + ["live"], f"task {tid}: scrubber nodes {nodes}")
        check(any(it["shot"] for it in st["items"]), f"task {tid}: no progress item has a screenshot")

    def check_timeline(self, tid, st):
        """Steps of a finished card: timeline, item -> screen, scrubber <-> list, live node."""
        card = self.card_sel(tid)
        self.page.click(f"{card} {cdp.testid('show-run')}")
        self.wait(f"__t.visible(__t.card({tid}).querySelector('[data-testid=\"screen\"]'))", 5,
                  "the steps of the finished card")
        self.page.click(f"{card} {cdp.testid('progress-toggle')}")
        self.wait(f"__t.items({tid}).every((li) => __t.visible(li))", 5, "the expanded timeline")
        shots = [it for it in st["items"] if it["shot"]]
        check(len(shots) >= 2, f"task {tid}: fewer than 2 progress items have a screenshot")
        pick = shots[len(shots) // 2]  # one in the middle, not the last
        k = pick["index"]
        self.page.click(f"{card} {cdp.testid('progress-item')}", index=k - 1)
        want = self.js(f"__t.frameUrl({json.dumps(pick['shot'])}).pathname")
        self.wait(f"__t.screenPath({tid}) === {json.dumps(want)} && __t.state({tid}).screenLoaded", 10,
                  f"the screen to show item {k}'s screenshot {want}")
        s = self.state(tid)
        check([n["node"] for n in s["nodes"] if n["sel"]] == [str(k)],
              f"clicking item {k} marks scrubber nodes {[n['node'] for n in s['nodes'] if n['sel']]}")
        log(f"item {k} -> screen {want}, scrubber node {k}")

        # scrubber -> list: a click on node 1, then a drag from node 1 to the node of the last shot
        self.page.click(f"{card} {cdp.testid('scrubber')} [data-node=\"1\"]")
        self.wait(f"__t.state({tid}).items[0].sel", 5, "item 1 marked after clicking scrubber node 1")
        first = next(it for it in st["items"] if it["index"] == 1)
        if first["shot"]:
            want1 = self.js(f"__t.frameUrl({json.dumps(first['shot'])}).pathname")
            self.wait(f"__t.screenPath({tid}) === {json.dumps(want1)}", 5, "item 1's screenshot after node 1")
        end = shots[-1]["index"]
        p0 = self.page.center(f"{card} {cdp.testid('scrubber')} [data-node=\"1\"]")
        p1 = self.page.center(f"{card} {cdp.testid('scrubber')} [data-node=\"{end}\"]")
        self.page.drag(p0, p1)
        self.wait(f"__t.state({tid}).items[{end - 1}].sel && __t.state({tid}).nodes[{end - 1}].sel", 5,
                  f"item {end} marked after dragging the scrubber to node {end}")
        sel = [it["index"] for it in self.state(tid)["items"] if it["sel"]]
        check(sel == [end], f"after the drag the list marks {sel}")
        log(f"scrubber click -> item 1, drag -> item {end}")

        # the live node: the last live frame again (the task ended, so no new ones)
        self.page.click(f"{card} {cdp.testid('scrubber')} [data-node=\"live\"]")
        self.wait(f"__t.state({tid}).nodes.find((n) => n.node === 'live').sel && "
                  f"!__t.state({tid}).items.some((i) => i.sel) && __t.screenPath({tid}) === 'data:'", 5,
                  "the live node selected and the live frame shown")
        log("live node -> live frame")

    def check_console(self):
        errors = [c for c in self.page.console() if c.startswith(("exception", "console.error"))]
        check(not errors, "the page logged errors:\n  " + "\n  ".join(errors))

    # ---- README screenshot ----
    def run_screenshot(self, path):
        a = self.args
        self.start()
        self.open_page()
        for attempt in range(3):
            tid, _ = self.send(a.task)
            # mid-task: running, a live frame on screen, some steps done
            self.wait(f"(() => {{ const s = __t.state({tid}); return s && (s.mode === 'answer' || "
                      f"(s.screenLoaded && s.items.filter((i) => i.status !== 'running').length >= {a.shot_after})); }})()",
                      a.timeout, f"{a.shot_after} finished steps of task {tid}")
            if a.expand:
                self.js(f"__t.card({tid}).querySelector('[data-testid=\"progress-toggle\"]').click()")
            if self.state(tid)["mode"] == "running":
                self.page.screenshot(path)
                if self.state(tid)["mode"] == "running":
                    print(f"screenshot {path}", flush=True)
                    self.wait(f"__t.state({tid}).mode === 'answer'", a.timeout, "the task to end")
                    return
            log(f"task {tid} ended before the shot; again")
            self.wait(f"__t.state({tid}).mode === 'answer'", a.timeout, "the task to end")
        raise CheckFailed("every task ended before a screenshot could be taken mid-task")

    def close(self):
        if self.browser:
            self.browser.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", help="the page, e.g. http://127.0.0.1:8080/")
    ap.add_argument("--token", help="the server's --token (put on the page URL as access_token)")
    ap.add_argument("--out", help="folder for screenshots and chromium.log (default: a new temp dir)")
    ap.add_argument("--task", default="compute 12*34")
    ap.add_argument("--login-task", default="compute 12*34 after login")
    ap.add_argument("--stop", action="store_true", help="also stop a task (--stop-task) from its stop button")
    ap.add_argument("--stop-task", default="compute 1234*5678")
    ap.add_argument("--timeout", type=float, default=180, help="seconds for a task to reach a state")
    ap.add_argument("--screen-timeout", type=float, default=20, help="seconds from send to the first frame")
    # A bound that holds in the parallel (and sanitized) suite: a page that has not painted in 5 s
    # is broken. The latency itself (about 240 ms) is measured by tests/bench/serve_bench.py.
    ap.add_argument("--max-first-paint-ms", type=float, default=5000)
    ap.add_argument("--screenshot", metavar="PATH", help="only take a 1280x800 shot of the page mid-task")
    ap.add_argument("--shot-after", type=int, default=3, help="finished steps before the shot")
    ap.add_argument("--expand", action="store_true", help="expand the timeline for the shot")
    ap.add_argument("--chromium", help="the browser binary (default: $CHROMIUM or chromium)")
    args = ap.parse_args()
    # A SIGTERM (the shell test's timeout) ends the test through `finally`, which closes
    # Chromium and removes its profile. (Killed outright, Chromium still exits: its pipe closes.)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    t = PageTest(args)
    try:
        if args.screenshot:
            t.run_screenshot(args.screenshot)
        else:
            t.run_test()
    except (CheckFailed, cdp.CDPError) as e:
        print(f"FAIL: serve_page: {e}", file=sys.stderr)
        if t.page:
            try:
                shot = os.path.join(t.out, "failure.png")
                t.page.screenshot(shot)
                print(f"  the page at the failure: {shot}", file=sys.stderr)
                for line in t.page.console()[-20:]:
                    print(f"  page {line}", file=sys.stderr)
            except cdp.CDPError:
                pass
        sys.exit(1)
    finally:
        t.close()


if __name__ == "__main__":
    main()
