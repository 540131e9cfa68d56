#!/usr/bin/env bash
# The Windows device agent (agent/, eacu-agent.exe) under Wine 8 on the test's own Xvfb, driven
# by `eacu run --device agent:HOST:PORT`: the agent and a Win32 form of our own cross-built with
# mingw-w64; the protocol's refusals and malformed messages (agent_proto.py); a Lua script that
# fills the form by tree, text and image targets, works its windows, the clipboard and notepad;
# a wrong token; the agent killed in the middle of a run. One Wine prefix for all of it.
# EACU_TEST_AGENT=HOST:PORT (with EACU_AGENT_TOKEN, and EACU_TEST_FORM: the Windows path of
# eacu-test-form.exe copied there, EACU_TEST_DIR: a writable Windows folder) runs the protocol
# checks and the script against an agent on a real Windows machine instead.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/win32/wine_env.bash"
start_test
trap stop_wine EXIT

# The agent and the form, cross-built (the same CMake project as make agent-win).
build_agent

if [ -n "${EACU_TEST_AGENT:-}" ]; then
  addr=$EACU_TEST_AGENT; token=${EACU_AGENT_TOKEN:-}
  [ -n "${EACU_TEST_FORM:-}" ] && [ -n "${EACU_TEST_DIR:-}" ] ||
    fail "EACU_TEST_AGENT needs EACU_TEST_FORM (where eacu-test-form.exe was copied) and EACU_TEST_DIR (a Windows folder)"
  python3 "$here/agent_proto.py" "$addr" "$token"
  EACU_AGENT_TOKEN=$token "$EACU" run "$here/windows_agent.lua" --device "agent:$addr" --db "$OUT/runs.db" -- \
    "\"$EACU_TEST_FORM\" \"$EACU_TEST_DIR\\form1.txt\"" "\"$EACU_TEST_FORM\" \"$EACU_TEST_DIR\\form2.txt\"" \
    "$EACU_TEST_DIR\\note.txt" "$here/images/win_agree.png"
  echo "windows_agent: passed against the agent at $addr"
  exit 0
fi

start_wine_xvfb 1280x800
make_wine_prefix "$OUT/wine" 1280x800

# Any address but loopback needs a token.
rc=0
refused=$(timeout 60 "$WINE" "$agent_exe" --host 0.0.0.0 --port 0 2>&1) || rc=$?
expect_eq "$rc" "2" "the agent's exit code on 0.0.0.0 without a token"
expect_contains "$refused" "refusing to listen on 0.0.0.0 without --token" "the agent's refusal"

token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
start_agent

# Wine 8 has no usable UI Automation: the agent says it takes the MSAA path, and its answers do.
expect_contains "$(cat "$OUT/agent.out")" "eacu-agent: element tree through MSAA (UI Automation not available: " \
  "the agent's element tree source"

# The protocol spoken directly: refusals, malformed messages, launch/wait, capture sizes, the
# tree's source (msaa, as the hello's "uia": false says).
EXPECT_TREE_SOURCE=msaa timeout 120 python3 "$here/agent_proto.py" "$addr" "$token" || fail "agent_proto.py failed"

# The Lua script through eacu.
W=$(winepath_w "$OUT")
db=$OUT/runs.db
rc=0
out=$(EACU_AGENT_TOKEN=$token timeout 300 "$EACU" run "$here/windows_agent.lua" --device "agent:$addr" --db "$db" -- \
  "\"$(winepath_w "$form_exe")\" \"$W\\form1.txt\"" "\"$(winepath_w "$form_exe")\" \"$W\\form2.txt\"" \
  "$W\\note.txt" "$here/images/win_agree.png" 2>"$OUT/run.err") || rc=$?
