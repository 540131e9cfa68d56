#!/usr/bin/env bash
# Healing (issue 34, docs/healing.md) on a test application of our own in four versions
# (tests/e2e/heal_app.py: v2 restyles, reorders the list, redraws the icon, moves Save to
# another row and renames 确定 to 提交; v3 removes Save; v4 is v2 with the icon turned into a
# button 收藏). The v1 script is the recorder's: a run tapping the places the app tells is
# written by `eacu script` (every target proven on its frame, alternatives and the proof frames
# kept). Then:
#   v1 runs with no healing; v2 fails without --heal at the first changed line; v2 with
#   --heal and no model heals what the similarity search can prove (no wrong click); v4 with
#   --heal and no model fails at the icon's line not_found listing candidates, and with the
#   stand-in model server completes (the icon's line by the model); `eacu heal RUN --apply` writes the healed lines back
#   and the written script runs on v4 with no model and no healing; v3 with --heal fails at the
#   removed button with no input sent after that line began (the app's own log of events).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db

. "$here/heal_lib.bash"

# ---- v1: a run at the places the app tells, written as a script by eacu script ----
heal_record_v1
cat "$OUT/v1.lua"
expect_eq "$(grep -c '^tap(' "$OUT/v1.lua")" "4" "one tap a click"
[ "$(grep -c 'alt = {' "$OUT/v1.lua")" -ge 1 ] || fail "no line with alternatives"
ls "$OUT"/v1_assets/*_frame.jpg >/dev/null || fail "no proof frame kept beside the crops"
presses() { grep -c '^press' "$1" || true; }

# ---- v1 with no healing ----
script_for v1 "$OUT/v1.log" run_v1.lua
out=$("$EACU" run "$OUT/run_v1.lua" --display virtual --db "$db" 2>&1) || fail "the v1 script failed on v1: $out"
expect_eq "$(app_events "$OUT/v1.log")" "select Banana click icon click save click ok " "v1's events"

# ---- v2 without --heal: fails at the first changed line ----
script_for v2 "$OUT/v2_plain.log" run_v2.lua
if out=$("$EACU" run "$OUT/run_v2.lua" --display virtual --db "$db" 2>&1); then fail "v2 passed with no healing: $out"; fi
echo "$out"
expect_contains "$out" "not found" "v2 with no healing"
first_changed=$(sed -n 's/.*run_v2.lua:\([0-9]*\): .*/\1/p' <<<"$out" | head -n 1)
[ -n "$first_changed" ] || fail "the failure names no line of the script: $out"

# ---- v2 with --heal, no model: what the similarity search can prove, and no more ----
rm -f "$OUT/v2_plain.log"
if out=$("$EACU" run "$OUT/run_v2.lua" --heal --display virtual --db "$db" 2>&1); then
  echo "v2 passed with --heal and no model: the similarity search carried every line"
fi
echo "$out"
run_nomodel=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_nomodel"
healed=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_nomodel AND status='ok' AND method='heal:similar'")
[ "$healed" -ge 1 ] || fail "nothing healed on v2 without a model"
case "$out" in
  *"not found"*)
    expect_contains "$out" "healing found no element it could prove" "an unhealed line's error"
    expect_contains "$out" "best candidates:" "the candidates it rejected" ;;
esac
# Every event the app received is one of v1's, in v1's order (no wrong click).
case "select Banana click icon click save click ok " in "$(app_events "$OUT/v2_plain.log")"*) ;;
  *) fail "v2 with --heal received '$(app_events "$OUT/v2_plain.log")', not a start of v1's events" ;; esac

