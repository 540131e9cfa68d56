#!/usr/bin/env python3
"""eacu serve against hostile input (issue 15): path traversal on every URL form, markup and
script in a task's text shown on the chat page (headless Chromium) as text and never run, and
the serve token and the model API key kept out of the run log, the reports, the console and the
page's error messages.

Usage: serve_hostile.py EACU OUT URL TOKEN. The server runs with --token TOKEN and the model key
in EACU_MODEL_API_KEY (serve_hostile.sh starts both). Prints "ok: ..." per check."""
import http.client
import json
import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

EACU, OUT, URL, TOKEN = sys.argv[1:5]
HOSTILE = ("compute 2+3 <img src=x onerror=\"document.body.dataset.pwned='img'\">"
           "</script><script>document.body.dataset.pwned='script'</script><!--")


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print("ok:", what.split(":")[0])


def raw_get(path, token=TOKEN):
    """GET with the path sent byte for byte (no client-side normalisation)."""
    u = urllib.parse.urlsplit(URL)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.putrequest("GET", path, skip_accept_encoding=True)
    if token:
        c.putheader("Authorization", "Bearer " + token)
    c.endheaders()
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def traversal():
    secret = open("/etc/passwd", "rb").read()[:20]
    paths = ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
             "/api/frames/../../../../etc/passwd", "/api/frames/1/../../../../etc/passwd",
             "/api/frames/..%2f..%2f..%2fetc%2fpasswd", "/api/frames/1%2f..%2f..%2fetc%2fpasswd",
             "/index.html/../../../../etc/passwd", "/app.js%00../../etc/passwd", "/..%5c..%5c..%5cetc%5cpasswd",
             "/api/tasks/1/live.jpg/../../../../etc/passwd", "/style.css/..%2f..%2f..%2fetc%2fpasswd",
             "//etc/passwd", "/.%2e/.%2e/.%2e/etc/passwd", "/%252e%252e/%252e%252e/etc/passwd"]
    for p in paths:
        st, body = raw_get(p)
        check(st in (400, 403, 404) and secret not in body, f"GET {p} is refused: {st} {body[:80]!r}")
    # The page's own files are served, and only those.
    st, body = raw_get("/app.js")
    check(st == 200 and b"function" in body, f"GET /app.js serves the page script: {st}")
    st, _ = raw_get("/nope.js")
    check(st == 404, f"GET /nope.js is 404: {st}")


def page_case():
    page_url = URL.rstrip("/") + "/?access_token=" + urllib.parse.quote(TOKEN)
    with cdp.Browser(width=1280, height=800, log_path=os.path.join(OUT, "chromium.log")) as browser:
        page = browser.new_page()
        page.navigate(page_url, timeout=30)
        page.wait_for("document.querySelector('[data-testid=\"chat-input\"]') && true", 10, "the chat input")
        page.type_text(cdp.testid("chat-input"), HOSTILE)
        page.click(cdp.testid("chat-send"))
        tid = page.wait_for("(() => { const c = document.querySelector('[data-testid=\"task\"]');"
                            " return c && c.dataset.taskId; })()", 15, "the task card's id")
        status = page.wait_for("(() => { const c = document.querySelector('[data-testid=\"task\"]');"
                               " const s = c && c.dataset.status;"
                               " return ['completed', 'failed', 'stopped'].includes(s) && s; })()",
                               180, "the hostile task to end")
        print(f"task {tid} {status}")
        for when in ("live", "after a reload"):
            if when != "live":
                page.reload(timeout=30)
                page.wait_for("document.querySelector('[data-testid=\"task\"]') && true", 15,
                              "the session's history after a reload")
            check(page.evaluate("document.body.dataset.pwned === undefined"),
                  f"no script of the task's text ran ({when}): {page.evaluate('document.body.dataset.pwned')}")
            check(page.evaluate("document.querySelectorAll('img[src=x]').length === 0 && [...document.scripts]"
                                ".every(s => !s.text.includes('pwned'))"),
                  f"no element made from the task's text ({when})")
            text = page.evaluate("document.body.innerText")
            check("<img src=x onerror=" in text and "</script><script>" in text,
                  f"the task's text is shown as text ({when}): {text[:300]!r}")
            check(TOKEN not in page.evaluate("document.body.innerText"), f"the token is not on the page ({when})")
        return int(tid)


def secrets_kept(tid):
    key = os.environ["EACU_MODEL_API_KEY"]
    db = os.path.join(OUT, "serve.db")
    dump = subprocess.run(["sqlite3", db, ".dump"], capture_output=True, text=True, check=True).stdout
    check(key not in dump and TOKEN not in dump, "the run log holds neither the API key nor the token")
    run = subprocess.run(["sqlite3", db, f"SELECT run_id FROM tasks WHERE id={tid}"], capture_output=True,
                         text=True, check=True).stdout.strip()
    check(run != "", f"task {tid} has a run")
    report = os.path.join(OUT, "report.html")
    out = subprocess.run([EACU, "report", run, "--db", db, "-o", report], capture_output=True, text=True)
    check(out.returncode == 0, f"eacu report of run {run}: {out.stderr}")
    html = open(report, encoding="utf-8").read()
    check(key not in html and TOKEN not in html, "the report holds neither the API key nor the token")
    shown = subprocess.run([EACU, "show", run, "--db", db, "--no-color"], capture_output=True, text=True)
    check(key not in shown.stdout + shown.stderr, "eacu show does not print the API key")
    # A wrong token's error does not echo the right one, nor the one sent.
    st, body = raw_get("/healthz", token="wrong-" + TOKEN[:4])
    check(st == 401 and TOKEN.encode() not in body and b"wrong-" not in body, f"a wrong token's 401: {body!r}")
    return run


def main():
    try:
        traversal()
        tid = page_case()
        secrets_kept(tid)
    except (Fail, cdp.CDPError) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