[ "$rc" = 0 ] || { cat "$OUT/run.err" >&2; echo "$out" >&2; fail "eacu run windows_agent.lua exited $rc"; }
echo "$out"
expect_contains "$out" "notepad: saved" "the script's last part"
expect_eq "$(cat "$OUT/form1.txt")" "$(printf 'form: ready\nform: 张三|北京|1')" "the form's output"
expect_eq "$(tail -1 "$OUT/form2.txt")" "form: closed" "the closed form's output"
note=$(sed 's/^\xef\xbb\xbf//' "$OUT/note.txt" | tr -d '\r')
expect_eq "$note" "$(printf '你好 eacu\n粘贴的文字')" "the file notepad saved (UTF-8)"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_contains "$(sqlite3 "$db" "SELECT device FROM runs WHERE id=$run")" "agent $addr windows" "the run's device"
expect_eq "$(sqlite3 "$db" "SELECT group_concat(m, ' ') FROM (SELECT CASE WHEN target LIKE '%win_agree.png%' AND method NOT IN ('a11y', 'relative') THEN 'image' ELSE method END AS m FROM steps WHERE run_id=$run AND action='tap' AND status='ok' ORDER BY idx LIMIT 4)")" \
  "a11y relative image a11y" "the form's taps by tree, text, image and tree"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='window' AND status='ok'")" "10" "window steps (8 on the form, 2 on notepad)"
grep -q "$token" "$OUT/agent.out" "$OUT/agent.err" "$OUT/run.err" && fail "the token appears in a log"

# Replay on the agent: a run that fills the name and confirms, replayed (actions) on a new form.
form_cmd="\"$(winepath_w "$form_exe")\""
cat >"$OUT/fill.lua" <<'LUA'
local f = remote_launch(arg[1])
assert(window({ title = "eacu 测试表单" }, 30))
tap { role = "text", name = "姓名", timeout = 20 }
input "李四"
tap { role = "push button", name = "确定" }
assert(f:wait(10) == 10, "the form exits with 10 (OK, not agreed)")
LUA
cat >"$OUT/open.lua" <<'LUA'
remote_launch(arg[1])
assert(window({ title = "eacu 测试表单" }, 30))
LUA
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" run "$OUT/fill.lua" --device "agent:$addr" --db "$db" -- "$form_cmd \"$W\\fill1.txt\"" \
  >"$OUT/fill.out" 2>&1 || fail "fill.lua: $(cat "$OUT/fill.out")"
fill=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" run "$OUT/open.lua" --device "agent:$addr" --db "$db" -- "$form_cmd \"$W\\fill2.txt\"" \
  >"$OUT/open.out" 2>&1 || fail "open.lua: $(cat "$OUT/open.out")"
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" replay "$fill" --mode actions --device "agent:$addr" --db "$db" \
  >"$OUT/replay.out" 2>&1 || fail "the replay on the agent: $(cat "$OUT/replay.out"); $("$EACU" show "$(sqlite3 "$db" "SELECT MAX(id) FROM runs")" --db "$db" 2>&1)"
for i in $(seq 100); do [ "$(tail -1 "$OUT/fill2.txt")" = "form: 李四||0" ] && break; sleep 0.1; done
expect_eq "$(tail -1 "$OUT/fill2.txt")" "form: 李四||0" "the replayed form's output"

# A look-alike is not taken for the target: on a new form whose name field already holds text,
# only the empty city field 44 px below looks like the recorded name field; the replay stops at
# that tap (the field's label differs) instead of typing into the city field.
cat >"$OUT/look.lua" <<'LUA'
remote_launch(arg[1])
assert(window({ title = "eacu 测试表单" }, 30))
set_text { role = "text", name = "姓名", text = "已经填了很长的一段文字" }
LUA
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" run "$OUT/look.lua" --device "agent:$addr" --db "$db" -- "$form_cmd \"$W\\look.txt\"" \
  >"$OUT/look.out" 2>&1 || fail "look.lua: $(cat "$OUT/look.out")"
rc=0
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" replay "$fill" --mode actions --device "agent:$addr" --db "$db" --timeout 3 \
  >"$OUT/look-replay.out" 2>&1 || rc=$?