# ---- v4 with --heal, no model: the icon, now a button 收藏, is not healed without a model ----
script_for v4 "$OUT/v4.log" run_v4.lua
icon_line=$(grep -n '^tap(' "$OUT/run_v4.lua" | sed -n 2p | cut -d: -f1)
if out=$("$EACU" run "$OUT/run_v4.lua" --heal --display virtual --db "$db" 2>&1); then fail "v4 passed with no model: $out"; fi
echo "$out"
expect_contains "$out" "run_v4.lua:$icon_line: tap" "v4 fails at the icon's line without a model"
expect_contains "$out" "healing found no element it could prove" "an unhealed line's error"
expect_contains "$out" "best candidates:" "the candidates it rejected"
case "select Banana click icon click save click ok " in "$(app_events "$OUT/v4.log")"*) ;;
  *) fail "v4 with --heal received '$(app_events "$OUT/v4.log")', not a start of v1's events" ;; esac

# ---- v4 with --heal and the stand-in model server: the rest ----
use_model_server
rm -f "$OUT/v4.log"
out=$("$EACU" run "$OUT/run_v4.lua" --heal --display virtual --db "$db" 2>&1) || fail "v4 with --heal and a model failed: $out"
run_model=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, status, method, round(score,2) FROM steps WHERE run_id=$run_model"
expect_eq "$(app_events "$OUT/v4.log")" "select Banana click icon click save click ok " "v4's events with --heal and a model"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_model AND status='ok' AND method = 'heal:model'")" -ge 1 ] ||
  fail "no line healed by the model"
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run_model AND status='ok' AND method LIKE 'heal:%'")" -ge 2 ] ||
  fail "fewer than two lines healed with a model"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=
unset EACU_MODEL_PROVIDER EACU_MODEL EACU_MODEL_BASE_URL EACU_MODEL_API_KEY

# ---- eacu heal: the diff, then --apply; the written script runs with no model, no healing ----
diff=$("$EACU" heal "$run_model" --db "$db" 2>&1) || fail "eacu heal failed: $diff"
echo "$diff"
healed_lines=$(sqlite3 "$db" "SELECT COUNT(DISTINCT json_extract(params, '$.heal.where')) FROM steps WHERE run_id=$run_model AND status='ok' AND method LIKE 'heal:%'")
expect_eq "$(grep -c '^+[a-z]' <<<"$diff")" "$healed_lines" "one rewritten line a healed line"
expect_contains "$diff" "alt = {" "the old targets kept as alternatives"
cp "$OUT/run_v4.lua" "$OUT/run_v4.before"
"$EACU" heal "$run_model" --apply --db "$db" >/dev/null 2>&1 || fail "eacu heal --apply failed"
cmp -s "$OUT/run_v4.lua" "$OUT/run_v4.before" && fail "--apply changed nothing"
rm -f "$OUT/v4.log"
out=$("$EACU" run "$OUT/run_v4.lua" --display virtual --db "$db" 2>&1) || fail "the healed script failed on v4: $out"
applied=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$applied AND method LIKE 'heal:%'")" "0" "healing in the healed script's run"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM model_calls WHERE run_id=$applied")" "0" "model calls in the healed script's run"
expect_eq "$(app_events "$OUT/v4.log")" "select Banana click icon click save click ok " "v4's events with the healed script"

# ---- v3 with --heal: Save is gone; no input after that line began ----
script_for v3 "$OUT/v3.log" run_v3.lua
save_line=$(grep -n '^tap(' "$OUT/run_v3.lua" | sed -n 3p | cut -d: -f1)
if out=$("$EACU" run "$OUT/run_v3.lua" --heal --display virtual --db "$db" 2>&1); then fail "v3 passed without Save: $out"; fi
echo "$out"
expect_contains "$out" "run_v3.lua:$save_line: tap" "v3 fails at the removed button's line"
expect_contains "$out" "healing found no element it could prove" "v3's error"
expect_contains "$out" "best candidates:" "the error lists the candidates it rejected"
# The app's own log: what it did last is the icon's click, and it received two presses in all
# (the fruit's and the icon's): no input was sent after the Save line began.
expect_eq "$(app_events "$OUT/v3.log")" "select Banana click icon " "what v3 did"
expect_eq "$(presses "$OUT/v3.log")" "2" "presses v3 received (the fruit and the icon)"
echo "PASS heal"
