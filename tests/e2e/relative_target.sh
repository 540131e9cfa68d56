#!/usr/bin/env bash
# Relative targets (issue 14 part 3) on a real GTK3 zenity --forms dialog: the fields right of
# their labels found from the accessibility tree, and without it from the image (Set-of-Marks
# proposals, OCR lines), and filled; zenity prints what was typed. On xcalc, keys found as
# asset images relative to others. The run log records the steps with method "relative", the
# anchor's box and where the candidate came from; a relative target that matches nothing names
# the anchor and the candidates it rejected.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
unwind_fully_under_asan  # findRelative reads zenity's accessibility tree
db=$OUT/runs.db
cat >"$OUT/form.lua" <<'LUA'
local zen = launch { "zenity", "--forms", "--title=eacu relative", "--add-entry=Name", "--add-entry=City" }
assert(window({ title = "eacu relative" }, 20))
tap { right_of = "text:Name", kind = "field", timeout = 20 }
input "Ann"
-- The anchor taken from the accessibility tree (GTK3 exports one here).
tap { right_of = { role = "label", name = "City" }, kind = "field" }
input "Oslo"
local ok, e = pcall(tap, { left_of = "text:Name", kind = "button", timeout = 0 })
assert(not ok and e.code == "not_found", "a miss is not_found, got " .. tostring(e))
print("miss: " .. tostring(e))
tap "text:OK"
assert(zen:wait(10) == 0, "zenity exited non-zero")
print("form: " .. zen:read(1))
LUA
out=$("$EACU" run "$OUT/form.lua" --display virtual --db "$db" 2>&1) || fail "form.lua exited $?: $out"
echo "$out"
expect_contains "$out" "form: Ann|Oslo" "zenity's output"
expect_contains "$out" "no button left_of" "the miss says what was asked"
expect_contains "$out" "anchor found at (" "the miss names the anchor's box"
expect_contains "$out" "rejected:" "the miss lists rejected candidates"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='relative' AND status='ok' AND json_array_length(json_extract(params, '$.anchor')) = 4")" "2" "relative tap steps with their anchor box"
# zenity's tree is there: the fields came from it (entries of role "text", first among the
# Set-of-Marks elements, in place of the proposals they cover).
expect_eq "$(sqlite3 "$db" "SELECT group_concat(json_extract(params, '$.candidate_source'), ',') FROM steps WHERE run_id=$run AND action='tap' AND method='relative'")" "box_a11y_content_a11y,box_a11y_content_a11y" "where the fields came from"

# The same form without an accessibility bus (NO_AT_BRIDGE=1 keeps GTK from exporting its tree):
# the fields come from the image alone.
cat >"$OUT/form_image.lua" <<'LUA'
local zen = launch { "env", "NO_AT_BRIDGE=1", "zenity", "--forms", "--title=eacu relative image", "--add-entry=Name",
                     "--add-entry=City" }
assert(window({ title = "eacu relative image" }, 20))
tap { right_of = "text:Name", kind = "field", timeout = 20 }
input "Bo"
tap { right_of = "text:City", kind = "field" }
input "Rome"
tap "text:OK"
assert(zen:wait(10) == 0, "zenity exited non-zero")
print("form: " .. zen:read(1))
LUA
out=$("$EACU" run "$OUT/form_image.lua" --display virtual --db "$db" 2>&1) || fail "form_image.lua exited $?: $out"
expect_contains "$out" "form: Bo|Rome" "zenity's output (image candidates)"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND method='relative' AND json_extract(params, '$.candidate_source') NOT LIKE 'box_a11y%'")" "2" "fields from the image"
# kind = "image": the asset library's images are candidates. On xcalc (no tree): the key right of
# 7 is 8, the key below 8 is 5; the display shows what was pressed.
cat >"$OUT/keys.lua" <<'LUA'
local calc = require "calculator"
calc.open()
tap "AC"
tap { right_of = "7", kind = "image" }
tap { below = "8", kind = "image" }
verify(function() return calc.read_display() == "85" end, "the display shows 85", 3)
print("display: " .. calc.read_display())
LUA
out=$("$EACU" run "$OUT/keys.lua" --display virtual --db "$db" 2>&1) || fail "keys.lua exited $?: $out"
expect_contains "$out" "display: 85" "the keys pressed by relative image targets"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT group_concat(json_extract(params, '$.candidate_source'), ',') FROM steps WHERE run_id=$run AND action='tap' AND method='relative'")" "box_asset_content_asset,box_asset_content_asset" "keys from the asset library"
echo "relative_target: 11 passed, 0 failed"
