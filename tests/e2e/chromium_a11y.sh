#!/usr/bin/env bash
# Issue 37 item 3 on browser devices: a11y targets on --device chromium through Chromium's own
# accessibility tree (Accessibility.getFullAXTree with DOMSnapshot's boxes), at device scale 2 so
# the boxes' CSS pixels must become physical ones. A local form page: a field found by its label
# and typed into, another set through the tree, a button tapped by role and name, one below the
# fold pressed by its action; the page's own state (its URL fragment) read back after each.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
q() { sqlite3 "$db" "$1"; }
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"

cat >"$OUT/form.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>Sign up</title>
<body style="font: 24px sans-serif; margin: 40px">
<h1>Sign up</h1>
<p><label for="name">Full name</label> <input id="name" style="font-size: 24px"></p>
<p><label for="city">City</label> <input id="city" value="Old town" style="font-size: 24px"></p>
<p><label for="code">Code</label> <input id="code" maxlength="3" style="font-size: 24px"></p>
<p><button onclick="save()">Save</button> <button onclick="state.cancels++; show()">Cancel</button></p>
<div style="height: 2500px"></div>
<button onclick="state.far++; show()">Far away</button>
<script>
var state = {saves: 0, cancels: 0, far: 0, name: "", city: ""};
function show() {
  var s = "saves=" + state.saves + ";cancels=" + state.cancels + ";far=" + state.far +
          ";name=" + state.name + ";city=" + state.city;
  history.replaceState(null, "", "#" + encodeURIComponent(s));
}
function save() {
  state.saves++;
  state.name = document.getElementById("name").value;
  state.city = document.getElementById("city").value;
  show();
}
</script></body>
HTML

out=$("$EACU" run "$here/chromium_a11y.lua" --device chromium:800x600@2 --db "$db" -- "$OUT/form.html" 2>"$OUT/run.err") || {
  cat "$OUT/run.err" >&2; fail "the a11y run exited non-zero"; }
echo "$out" >"$OUT/run.out"
expect_contains "$out" "after save: saves=1;cancels=0;far=0;name=张三;city=Beijing" "the page's state after the save"
expect_contains "$out" "after far: saves=1;cancels=0;far=1;name=张三;city=Beijing" "the page's state after the far button"
expect_contains "$out" 'tree: desktop frame > application > document web "Sign up"' "the tree's top"
run=$(q "SELECT MAX(id) FROM runs")
expect_eq "$(q "SELECT status FROM runs WHERE id=$run")" "passed" "run status"
expect_eq "$(q "SELECT COUNT(*) FROM steps WHERE run_id=$run AND method='a11y' AND status='ok'")" "4" "steps found in the tree"
expect_eq "$(q "SELECT action FROM steps WHERE run_id=$run AND method='a11y' AND target LIKE '%Save%'")" "tap" "the Save tap"
# Typed text read back from the page (issue 36 item 7): the field's value after typing, and
# after set_text; a field that keeps 3 characters fails the input, saying what it holds.
typed() { q "SELECT status || ' ' || json_extract(params, '$.typed') FROM steps WHERE run_id=$run AND action='$1' ORDER BY idx LIMIT 1"; }
expect_contains "$(typed input)" 'ok checked: the text' "the typed field's read-back"
expect_contains "$(typed input)" 'holds "张三"' "the typed field's read-back"
expect_contains "$(typed set_text)" 'ok checked: the text' "the set field's read-back"
cat >"$OUT/short.lua" <<'LUA'
open_url("file://" .. arg[1])
tap { role = "text", name = "Code" }
local ok, err = pcall(input, "12345")
print("short " .. tostring(ok) .. " " .. tostring(err and err.code))
print("short message " .. tostring(err and err.message))
LUA
out=$("$EACU" run "$OUT/short.lua" --device chromium --db "$db" -- "$OUT/form.html" 2>"$OUT/short.err") || { rc=$?;
  cat "$OUT/short.err" >&2; fail "the short field's run exited $rc"; }
expect_contains "$out" "short false verify_failed" "the 3-character field's input"
expect_contains "$out" 'holds "123"' "the failure names what the field holds"

# A name that is not on the page: the step's error lists the tree's names.
cat >"$OUT/missing.lua" <<'LUA'
open_url("file://" .. arg[1])
tap { role = "push button", name = "Submit", timeout = 3 }
LUA
set +e
"$EACU" run "$OUT/missing.lua" --device chromium --db "$db" -- "$OUT/form.html" >"$OUT/missing.out" 2>"$OUT/missing.err"
rc=$?
set -e
expect_eq "$rc" "1" "the missing button's run exit code"
expect_contains "$(cat "$OUT/missing.err")" '"Save" (push button)' "the error names the page's buttons"
echo "chromium_a11y: ok"