expect_eq "$rc" "1" "the replay's exit code with a look-alike only"
expect_contains "$(cat "$OUT/look-replay.out")" "replay stopped at step 1 (tap" "the look-alike replay's stop"
expect_contains "$(cat "$OUT/look-replay.out")" "away from its recorded one, but not at one place only with the recorded surroundings" \
  "the look-alike replay's reason"
printf '%s\n' 'window({ title = "eacu 测试表单" }, 10):close()' >"$OUT/close.lua"
EACU_AGENT_TOKEN=$token timeout 60 "$EACU" run "$OUT/close.lua" --device "agent:$addr" --db "$db" >"$OUT/close.out" 2>&1 ||
  fail "close.lua: $(cat "$OUT/close.out")"
for i in $(seq 100); do [ "$(tail -1 "$OUT/look.txt")" = "form: closed" ] && break; sleep 0.1; done
expect_eq "$(tail -1 "$OUT/look.txt")" "form: closed" "the look-alike form closed"

# The REPL on the agent (lines on stdin): the form filled and confirmed, recorded as one run.
printf '%s\n' "p = remote_launch([[$form_cmd \"$W\\repl.txt\"]])" 'w = window({ title = "eacu 测试表单" }, 30)' \
  'print("repl: window " .. w.title)' 'tap { role = "text", name = "姓名", timeout = 20 }' 'input "赵六"' \
  'tap { role = "push button", name = "确定" }' 'print("repl: exit " .. p:wait(10))' |
  EACU_AGENT_TOKEN=$token timeout 120 "$EACU" repl --device "agent:$addr" --db "$db" >"$OUT/repl.out" 2>&1 ||
  fail "eacu repl on the agent: $(cat "$OUT/repl.out")"
expect_contains "$(cat "$OUT/repl.out")" "repl: window eacu 测试表单" "the REPL's window line"
expect_contains "$(cat "$OUT/repl.out")" "repl: exit 10" "the REPL's form exit code"
expect_eq "$(tail -1 "$OUT/repl.txt")" "form: 赵六||0" "the form the REPL filled"

# eacu run --task on the agent: the sentence routed to the test's app module (win32/winform,
# found beside the working directory), which fills and confirms the form.
out=$(cd "$here/win32" && EACU_TEST_FORM_CMD="$form_cmd \"$W\\task.txt\"" EACU_AGENT_TOKEN=$token timeout 120 \
  "$EACU" run --task "fill the form as 王五" --device "agent:$addr" --db "$db" 2>&1) || fail "eacu run --task on the agent: $out"
expect_contains "$out" "module winform" "the task's module"
expect_contains "$out" "passed (task" "the task run's end"
expect_eq "$(tail -1 "$OUT/task.txt")" "form: 王五||0" "the form the task filled"

# eacu serve --device agent:HOST:PORT (issue 26's device for serve): one Lua task fills the form
# through a local serve, then one through Redis (serve --queue, eacu worker --device agent:...); the page's live screen comes
# from the agent (AgentDevice::captureLive, a connection of its own beside the run's). The task
# first waits for the person, so the stream is open before any live frame.
EACU_BIN=$EACU OUT_DIR=$OUT ADDR=$addr AGENT_TOKEN=$token FORM_CMD="$form_cmd \"$W\\SERVE.txt\"" \
  timeout 300 python3 - "$here" <<'PY' || fail "eacu serve --device agent (above)"
import os, sys
sys.path.insert(0, sys.argv[1])
from serve_client import Fail, Server, gated_task, live_fps, run_devices
from redis_lib import QueueWithWorker

out, addr, eacu = os.environ["OUT_DIR"], os.environ["ADDR"], os.environ["EACU_BIN"]
env = dict(os.environ, EACU_AGENT_TOKEN=os.environ["AGENT_TOKEN"])
token = "t0ken-28"


