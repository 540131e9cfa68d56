#!/usr/bin/env bash
# Healing (issue 34 item 4) on the Windows device agent under Wine: our Win32 form
# (tests/e2e/win32/form.c) in three versions (v2: OK renamed 确定 → 提交 and moved to a row of its
# own below; v3: no OK button). The v1 script is `eacu script`'s from a run that taps the name
# field and OK at their places (read from the agent's tree) and types 张三: its targets are
# proven on the run's frames (text, image, relative to a label). The form writes what it got
# (OK: "form: 张三||0"; Cancel: "form: cancelled") to its own file. Then:
#   v1 runs with no healing; v2 fails without --heal at OK's line; v2 with --heal and no model
#   sends no wrong input (never Cancel), and with the suite's stand-in model server completes;
#   `eacu heal RUN -o v2.lua` writes a script that runs on v2 with no model and no healing; v3
#   with --heal fails at OK's line with the candidates it rejected, and the form got nothing
#   (no Cancel).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
. "$here/win32/wine_env.bash"
start_test
db=$OUT/runs.db
trap '[ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null; stop_wine' EXIT

build_agent
start_wine_xvfb 1280x800
make_wine_prefix "$OUT/wine" 1280x800
start_agent
export EACU_AGENT_TOKEN=$token
dev=agent:$addr

# got NAME: what form NAME wrote after "form: ready", waiting up to 20 s for a line when $2 says one comes.
got() {
  local i
  for i in $(seq 200); do [ -z "${2:-}" ] || [ "$(grep -vc '^form: ready' "$OUT/$1.txt")" -gt 0 ] && break; sleep 0.1; done
  grep -v '^form: ready' "$OUT/$1.txt" | tr '\n' ' '
}
# Closes whatever form is left (a failed run leaves its form open).
close_forms() { "$EACU" run "$OUT/close.lua" --device "$dev" --db "$OUT/close.db" >/dev/null 2>&1 || true; }
cat >"$OUT/close.lua" <<'LUA'
for _, w in ipairs(windows()) do if w.title == "eacu 测试表单" then w:close() end end
LUA

# ---- v1: a run tapping the name field and OK at their places, written as a script ----
cat >"$OUT/drive.lua" <<'LUA'
assert(window({ title = "eacu 测试表单" }, 30))
local function centre(t)
  local m = assert(locate(t, 20))
  return { x = m.x + math.floor(m.w / 2), y = m.y + math.floor(m.h / 2) }
end
local name, ok = centre { role = "text", name = "姓名" }, centre { role = "push button", name = "确定" }
wait_stable(5)
tap(name)
input "张三"
tap(ok)
LUA
start_form drive v1
out=$("$EACU" run "$OUT/drive.lua" --device "$dev" --db "$db" 2>&1) || fail "the v1 driver run failed: $out"
expect_eq "$(got drive 1)" "form: 张三||0 " "the driver's form"
drive=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
out=$("$EACU" script "$drive" -o "$OUT/v1.lua" --assets "$OUT/v1_assets" --db "$db" 2>&1) || fail "eacu script failed: $out"
cat "$OUT/v1.lua"
expect_eq "$(grep -c '^tap(' "$OUT/v1.lua")" "2" "one tap a click"
ok_line=$(grep -n '^tap(' "$OUT/v1.lua" | sed -n 2p | cut -d: -f1)

# ---- v1 with no healing ----
start_form v1 v1
out=$("$EACU" run "$OUT/v1.lua" --device "$dev" --db "$db" 2>&1) || fail "the v1 script failed on v1: $out"
expect_eq "$(got v1 1)" "form: 张三||0 " "v1's form"

# ---- v2 without --heal: fails at OK's line ----
start_form v2plain v2
if out=$("$EACU" run "$OUT/v1.lua" --device "$dev" --db "$db" 2>&1); then fail "v2 passed with no healing: $out"; fi
expect_contains "$out" "v1.lua:$ok_line: tap" "v2 fails at OK's line"
close_forms

# ---- v2 with --heal, no model: no wrong input ----
start_form v2nomodel v2
if out=$("$EACU" run "$OUT/v1.lua" --heal --device "$dev" --db "$db" 2>&1); then
  echo "v2 passed with --heal and no model: the similarity search carried every line"
  expect_eq "$(got v2nomodel 1)" "form: 张三||0 " "v2's form with --heal"
else
  echo "$out"
  expect_contains "$out" "healing found no element it could prove" "an unhealed line's error"
  expect_contains "$out" "best candidates:" "the candidates it rejected"
  expect_eq "$(got v2nomodel)" "" "v2's form with --heal and no model (no Cancel)"
  close_forms
fi
run_nomodel=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_nomodel"

# ---- v2 with --heal and the stand-in model server: the rest ----
use_model_server
trap '[ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null; stop_wine' EXIT  # use_model_server's trap, and Wine's
start_form v2model v2
out=$("$EACU" run "$OUT/v1.lua" --heal --device "$dev" --db "$db" 2>&1) || fail "v2 with --heal and a model failed: $out"
run_model=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_model"
expect_eq "$(got v2model 1)" "form: 张三||0 " "v2's form with --heal and a model"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_model AND status='ok' AND method LIKE 'heal:%'")" -ge 1 ] ||
  fail "nothing healed on v2 with a model"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
unset EACU_MODEL_PROVIDER EACU_MODEL EACU_MODEL_BASE_URL EACU_MODEL_API_KEY

# ---- eacu heal -o: the written script runs on v2 with no model and no healing ----
"$EACU" heal "$run_model" -o "$OUT/v2.lua" --db "$db" >"$OUT/heal.diff" 2>&1 || {
  cat "$OUT/heal.diff" >&2; fail "eacu heal -o failed"; }
cat "$OUT/heal.diff"
start_form v2applied v2
out=$("$EACU" run "$OUT/v2.lua" --device "$dev" --db "$db" 2>&1) || fail "the healed script failed on v2: $out"
applied=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(got v2applied 1)" "form: 张三||0 " "v2's form with the healed script"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$applied AND method LIKE 'heal:%'")" "0" "healing in the healed script's run"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM model_calls WHERE run_id=$applied")" "0" "model calls in the healed script's run"

# ---- v3 with --heal: OK is gone; the form gets nothing (no Cancel) ----
start_form v3 v3
if out=$("$EACU" run "$OUT/v1.lua" --heal --device "$dev" --db "$db" 2>&1); then fail "v3 passed without OK: $out"; fi
echo "$out"
expect_contains "$out" "v1.lua:$ok_line: tap" "v3 fails at OK's line"
expect_contains "$out" "healing found no element it could prove" "v3's error"
expect_contains "$out" "best candidates:" "the error lists the candidates it rejected"
expect_eq "$(got v3)" "" "v3's form (nothing: no Cancel)"
close_forms
echo "PASS heal_agent"
