#!/usr/bin/env bash
# eacu studio on the Windows device agent under Wine (issue 37), its page driven through
# headless Chromium's DevTools (studio_page.py --case agent) as a person would: our Win32 form
# (tests/e2e/win32/form.c) started fresh; `eacu studio --device agent:HOST:PORT`; on the page the
# fields 姓名 and 城市 clicked and filled (张三, 北京: the lines find them by their labels), the
# check box ticked, inspect mode at the typed name (element-info is the agent's tree element
# there, its source what the agent says: MSAA under Wine), the point chosen and a verify added,
# OK clicked (the form prints what it got: the input reached it), save; Ctrl-C; the saved script
# run with `eacu run --device agent:...` on a fresh form, which prints the same values.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/win32/wine_env.bash"
start_test
studio_pid=
trap '[ -n "$studio_pid" ] && kill "$studio_pid" 2>/dev/null; stop_wine' EXIT

build_agent
start_wine_xvfb 1280x800
make_wine_prefix "$OUT/wine" 1280x800
start_agent
# What the agent says its tree is (Wine 8: MSAA); the studio's element-info must say the same.
case "$(cat "$OUT/agent.out")" in
  *"element tree through MSAA"*) tree_source=MSAA ;;
  *"element tree through UI Automation"*) tree_source=UIA ;;
  *) fail "the agent did not say where its tree comes from: $(cat "$OUT/agent.out")" ;;
esac


start_form studio
EACU_AGENT_TOKEN=$token "$EACU" studio --port 0 --device "agent:$addr" -o "$OUT/form.lua" >"$OUT/studio.out" 2>"$OUT/studio.err" &
studio_pid=$!
url=$(await_printed "$OUT/studio.out" "$studio_pid" 's|^eacu studio: \(http://[^ ]*\)$|\1|p' "eacu studio" "$OUT/studio.err") || exit 1
# STUDIO_BENCH=N (tests/bench/studio.sh agent): N timed clicks and rests first (their lines deleted).
timeout 600 python3 "$here/studio_page.py" "$url" --case agent --out "$OUT" --tree-source "$tree_source" \
  --bench "${STUDIO_BENCH:-0}" |
  tee "$OUT/agent_page.out"
grep -q '^studio_page: passed' "$OUT/agent_page.out" || fail "studio_page.py --case agent did not pass: $(tail -20 "$OUT/studio.err")"
expect_form studio "form: 张三|北京|1" "what the form got from the page's clicks and text"
if [ "${STUDIO_BENCH:-0}" -gt 0 ]; then
  # The floor of the bench's click -> input: what the studio's device sends for a click (move,
  # sync, cursor, click, sync: ActionExecutor's moveExactly and the click), timed on a connection
  # of its own with nothing else asking the agent (the form has exited; the point is Wine's desktop).
  python3 "$here/agent_click_floor.py" "$addr" "$token" "$STUDIO_BENCH" 600,700
fi
kill -INT "$studio_pid"
for _ in $(seq 300); do kill -0 "$studio_pid" 2>/dev/null || break; sleep 0.1; done
wait "$studio_pid" || fail "eacu studio exited $? on SIGINT: $(cat "$OUT/studio.err")"
studio_pid=
grep -q "^eacu studio: wrote $OUT/form.lua" "$OUT/studio.out" || fail "Ctrl-C did not save: $(cat "$OUT/studio.out")"
cat "$OUT/form.lua"
grep -q '^verify(' "$OUT/form.lua" || fail "no verify line in the saved script"
grep -q '^input "张三"' "$OUT/form.lua" || fail "no input line for 张三 in the saved script"
grep -q "$token" "$OUT/studio.out" "$OUT/studio.err" "$OUT/form.lua" && fail "the agent's token appears in the studio's output or script"

# The saved script on a fresh form: the form prints the values it got.
start_form replay
EACU_AGENT_TOKEN=$token timeout 300 "$EACU" run "$OUT/form.lua" --device "agent:$addr" --db "$OUT/replay.db" >"$OUT/replay.out" 2>&1 ||
  fail "the saved script failed on a fresh form: $(cat "$OUT/replay.out"); $("$EACU" show --db "$OUT/replay.db" 2>&1)"
expect_form replay "form: 张三|北京|1" "what the fresh form got from the saved script"
"$EACU" show --db "$OUT/replay.db"
stop_wine
expect_wine_gone
echo "studio_agent: passed"