def task_on(server, db, name, what):
    """One Lua task that opens the form, fills in `name` and confirms (its output goes to
    OUT/<what>.txt); checks its end, the form's exit code, live frames of the agent's screen on the
    SSE stream and that the server's run log has its run on the agent."""
    form = os.environ["FORM_CMD"].replace("SERVE", what)
    script = f"""ask_user("watch the form, then OK")
local p = remote_launch([[{form}]])
window({{ title = "eacu 测试表单" }}, 30)
tap {{ role = "text", name = "姓名", timeout = 20 }}
input "{name}"
tap {{ role = "push button", name = "确定" }}
return "exit " .. p:wait(10)"""
    end, view, stream = gated_task(server, token, script, what)
    stream.close()
    if end[1] != "task.completed" or view.get("result") != "exit 10":
        raise Fail(f"{what}: expected the task on agent:{addr} to complete with \"exit 10\", got {end[1]}: {view}")
    live = stream.of("screen.live", end[2]["task_id"])
    fps, n = live_fps(stream, end[2]["task_id"])
    print(f"{what}: agent_serve_live_fps {fps:.1f} ({n} frames)")
    sizes = {(e[2]["width"], e[2]["height"]) for e in live}
    if n < 2 or len(sizes) != 1:
        raise Fail(f"{what}: expected live frames of the agent's one screen while the form opened and filled, "
                   f"got {n} of sizes {sorted(sizes)}")
    devs = run_devices(db)
    if not any(d.startswith(f"agent {addr} ") for d in devs):
        raise Fail(f"{what}: expected the task's run on agent {addr} in the server's run log, got devices {devs!r}")


# 1. A local eacu serve --device agent:HOST:PORT.
db = os.path.join(out, "serve.db")
server = Server(eacu, ["--device", "agent:" + addr, "--allow-scripts", "--token", token, "--db", db],
                os.path.join(out, "serve.log"), env=env)
try:
    task_on(server, db, "孙七", "serve")
finally:
    server.stop()

# 2. Through Redis: eacu serve --queue and one eacu worker --device agent:HOST:PORT.
with QueueWithWorker(eacu, out, "wa", ["--allow-scripts", "--token", token],
                     ["--device", "agent:" + addr, "--allow-scripts"], token=token, env=env) as q:
    if q.listed["device"] != "agent" or q.listed["slots"] != 1:
        raise Fail(f"expected the registry to say device agent with one slot, got {q.listed}")
    task_on(q.server, q.db, "周八", "worker")
PY
expect_eq "$(tail -1 "$OUT/serve.txt")" "form: 孙七||0" "the form the serve task filled"
expect_eq "$(tail -1 "$OUT/worker.txt")" "form: 周八||0" "the form the Redis worker's task filled"

# A tap (capture, locate, input) through the agent against the X11 device on the same display
# (Wine's virtual desktop on this Xvfb), on a form's label: both printed, and their ratio.
"$WINE" "$form_exe" >/dev/null 2>&1 &
EACU_AGENT_TOKEN=$token timeout 120 "$EACU" bench agent --device "agent:$addr" --x11 "$DISPLAY" --n 5 >"$OUT/bench.out" 2>&1 ||
  fail "eacu bench agent: $(cat "$OUT/bench.out")"
grep -E "tap = |^BENCH" "$OUT/bench.out"
grep -q "^BENCH agent_tap_ms=.* x11_tap_ms=.* ratio=" "$OUT/bench.out" || fail "eacu bench agent printed no BENCH line: $(cat "$OUT/bench.out")"

# A wrong token: a clear error, no run of the script.
rc=0
err=$(EACU_AGENT_TOKEN=wrong-$token timeout 60 "$EACU" run "$here/windows_agent.lua" --device "agent:$addr" --db "$db" 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "a wrong token: eacu run succeeded"
expect_contains "$err" "agent $addr: hello: wrong token" "the wrong token's error"

# The agent stopped (SIGSTOP) in the middle of a step, its connection open: the step fails with
# a device error naming the agent, the operation and the time waited, within its timeout (6 s)
# + 1 s; resumed (SIGCONT), the next run on the agent passes (a new connection).
cat >"$OUT/stall.lua" <<'LUA'
print("waiting") io.stdout:flush()
local ok, err = pcall(step, { wait = { role = "push button", name = "永远不会出现" }, timeout = 6, retry = 0 })
print("stalled step: " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err)) io.stdout:flush()
LUA
EACU_AGENT_TOKEN=$token "$EACU" run "$OUT/stall.lua" --device "agent:$addr" --db "$db" >"$OUT/stall.out" 2>"$OUT/stall.err" &
run_pid=$!
await_printed "$OUT/stall.out" "$run_pid" 's/^\(waiting\)$/\1/p' "eacu run stall.lua" "$OUT/stall.err" >/dev/null
kill -STOP "$agent_pid"
stalled=
for _ in $(seq 200); do
  stalled=$(grep '^stalled step: ' "$OUT/stall.out" || true)
  [ -n "$stalled" ] && break
  kill -0 "$run_pid" 2>/dev/null || break
  sleep 0.1
