#!/usr/bin/env bash
# The accessibility tree on a virtual display: a GTK3 zenity form filled through the tree and
# confirmed by its OK button, a GTK2 program (HexChat) driven by accessible names, xcalc (no
# tree) failing an a11y target clearly; the session and accessibility buses stopped after.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
command -v hexchat >/dev/null || fail "hexchat is not installed (make deps installs it)"
unwind_fully_under_asan
# Processes that carry this test's temp dir in their environment: the buses eacu starts (their
# sockets live there) and every program launched with them.
bus_processes() {
  local p
  for p in /proc/[0-9]*; do
    { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -q "^XDG_RUNTIME_DIR=$OUT/tmp/eacu-bus-\|^DBUS_SESSION_BUS_ADDRESS=unix:path=$OUT/tmp/eacu-bus-" &&
      echo "${p#/proc/} $({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null)"
  done
  return 0
}
use_model_server
out=$("$EACU" run "$here/a11y.lua" --display virtual --db "$db" -- "$OUT/hexchat" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run a11y.lua exited $rc"; }
echo "$out"
expect_contains "$out" "zenity form: 张三|Beijing" "zenity's output"
expect_contains "$out" "a11y: zenity form filled and confirmed, hexchat by name, xcalc by image" "the a11y script"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='set_text' AND method='a11y' AND status='ok'")" "3" "set_text steps"
expect_eq "$(sqlite3 "$db" "SELECT target || ' ' || json_extract(params, '$.a11y.name') FROM steps WHERE run_id=$run AND action='tap' AND method='a11y' AND box_w > 0 LIMIT 1")" '{role="push button", name="OK"} OK' "the OK tap's step"
expect_eq "$(sqlite3 "$db" "SELECT json_extract(params, '$.a11y.action') FROM steps WHERE run_id=$run AND action='tap' AND target LIKE '%check box%'")" "click" "the check box pressed by its action"
expect_contains "$(sqlite3 "$db" "SELECT request_json FROM model_calls WHERE run_id=$run AND kind='ask'")" \
  'Accessibility tree (interactive elements; boxes in the screenshot' "the ask's screen message lists the tree"
expect_contains "$(sqlite3 "$db" "SELECT request_json FROM model_calls WHERE run_id=$run AND kind='ask'")" \
  'push button \"OK\" at (' "the ask's screen message names the OK button"
expect_display_gone "$(display_of_run "$db" "$run")"
left=""
for i in $(seq 50); do left=$(bus_processes); [ -z "$left" ] && break; sleep 0.1; done
[ -z "$left" ] || fail "processes of the run's buses are still running: $left"

# An actions replay finds the elements again in the tree: set_text and a pressed button.
cat >"$OUT/form.lua" <<'LUA'
local zen = launch { "zenity", "--forms", "--title=eacu a11y replay", "--add-entry=Name", "--add-entry=City" }
set_text { name = "Name", text = "李四", timeout = 20 }
set_text { name = "City", text = "上海" }
tap { role = "push button", name = "OK", press = true }
assert(zen:wait(10) == 0)
print("form: " .. zen:read(1))
LUA
out=$("$EACU" run "$OUT/form.lua" --display virtual --db "$db" 2>&1) || fail "form.lua exited $?: $out"
expect_contains "$out" "form: 李四|上海" "the form pressed by its action"
form=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
out=$("$EACU" replay "$form" --mode actions --display virtual --db "$db" 2>&1) || fail "the actions replay exited $?: $out"
replay=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT group_concat(action || ':' || method || ':' || status, ' ') FROM steps WHERE run_id=$replay AND action IN ('set_text', 'tap')")" \
  "set_text:a11y:ok set_text:a11y:ok tap:a11y:ok" "the replayed a11y steps"
expect_eq "$(sqlite3 "$db" "SELECT json_extract(params, '$.text') FROM steps WHERE run_id=$replay AND action='set_text' ORDER BY idx LIMIT 1")" "李四" "the replayed text"

# A device without a tree (a screenshot): a clear error from a11y() and from an a11y target.
cat >"$OUT/image.lua" <<'LUA'
local ok, err = pcall(a11y)
print("a11y(): " .. tostring(err))
ok, err = pcall(tap, "a11y:OK", { timeout = 0 })
print("tap: " .. tostring(err))
LUA
out=$("$EACU" run "$OUT/image.lua" --display image:"$here/images/update_dialog.png" --db "$db" 2>&1) || fail "image.lua exited $?: $out"
expect_contains "$out" "a11y(): $OUT/image.lua:1: this device has no accessibility tree" "a11y() on an image"
expect_contains "$out" 'tap: "a11y:OK": this device has no accessibility tree' "an a11y target on an image"
echo "a11y: 13 passed, 0 failed"
