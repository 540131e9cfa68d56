#!/usr/bin/env bash
# eacu record (issue 29 item 5): xdotool acts as the person on a private Xvfb that eacu record
# watches (XRecord); the script it writes is run on a fresh display and must do the task.
# 1. xcalc: AC 1 2 × 3 4 = clicked, the pointer resting on each key before the press (xcalc
#    highlights the key under the pointer); the script (image targets: xcalc has no
#    accessibility tree) computes 408 on a fresh xcalc, each key found where it is, not at the
#    key the pointer rests on (issue 37 item 4); no sleep, no coordinates; the analysis time
#    per action and one full-frame locate.
# 2. zenity (GTK3, with its tree): a form's entry clicked and Chinese typed, OK; then a
#    checklist's check box and OK; stopped by the Pause key. The script fills both again.
# 3. Chromium (kiosk, device scale 1) on a local canvas page: three shapes clicked, written as
#    image targets cut at scale 1; the script runs on the chromium device at scale 2.
# 4. A Tk form (no accessibility tree; Tk's default fonts): a check box labelled 加急, the row
#    香蕉 of a Listbox, 确定. A text target must be a reading of the label, not OCR's noise
#    (issue 37 item 5); the script fills the form again.
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
# The same, the pointer resting on the place a moment before the press (as a person's does:
# what it hovers may be drawn highlighted).
rest_click_at() { DISPLAY=$disp xdotool mousemove $1 $2; sleep 0.4; DISPLAY=$disp xdotool click 1; sleep 0.5; }
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
mapfile -t keys < <(eyes '"AC"' '"1"' '"2"' '"×"' '"3"' '"4"' '"="')
[ "${#keys[@]}" = 7 ] || fail "the eyes found ${#keys[@]} of the 7 keys"
for k in "${keys[@]}"; do rest_click_at $k; done
kill -INT "$rec_pid"
await_record_end calc
cat "$OUT/calc.out"; cat "$OUT/calc.lua"
expect_contains "$(cat "$OUT/calc.lua")" 'launch "xcalc"' "the launched program"
expect_eq "$(grep -c '^tap(' "$OUT/calc.lua")" "7" "one tap per key clicked"
expect_eq "$(grep -c '^tap(.*"calc_assets/tap_[0-9]*\.png".*-- .*image around the point' "$OUT/calc.lua")" "7" \
  "an image target on every tap, first or as an alternative (xcalc has no tree; most keys are too short to read)"
expect_eq "$(grep -c '^wait(' "$OUT/calc.lua")" "1" "a wait on the first key after the launch"
expect_no_sleep_or_blind_points "$OUT/calc.lua"
[ "$(ls "$OUT"/calc_assets/*.png | wc -l)" = 7 ] || fail "expected 7 images in calc_assets"
[ "$(ls "$OUT"/calc_assets/*_frame.jpg | wc -l)" = 7 ] || fail "expected the 7 screens the targets were proven on in calc_assets"
bench=$(grep 'analysis per pointer action' "$OUT/calc.out") || fail "no analysis time printed"
echo "BENCH xcalc: $bench"
floor=$(grep 'one full-frame locate' "$OUT/calc.out") || fail "no full-frame locate time printed"
echo "BENCH xcalc: $floor"
# The script on a fresh display, with a check of the result appended.
cp "$OUT/calc.lua" "$OUT/calc_check.lua"
cat >>"$OUT/calc_check.lua" <<'LUA'
local calc = require "calculator"
verify(function() return calc.read_display() == "408" end, "the display shows 408", 5)
print("replayed display: " .. calc.read_display())
LUA
out=$("$EACU" run "$OUT/calc_check.lua" --display virtual --db "$db" 2>&1) || fail "the recorded script failed: $out"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, method, score, threshold, box_x, box_y FROM steps WHERE run_id=$run AND action IN ('tap', 'wait')"
expect_contains "$out" "replayed display: 408" "the recorded script computes 12 × 34"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(DISTINCT box_x || ',' || box_y) FROM steps WHERE run_id=$run AND action='tap'")" "7" \
  "each of the 7 taps found at a key of its own"

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
grep -q '^tap({ { role = "push button", name = "OK" }, alt = { ' "$OUT/zen.lua" ||
  fail "OK written with its other proven targets as alternatives (text, image)"
