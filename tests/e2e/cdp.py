#!/usr/bin/env python3
"""A small Chrome DevTools Protocol client for the end-to-end tests (standard library only).

Headless Chromium is started with --remote-debugging-pipe: it reads commands from its fd 3 and
writes answers and events to its fd 4, each message one JSON text followed by a NUL byte (no
websocket needed). Pages are attached with flattened sessions (Target.attachToTarget
{flatten: true}): a command for a page carries that page's "sessionId".

    with cdp.Browser(width=1280, height=800) as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8080/")
        page.type_text(cdp.testid("chat-input"), "compute 12*34")
        page.click(cdp.testid("chat-send"))
        page.wait_for("document.querySelectorAll('[data-testid=progress-item]').length >= 3",
                      timeout=60, what="3 progress items")
        page.screenshot("page.png")

Every wait has a deadline (CDPTimeout names what was awaited); leaving the `with` block (or
close()) closes Chromium (Browser.close, then SIGKILL if it lingers) and removes its profile.
"""
import base64
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time


class CDPError(Exception):
    """A protocol error answer, a JavaScript exception, or Chromium gone."""


class CDPTimeout(CDPError):
    """A wait or a command that passed its deadline."""


def testid(name, scope=None):
    """The CSS selector of data-testid NAME, optionally inside the selector SCOPE."""
    sel = f'[data-testid="{name}"]'
    return f"{scope} {sel}" if scope else sel


