#!/usr/bin/env bash
# eacu record (issue 29 item 5): xdotool acts as the person on a private Xvfb that eacu record
# watches (XRecord); the script it writes is run on a fresh display and must do the task.
# 1. xcalc: 1 2 × 3 4 = clicked; the script (image targets: xcalc has no accessibility tree)
#    computes 408 on a fresh xcalc; no sleep, no coordinates; the analysis time per action.
# 2. zenity (GTK3, with its tree): a form's entry clicked and Chinese typed, OK; then a
#    checklist's check box and OK; stopped by the Pause key. The script fills both again.
# The person's eyes are eacu runs on the same display that only look (they send no input).
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
unwind_fully_under_asan  # the recorder reads zenity's accessibility tree
command -v xdotool >/dev/null || fail "xdotool is not installed (make deps installs it)"
db=$OUT/runs.db
rec_pid=
trap '[ -n "$rec_pid" ] && kill "$rec_pid" 2>/dev/null || true' EXIT

# Starts eacu record ARGS... in the background; sets $rec_pid and $disp (its display).
start_record() {
  local name=$1; shift
  "$EACU" record --display virtual "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
  rec_pid=$!
  disp=$(await_printed "$OUT/$name.out" "$rec_pid" 's/^eacu record: recording .* on \(:[0-9]*\);.*/\1/p' \
    "eacu record" "$OUT/$name.err") || exit 1
}
# Prints "x y" of each target (Lua source: a target, or an expression giving {cx=, cy=}) as
# the person sees it on $disp, waiting up to 20 s for each.
eyes() {
  local lua=$OUT/eyes.lua
  { echo 'for _, t in ipairs({ ... }) do'
    echo '  local v = load("return " .. t)()'
    echo '  if type(v) ~= "table" or v.cx == nil then v = wait(v, 20) end'
    echo '  print(v.cx .. " " .. v.cy)'
    echo 'end'; } >"$lua"
  "$EACU" run "$lua" --display "$disp" --db "$OUT/eyes.db" -- "$@" 2>"$OUT/eyes.err" || fail "the eyes: $(cat "$OUT/eyes.err")"
}
# The person clicks at "x y", at a person's pace (a human does not click twice in 0.4 s).
click_at() { DISPLAY=$disp xdotool mousemove $1 $2 click 1; sleep 0.5; }
# Waits up to 150 s for eacu record to end (it proves every action's target first: seconds
# each on a loaded machine); fails when it did not or exited non-zero.
await_record_end() {
  local i
  for i in $(seq 1500); do kill -0 "$rec_pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$rec_pid" 2>/dev/null && fail "eacu record did not stop"
  wait "$rec_pid" || fail "eacu record exited $?: $(cat "$OUT/$1.err")"
  rec_pid=
}
# Fails when the script has a sleep, or coordinates on a line that does not say why.
expect_no_sleep_or_blind_points() {
  if grep -n 'sleep' "$1"; then fail "$1 has a sleep"; fi
  if grep -n '{ x = ' "$1" | grep -v 'no target could be proven'; then fail "$1 has coordinates without saying why"; fi
  return 0
}