expect_no_sleep_or_blind_points "$OUT/zen.lua"
if grep -n 'Pause' "$OUT/zen.lua"; then fail "the stop key was written"; fi
bench=$(grep 'analysis per pointer action' "$OUT/zen.out") || fail "no analysis time printed"
echo "BENCH zenity: $bench"
rm -f "$OUT/form.txt" "$OUT/list.txt"
out=$("$EACU" run "$OUT/zen.lua" --display virtual --db "$db" 2>&1) || fail "the recorded zenity script failed: $out"
for i in $(seq 100); do [ -s "$OUT/list.txt" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/form.txt")" "张三|" "the recorded script fills the form"
expect_eq "$(cat "$OUT/list.txt")" "Banana" "the recorded script checks the box"

# ---- 3. Chromium: image targets recorded at device scale 1, replayed at scale 2 ----
# A canvas of three shapes with no text and no accessible names (so the targets are images);
# a click on a shape adds its letter to the title (the window's name) and to the URL's hash,
# and a mark at the bottom left.
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs it)"
cat >"$OUT/shapes.html" <<'HTML'
<!doctype html><html><head><meta charset="utf-8"><title>shapes</title>
<style>html, body { margin: 0; overflow: hidden; background: #f4f1ea }</style></head>
<body><canvas id="c"></canvas><script>
const c = document.getElementById('c'), g = c.getContext('2d'), k = devicePixelRatio;
c.width = innerWidth * k; c.height = innerHeight * k;
c.style.width = innerWidth + 'px'; c.style.height = innerHeight + 'px';
g.scale(k, k);
// Each shape: a letter, a centre (CSS pixels) and how it is drawn.
const shapes = [
  { n: 'A', x: 300, y: 250, draw() { g.fillStyle = '#c0392b'; g.beginPath(); g.arc(this.x, this.y, 22, 0, 7); g.fill();
                                      g.fillStyle = '#fff'; g.fillRect(this.x - 10, this.y - 4, 20, 8); } },
  { n: 'B', x: 700, y: 420, draw() { g.fillStyle = '#2471a3'; g.beginPath(); g.moveTo(this.x, this.y - 24);
                                      g.lineTo(this.x + 24, this.y + 18); g.lineTo(this.x - 24, this.y + 18); g.fill();
                                      g.fillStyle = '#f7dc6f'; g.fillRect(this.x - 5, this.y, 10, 10); } },
  { n: 'C', x: 1000, y: 200, draw() { g.fillStyle = '#1e8449'; g.fillRect(this.x - 22, this.y - 16, 44, 32);
                                       g.strokeStyle = '#fff'; g.lineWidth = 4; g.beginPath(); g.moveTo(this.x - 12, this.y);
                                       g.lineTo(this.x - 2, this.y + 9); g.lineTo(this.x + 14, this.y - 9); g.stroke(); } },
];
for (const s of shapes) s.draw();
let said = '';
c.addEventListener('click', (e) => {
  for (const s of shapes) if (Math.abs(e.clientX - s.x) <= 24 && Math.abs(e.clientY - s.y) <= 24) said += s.n;
  g.fillStyle = '#333'; g.fillRect(20 + 14 * said.length, 770, 10, 10);  // a visible effect: a tap is not repeated
  document.title = 'shapes ' + said;
  history.replaceState(null, '', '#' + said);
});
</script></body></html>
HTML
# Full screen at device scale 1: the page's CSS pixels are the screen's pixels.
start_record page --wm openbox -o "$OUT/page.lua" --launch "chromium --no-sandbox --test-type --disable-gpu --no-first-run \
--disable-background-networking --disable-component-update --disable-sync --user-data-dir=$OUT/chromium-profile \
--kiosk --force-device-scale-factor=1 file://$OUT/shapes.html"
# The window maps, takes the page's title, and the window manager makes it full screen (a
# search while Chromium's short-lived windows come and go may fail: it is asked again).
for i in $(seq 300); do
  DISPLAY=$disp xdotool search --name '^shapes' getwindowgeometry --shell >"$OUT/page_window" 2>&1 || true
  grep -q '^X=0$' "$OUT/page_window" && grep -q '^Y=0$' "$OUT/page_window" && grep -q '^WIDTH=1280$' "$OUT/page_window" && break
  sleep 0.1
done
grep -q '^WIDTH=1280$' "$OUT/page_window" || fail "the page's kiosk window is not full screen after 30 s: $(cat "$OUT/page_window")"
eyes '(function() wait_stable(20); return { cx = 0, cy = 0 } end)()' >/dev/null  # the page has drawn
for xy in "300 250" "700 420" "1000 200"; do click_at $xy; done
for i in $(seq 100); do DISPLAY=$disp xdotool search --name '^shapes ABC' >/dev/null 2>&1 && break; sleep 0.1; done
DISPLAY=$disp xdotool search --name '^shapes ABC' >/dev/null || fail "the page did not take the three clicks (its title)"
kill -INT "$rec_pid"
await_record_end page
cat "$OUT/page.out"; cat "$OUT/page.lua"
expect_eq "$(grep -c '^tap(.*-- a .* image around the point (scale 1.00)' "$OUT/page.lua")" "3" "image targets cut at scale 1"
expect_no_sleep_or_blind_points "$OUT/page.lua"
# The same page on the chromium device at scale 2 (2560x1600 frames): the launch becomes
# open_url; each image is looked for at twice its recorded size.
{ echo "open_url \"file://$OUT/shapes.html\""
  grep -v '^launch ' "$OUT/page.lua"
  echo 'print("replayed url: " .. current_url())'; } >"$OUT/page_check.lua"
out=$("$EACU" run "$OUT/page_check.lua" --device chromium:1280x800@2 --db "$db" 2>&1) || fail "the recorded page script at scale 2 failed: $out"
expect_eq "$(echo "$out" | sed -n 's/^replayed url: .*#//p')" "ABC" "the shapes clicked at scale 2, once each"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
sqlite3 "$db" "SELECT idx, action, method, score, transform FROM steps WHERE run_id=$run AND action='tap'"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok' AND input_x IS NOT NULL")" "3" "the taps at scale 2"

# ---- 4. A Tk form: text targets are readings of the labels ----
rm -f "$OUT/tk1.txt" "$OUT/tk2.txt" "$OUT/tk_places"
start_record tk --launch "python3 $here/tk_form.py $OUT/tk1.txt $OUT/tk_places" -o "$OUT/tk.lua"
for i in $(seq 300); do [ -s "$OUT/tk_places" ] && break; sleep 0.1; done
[ -s "$OUT/tk_places" ] || fail "the Tk form did not say where its widgets are within 30 s"
eyes '(function() wait_stable(20); return { cx = 0, cy = 0 } end)()' >/dev/null  # the form has drawn
for w in checkbox row ok; do rest_click_at $(sed -n "s/^$w //p" "$OUT/tk_places"); done
for i in $(seq 100); do [ -s "$OUT/tk1.txt" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/tk1.txt")" "urgent=1 fruit=香蕉" "what the person did on the form"
kill -INT "$rec_pid"
await_record_end tk
cat "$OUT/tk.out"; cat "$OUT/tk.lua"
expect_eq "$(grep -c '^tap(' "$OUT/tk.lua")" "3" "one tap per click"
# Every text target is one of the form's labels as written (spaces aside: OCR spaces CJK
# glyphs), not a misreading ("广 加 急", "BR").
{ grep -o '"text:[^"]*"' "$OUT/tk.lua" || true; } | sort -u | while read -r t; do
  case "${t// /}" in '"text:加急"'|'"text:香蕉"'|'"text:确定"') ;; *) fail "a text target that is not a label: $t" ;; esac
done
expect_no_sleep_or_blind_points "$OUT/tk.lua"
cp "$OUT/tk.lua" "$OUT/tk_check.lua"
sed -i "s|$OUT/tk1.txt $OUT/tk_places|$OUT/tk2.txt|" "$OUT/tk_check.lua"
out=$("$EACU" run "$OUT/tk_check.lua" --display virtual --db "$db" 2>&1) || fail "the recorded Tk script failed: $out"
for i in $(seq 100); do [ -s "$OUT/tk2.txt" ] && break; sleep 0.1; done
expect_eq "$(cat "$OUT/tk2.txt" 2>/dev/null)" "urgent=1 fruit=香蕉" "the recorded script fills the form again"
echo "PASS record"