def find_chromium():
    for c in (os.environ.get("CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
              shutil.which("google-chrome")):
        if c:
            return c
    raise CDPError("chromium is not installed (make deps installs it)")


def chromium_tmp():
    """A TMPDIR of Chromium's own, as eacu's ChromiumBrowser makes one: under $TMPDIR when
    Chromium's singleton socket ($TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket) fits in
    sockaddr_un's 107 characters there, else under /tmp (a deeper path ends Chromium at start:
    "Socket path too long"). Two Chromiums sharing one TMPDIR held a page on its last document."""
    base = tempfile.gettempdir()
    if len(base) + len("/eacu-ct.XXXXXXXX") + len("/org.chromium.Chromium.XXXXXX/SingletonSocket") > 107:
        base = "/tmp"
    return tempfile.mkdtemp(prefix="eacu-ct.", dir=base)


class Browser:
    """One headless Chromium driven over the pipe."""

    def __init__(self, width=1280, height=800, chromium=None, log_path=None, extra_args=()):
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="eacu-cdp-")
        self.tmp = chromium_tmp()
        self.proc = None
        self._buf = b""
        self._next_id = 0
        self._answers = {}   # command id -> message
        self.events = []     # every event received: {"method", "params", "sessionId"?}
        self._closed = False
        # Two pipes: ours to write commands into (Chromium's fd 3), theirs to write answers (fd 4).
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()
        args = [chromium or find_chromium(), "--headless=new", "--no-sandbox", "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--mute-audio", "--hide-scrollbars", *extra_args, "about:blank"]

        def child_fds():
            # In the child, before exec: put the pipe ends on fds 3 and 4. They are first moved
            # above 10 so that neither dup2 overwrites the other (cmd_r or res_w may be 3 or 4).
            import fcntl
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(res_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)   # dup2 leaves the new fd inheritable (no FD_CLOEXEC)
            os.dup2(b, 4)
            os.close(a)
            os.close(b)

        log = open(log_path, "ab") if log_path else subprocess.DEVNULL
        try:
            # close_fds=False: the other fds are non-inheritable (Python's default), so only 0-4
            # reach Chromium; start_new_session: its helpers can be signalled as one group.
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         env={**os.environ, "TMPDIR": self.tmp}, close_fds=False, preexec_fn=child_fds, start_new_session=True)
        except BaseException:
            for fd in (cmd_r, cmd_w, res_r, res_w):
                os.close(fd)
            shutil.rmtree(self.profile, ignore_errors=True)
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise
        finally:
            if log is not subprocess.DEVNULL:
                log.close()
        os.close(cmd_r)
        os.close(res_w)
        self._w, self._r = cmd_w, res_r
        try:
            self.version = self.send("Browser.getVersion", timeout=30)
        except BaseException:
            self.close()
            raise

    # ---- the wire ----
    def _write(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            try:
                n = os.write(self._w, data)
            except BrokenPipeError:
                raise CDPError(f"chromium is gone (exit code {self.proc.poll()})") from None
            data = data[n:]

    def _pump(self, deadline):
        """Reads what Chromium has written, waiting at most until deadline (time.monotonic())."""
        wait = max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([self._r], [], [], wait)
        if not ready:
            return
        chunk = os.read(self._r, 1 << 20)
        if not chunk:
            raise CDPError(f"chromium closed the pipe (exit code {self.proc.poll()})")
        self._buf += chunk
        *msgs, self._buf = self._buf.split(b"\0")
        for raw in msgs:
            if not raw:
                continue
            msg = json.loads(raw)
            if "id" in msg:
                self._answers[msg["id"]] = msg
            else:
                self.events.append(msg)

    def send(self, method, params=None, session=None, timeout=30):
        """Sends a command and returns its result; raises CDPError on an error answer."""
        if self._closed:
            raise CDPError("the browser is closed")
        self._next_id += 1
        cid = self._next_id
        msg = {"id": cid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._write(msg)
        deadline = time.monotonic() + timeout
        while cid not in self._answers:
            if time.monotonic() >= deadline:
                raise CDPTimeout(f"{method}: no answer within {timeout} s")
            self._pump(deadline)
        ans = self._answers.pop(cid)
        if "error" in ans:
            raise CDPError(f"{method}: {ans['error'].get('message')} {ans['error'].get('data', '')}".strip())
        return ans.get("result", {})

    def poll_events(self, timeout=0.0):
        """Reads the messages that arrive within timeout seconds (at least what is pending)."""
        deadline = time.monotonic() + timeout
        while True:
            self._pump(deadline)
            if time.monotonic() >= deadline:
                return

    # ---- pages ----
    def new_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        page.call("Page.enable")
        page.call("Runtime.enable")
        # The viewport is the window size in headless mode; make sure, since screenshots for the
        # README and the layout checks assume it.
        size = page.evaluate("[innerWidth, innerHeight]")
        if size != [self.width, self.height]:
            page.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                      deviceScaleFactor=1, mobile=False)
        return page

    # ---- the end ----
    def close(self):
        """Closes Chromium (Browser.close, then SIGKILL of its process group) and removes its profile and TMPDIR."""
        if self._closed:
            return
        self._closed = True
        if self.proc and self.proc.poll() is None:
            try:
                self._next_id += 1
                self._write({"id": self._next_id, "method": "Browser.close", "params": {}})
            except (CDPError, OSError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.proc:
            # The browser's helpers (zygote, GPU, renderers) are in its process group.
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for fd in (getattr(self, "_w", None), getattr(self, "_r", None)):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        shutil.rmtree(self.profile, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Page:
    """One attached page (a flattened session)."""

    def __init__(self, browser, target_id, session_id):
        self.browser, self.target_id, self.session = browser, target_id, session_id

    def call(self, method, timeout=30, **params):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def events(self, method):
        """The events of this page with that method, received so far (oldest first)."""
        self.browser.poll_events()
        return [e["params"] for e in self.browser.events
                if e.get("sessionId") == self.session and e.get("method") == method]

    def console(self):
        """Console messages and uncaught exceptions of the page so far, as text lines."""
        out = []
        for p in self.events("Runtime.consoleAPICalled"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append(f"console.{p.get('type')}: {args}")
        for p in self.events("Runtime.exceptionThrown"):
            d = p.get("exceptionDetails", {})
            out.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
        return out

    def navigate(self, url, timeout=30):
        """Loads url and waits for its load event."""
        before = len(self.events("Page.loadEventFired"))
        res = self.call("Page.navigate", url=url, timeout=timeout)
        if res.get("errorText"):
            raise CDPError(f"navigate {url}: {res['errorText']}")
        deadline = time.monotonic() + timeout
        while len(self.events("Page.loadEventFired")) <= before:
            if time.monotonic() >= deadline:
                raise CDPTimeout(f"navigate {url}: no load event within {timeout} s")
            self.browser.poll_events(min(0.1, max(0.0, deadline - time.monotonic())))

    def reload(self, timeout=30):
        before = len(self.events("Page.loadEventFired"))
        self.call("Page.reload")
        deadline = time.monotonic() + timeout
        while len(self.events("Page.loadEventFired")) <= before:
            if time.monotonic() >= deadline:
                raise CDPTimeout(f"reload: no load event within {timeout} s")
            self.browser.poll_events(min(0.1, max(0.0, deadline - time.monotonic())))

    def evaluate(self, expression, timeout=30, await_promise=True):
        """The value of a JavaScript expression (returned by value; promises awaited)."""
        res = self.call("Runtime.evaluate", timeout=timeout, expression=expression,
                        returnByValue=True, awaitPromise=await_promise, userGesture=True)
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            desc = d.get("exception", {}).get("description") or d.get("text")
            raise CDPError(f"JavaScript error in {expression[:120]!r}: {desc}")
        return res.get("result", {}).get("value")

    def wait_for(self, expression, timeout, what=None, interval=0.05):
        """Polls a JavaScript expression until it is truthy (in JavaScript; a promise is awaited);
        returns its value (by value). Raises
        CDPTimeout (naming `what`, and the last value) when timeout seconds pass first."""
        deadline = time.monotonic() + timeout
        value = None
        # Truthiness is JavaScript's (a DOM element comes back by value as {}).
        wrapped = f"(async () => {{ const v = await ({expression}\n); return {{ok: !!v, v}}; }})()"
        while True:
            r = self.evaluate(wrapped, timeout=max(1.0, deadline - time.monotonic()))
            value = r.get("v")
            if r.get("ok"):
                return value
            now = time.monotonic()
            if now >= deadline:
                raise CDPTimeout(f"waited {timeout} s for {what or expression}; last value {value!r}")
            # Poll again soon; reading the pipe meanwhile keeps the event list current.
            self.browser.poll_events(min(interval, deadline - now))

    def center(self, selector, index=0):
        """The centre (CSS pixels, viewport) of a visible element, scrolled into view first."""
        js = f"""(() => {{
          const el = document.querySelectorAll({json.dumps(selector)})[{int(index)}];
          if (!el) return null;
          el.scrollIntoView({{block: 'center', inline: 'center'}});
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) return {{hidden: true}};
          return {{x: r.left + r.width / 2, y: r.top + r.height / 2}};
        }})()"""
        c = self.evaluate(js)
        if c is None:
            raise CDPError(f"no element {selector} [{index}]")
        if c.get("hidden"):
            raise CDPError(f"element {selector} [{index}] is not visible")
        return c["x"], c["y"]

    def mouse(self, kind, x, y, buttons=0, button="none", clicks=0):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button, buttons=buttons,
                  clickCount=clicks)

    def click_at(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, buttons=1, button="left", clicks=1)
        self.mouse("mouseReleased", x, y, buttons=0, button="left", clicks=1)

    def double_click_at(self, x, y):
        """Two presses at (x, y) as a double click dispatches them (clickCount 1, then 2)."""
        self.mouse("mouseMoved", x, y)
        for n in (1, 2):
            self.mouse("mousePressed", x, y, buttons=1, button="left", clicks=n)
            self.mouse("mouseReleased", x, y, buttons=0, button="left", clicks=n)

    def click(self, selector, index=0):
        """A real mouse click at the element's centre."""
        x, y = self.center(selector, index)
        self.click_at(x, y)
        return x, y

    def drag(self, start, end, steps=8):
        """Presses the left button at start (x, y), moves in steps to end, releases there."""
        (x0, y0), (x1, y1) = start, end
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, buttons=1, button="left", clicks=1)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps, buttons=1, button="left")
        self.mouse("mouseReleased", x1, y1, buttons=0, button="left", clicks=1)

    def type_text(self, selector, text, index=0):
        """Clicks the element (to focus it) and inserts text as typed (input events fire)."""
        self.click(selector, index)
        self.call("Input.insertText", text=text)

    def press_key(self, key, code=None, vk=None, text=None, modifiers=0):
        """A key press: e.g. press_key("Enter", vk=13, text="\\r"); modifiers 8 = Shift."""
        base = {"key": key, "code": code or key, "windowsVirtualKeyCode": vk or 0,
                "nativeVirtualKeyCode": vk or 0, "modifiers": modifiers}
        down = dict(base, type="keyDown" if text else "rawKeyDown")
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", **dict(base, type="keyUp"))

    def screenshot(self, path, fmt="png"):
        """Saves the viewport as PNG to path; returns the byte count."""
        data = base64.b64decode(self.call("Page.captureScreenshot", format=fmt, timeout=60)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def first_paint(self):
        """{"first-paint": ms, "first-contentful-paint": ms} of the current document (since
        navigation start), from performance.getEntriesByType('paint')."""
        return self.evaluate("Object.fromEntries(performance.getEntriesByType('paint')"
                             ".map(e => [e.name, e.startTime]))") or {}
