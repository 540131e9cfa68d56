#!/usr/bin/env bash
# Issue 27 with issue 26's `eacu serve --device SPEC`: a serve task on an Android device, once
# on a local `eacu serve --device adb:SERIAL` and once through Redis (serve --queue and an
# `eacu worker --device adb:SERIAL`, the registry saying adb). Each (no Xvfb, no window manager) runs a Lua
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
import os, sys
sys.path.insert(0, sys.argv[1])
from serve_client import Fail, Server, gated_task, live_fps, run_devices
from redis_lib import QueueWithWorker

out, serial, eacu = os.environ["OUT_DIR"], os.environ["SERIAL"], os.environ["EACU_BIN"]
token = "t0ken-27"


def task_on(server, db, text, what):
    """One Lua task that sends `text` to 张三 on the phone; checks its end, its answer, the
    phone's live frames on the SSE stream and that the server's run log has its run on the phone."""
    script = f"""ask_user("watch the phone, then OK")
launch("com.example.chat")
tap("a11y:张三")
wait({{ resource_id = "chat_title", name = "张三" }}, 10)
tap({{ resource_id = "input" }})
input("{text}")
tap({{ role = "button", name = "发送" }})
wait({{ role = "label", name = "{text}" }}, 10)
key("back")
local w, h = screen_size()
return string.format("sent on a %dx%d screen", w, h)"""
    end, view, stream = gated_task(server, token, script, what)
    stream.close()
    if end[1] != "task.completed":
        raise Fail(f"{what}: expected the task on adb:{serial} to complete, got {end[1]}: {view.get('error')!r}")
    if view.get("result") != "sent on a 1080x2400 screen":
        raise Fail(f"{what}: expected the task's answer \"sent on a 1080x2400 screen\" (the phone's), got {view.get('result')!r}")
    live = stream.of("screen.live", end[2]["task_id"])
    fps, n = live_fps(stream, end[2]["task_id"])
    print(f"{what}: android_serve_live_fps {fps:.1f} ({n} frames)")
    sizes = {(e[2]["width"], e[2]["height"]) for e in live}
    if n < 2 or sizes != {(1080, 2400)}:
        raise Fail(f"{what}: expected live frames of the phone (1080x2400) while the chat opened and the message "
                   f"went, got {n} of sizes {sorted(sizes)}")
    devs = run_devices(db)
    if not any(d.startswith(f"adb {serial} ") for d in devs):
        raise Fail(f"{what}: expected the task's run on adb {serial} in the server's run log, got devices {devs!r}")


# 1. A local eacu serve --device adb:SERIAL.
db = os.path.join(out, "serve.db")
server = Server(eacu, ["--device", "adb:" + serial, "--allow-scripts", "--token", token, "--db", db],
                os.path.join(out, "serve.log"))
try:
    task_on(server, db, "你好", "local serve")
finally:
    server.stop()

# 2. Through Redis: eacu serve --queue and one eacu worker --device adb:SERIAL.
with QueueWithWorker(eacu, out, "wa", ["--allow-scripts", "--token", token],
                     ["--device", "adb:" + serial, "--allow-scripts"], token=token) as q:
    if q.listed["device"] != "adb" or q.listed["slots"] != 1:
        raise Fail(f"expected the registry to say device adb with one slot, got {q.listed}")
    task_on(q.server, q.db, "再见", "redis worker")
PY
expect_contains "$(cat "$standin_log")" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '你好' | base64)" "你好 sent to the device"
expect_contains "$(cat "$standin_log")" "am broadcast -a ADB_INPUT_B64 --es msg $(printf '再见' | base64)" "再见 sent to the device by the Redis worker"
[ "$(wc -l <"$XVFB_LOG" 2>/dev/null || echo 0)" = "$xvfbs" ] || fail "an Xvfb was started for a --device adb task: $(cat "$XVFB_LOG")"
echo PASS
