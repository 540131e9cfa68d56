#!/usr/bin/env bash
# Issue 27 with issue 26's `eacu serve --device SPEC`: one serve task on an Android device. A
# local `eacu serve --device adb:SERIAL --allow-scripts` (no Xvfb, no window manager) runs a Lua
# task on the stand-in: the chat with 张三 opened by the tree, 你好 typed (ADBKeyBoard) and sent,
# verified in the tree. Checked: the task completed with the script's answer (the phone's screen
# size), its run was on the device (the run log's device names the serial), the stand-in's log has the broadcast, and no
# Xvfb was started; the page's live screen came from the phone (screen.live events of the
# phone's size on the SSE stream, taken by the run beside its steps: AdbDevice::captureLive).
# Stand-in only.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/../adb_device/standin.bash"
start_test
[ -z "${EACU_TEST_ADB_SERIAL:-}" ] || { echo "EACU_TEST_ADB_SERIAL ignored: the task needs the stand-in's app"; unset EACU_TEST_ADB_SERIAL; }
start_android
: >"$standin_log"
xvfbs=$(wc -l <"$XVFB_LOG" 2>/dev/null || echo 0)  # the stand-in's own screen is one
export EACU_BIN=$EACU OUT_DIR=$OUT SERIAL=$serial
python3 - "$here" <<'PY'
import os, sqlite3, sys
sys.path.insert(0, sys.argv[1])
from serve_client import Api, Fail, Server, Stream, live_fps, wait_until

out, serial = os.environ["OUT_DIR"], os.environ["SERIAL"]
db = os.path.join(out, "serve.db")
script = """ask_user("watch the phone, then OK")
launch("com.example.chat")
tap("a11y:张三")
wait({ resource_id = "chat_title", name = "张三" }, 10)
tap({ resource_id = "input" })
input("你好")
tap({ role = "button", name = "发送" })
wait({ role = "label", name = "你好" }, 10)
key("back")
local w, h = screen_size()
return string.format("sent on a %dx%d screen", w, h)"""
token = "t0ken-27"
server = Server(os.environ["EACU_BIN"], ["--device", "adb:" + serial, "--allow-scripts", "--token", token, "--db", db],
                os.path.join(out, "serve.log"))
try:
    api = Api(server, token=token)
    tid = api.ok("POST", "/task", {"script": script})["task_id"]
    # The task waits for the person until the stream is open, so none of its live frames is missed.
    session = wait_until(lambda: api.ok("GET", f"/task/{tid}").get("session_id"), 30, "the task's session")
    stream = Stream(server, session, token=token)
    stream.wait("task.awaiting_user", tid, timeout=60)
    api.ok("POST", "/api/chat/ack-user-action", {"task_id": tid})
    view = wait_until(lambda: (lambda v: v if v["status"] not in ("queued", "running") else None)(
        api.ok("GET", f"/task/{tid}")), 120, "the adb task to end")
    print(f"task {tid}: {view['status']}: {view.get('result')!r} {view.get('error')!r}")
    if view["status"] != "completed":
        raise Fail(f"expected the task on adb:{serial} to complete, got {view['status']}: {view.get('error')!r}")
    if view.get("result") != "sent on a 1080x2400 screen":
        raise Fail(f"expected the task's answer \"sent on a 1080x2400 screen\" (the phone's), got {view.get('result')!r}")
    live = stream.wait("screen.live", tid, timeout=30)
    fps, n = live_fps(stream, tid)
    print(f"android_serve_live_fps {fps:.1f} ({n} frames)")
    sizes = {(e[2]["width"], e[2]["height"]) for e in live}
    if sizes != {(1080, 2400)}:
        raise Fail(f"expected the live frames at the phone's size 1080x2400, got {sorted(sizes)}")
    if n < 2:
        raise Fail(f"expected live frames of the phone while the chat opened and the message went, got {n}")
    stream.close()
    c = sqlite3.connect(db)
    dev = c.execute("SELECT device FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0]
    c.close()
    if not dev.startswith(f"adb {serial} "):
        raise Fail(f"expected the serve's run on adb {serial}, got device {dev!r}")
finally:
    server.stop()
PY
expect_contains "$(cat "$standin_log")" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '你好' | base64)" "你好 sent to the device"
[ "$(wc -l <"$XVFB_LOG" 2>/dev/null || echo 0)" = "$xvfbs" ] || fail "an Xvfb was started for a --device adb task: $(cat "$XVFB_LOG")"
echo PASS