done
kill -CONT "$agent_pid"
[ -n "$stalled" ] || { cat "$OUT/stall.err" >&2; fail "the stalled step did not end within 20 s"; }
echo "$stalled"
timeout 60 tail --pid="$run_pid" -f /dev/null || fail "the stalled run was still going 60 s after the agent was resumed"
wait "$run_pid" || true
expect_contains "$stalled" "stalled step: false code device" "the stalled step's code"
expect_contains "$stalled" "agent $addr: " "the stalled step names the agent"
expect_contains "$stalled" ": no answer within " "the stalled step says how long it waited"
expect_contains "$stalled" "the step's deadline, 6 s + 1 s" "the stalled step names its bound"
row=$(sqlite3 "$db" "SELECT printf('%.2f', ended_at - started_at) || '|' || error FROM steps WHERE run_id=(SELECT MAX(id) FROM runs) AND action='step'")
echo "agent stall step: $row"
expect_contains "$row" "no answer within" "the run log's error"
python3 -c "import sys; sys.exit(0 if float('${row%%|*}') <= 7 + $(scaled 0.6) else 1)" || fail "the stalled step took ${row%%|*} s (timeout 6 s + 1 s)"
printf '%s\n' 'print("windows: " .. #windows())' >"$OUT/after_stall.lua"
EACU_AGENT_TOKEN=$token timeout 60 "$EACU" run "$OUT/after_stall.lua" --device "agent:$addr" --db "$db" >"$OUT/after_stall.out" 2>&1 ||
  fail "the run after SIGCONT: $(cat "$OUT/after_stall.out")"
expect_contains "$(cat "$OUT/after_stall.out")" "windows: " "the run after SIGCONT"

# The agent killed in the middle of a run: a device error well within the step's 60 s.
cat >"$OUT/wait.lua" <<'LUA'
print("waiting") io.stdout:flush()
wait({ role = "push button", name = "永远不会出现" }, 60)
LUA
EACU_AGENT_TOKEN=$token "$EACU" run "$OUT/wait.lua" --device "agent:$addr" --db "$db" >"$OUT/wait.out" 2>"$OUT/wait.err" &
run_pid=$!
await_printed "$OUT/wait.out" "$run_pid" 's/^\(waiting\)$/\1/p' "eacu run wait.lua" "$OUT/wait.err" >/dev/null
sleep 1  # let the wait poll the agent a few times
kill -9 "$agent_pid"
t0=$(date +%s)
rc=0
# Bounded: a run that outlives 30 s is killed and the test fails (no unbounded wait on it).
if ! timeout 30 tail --pid="$run_pid" -f /dev/null; then
  kill -9 "$run_pid" 2>/dev/null || true
  wait "$run_pid" 2>/dev/null || true
  fail "the run was still going 30 s after the agent was killed"
fi
wait "$run_pid" || rc=$?
elapsed=$(( $(date +%s) - t0 ))
[ "$rc" != 0 ] || fail "the run went on after the agent was killed"
[ "$elapsed" -le 15 ] || fail "the run took $elapsed s to end after the agent was killed"
expect_contains "$(cat "$OUT/wait.err")" "agent $addr is gone" "the run's error after the kill"
stop_wine
expect_wine_gone
echo "windows_agent: passed (the killed agent ended the run in ${elapsed} s)"