# ---- 1. xcalc ----
start_record calc --launch xcalc -o "$OUT/calc.lua"
mapfile -t keys < <(eyes '"1"' '"2"' '"×"' '"3"' '"4"' '"="')
[ "${#keys[@]}" = 6 ] || fail "the eyes found ${#keys[@]} of the 6 keys"
for k in "${keys[@]}"; do click_at $k; done
kill -INT "$rec_pid"
await_record_end calc
cat "$OUT/calc.out"; cat "$OUT/calc.lua"
expect_contains "$(cat "$OUT/calc.lua")" 'launch "xcalc"' "the launched program"
expect_eq "$(grep -c '^tap(' "$OUT/calc.lua")" "6" "one tap per key clicked"
expect_eq "$(grep -c '^tap(.*-- a .* image around the point' "$OUT/calc.lua")" "6" "image targets (xcalc has no tree; its keys are too short to read)"
expect_eq "$(grep -c '^wait(' "$OUT/calc.lua")" "1" "a wait on the first key after the launch"
expect_no_sleep_or_blind_points "$OUT/calc.lua"
[ "$(ls "$OUT"/calc_assets/*.png | wc -l)" = 6 ] || fail "expected 6 images in calc_assets"
bench=$(grep 'analysis per pointer action' "$OUT/calc.out") || fail "no analysis time printed"
echo "BENCH xcalc: $bench"
# The script on a fresh display, with a check of the result appended.
cp "$OUT/calc.lua" "$OUT/calc_check.lua"
cat >>"$OUT/calc_check.lua" <<'LUA'
local calc = require "calculator"
verify(function() return calc.read_display() == "408" end, "the display shows 408", 5)
print("replayed display: " .. calc.read_display())
LUA
out=$("$EACU" run "$OUT/calc_check.lua" --display virtual --db "$db" 2>&1) || fail "the recorded script failed: $out"
expect_contains "$out" "replayed display: 408" "the recorded script computes 12 × 34"

# ---- 2. zenity: a form (Chinese text) and a checklist (a check box) ----
rm -f "$OUT/form.txt" "$OUT/list.txt"
# One launched program that shows the form, then the checklist (launch "CMD" runs exec CMD).
cat >"$OUT/dialogs.sh" <<SH
zenity --forms --title=登记 --add-entry=姓名 --add-entry=城市 >'$OUT/form.txt'
zenity --list --checklist --title=Fruit --column=Pick --column=Fruit FALSE Apple FALSE Banana >'$OUT/list.txt'
SH
start_record zen --launch "sh $OUT/dialogs.sh" -o "$OUT/zen.lua"
# (The person finds the entry below the form's heading: OCR misses the small Chinese labels.)
read -r x y < <(eyes '{ below = "text:Forms dialog", kind = "field" }')
click_at "$x" "$y"
DISPLAY=$disp xdotool type --delay 80 "张三"
sleep 0.5
read -r x y < <(eyes '"text:OK"')
click_at "$x" "$y"
# The checklist's second check box: in the column "Pick" (a toggle centred under its header),
# on the row "Banana".
read -r x y < <(eyes '(function() local h, r = wait("text:Pick", 20), wait("text:Banana", 20); return { cx = h.cx, cy = r.cy } end)()')
click_at "$x" "$y"
read -r x y < <(eyes '"text:OK"')
click_at "$x" "$y"
for i in $(seq 100); do [ -s "$OUT/list.txt" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/form.txt")" "张三|" "what the person entered in the form"
expect_eq "$(cat "$OUT/list.txt")" "Banana" "what the person checked"
DISPLAY=$disp xdotool key Pause
await_record_end zen
cat "$OUT/zen.out"; cat "$OUT/zen.lua"
expect_contains "$(cat "$OUT/zen.lua")" 'input "张三"' "the typed Chinese text as one input"
expect_contains "$(cat "$OUT/zen.lua")" '{ right_of = { role = "label", name = "姓名" }, kind = "field" }' "the entry by its label in the tree"
expect_contains "$(cat "$OUT/zen.lua")" '{ role = "push button", name = "OK" }' "OK by the tree"
expect_no_sleep_or_blind_points "$OUT/zen.lua"
if grep -n 'Pause' "$OUT/zen.lua"; then fail "the stop key was written"; fi
bench=$(grep 'analysis per pointer action' "$OUT/zen.out") || fail "no analysis time printed"
echo "BENCH zenity: $bench"
rm -f "$OUT/form.txt" "$OUT/list.txt"
out=$("$EACU" run "$OUT/zen.lua" --display virtual --db "$db" 2>&1) || fail "the recorded zenity script failed: $out"
for i in $(seq 100); do [ -s "$OUT/list.txt" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/form.txt")" "张三|" "the recorded script fills the form"
expect_eq "$(cat "$OUT/list.txt")" "Banana" "the recorded script checks the box"
echo "PASS record"
