#!/usr/bin/env bash
# The REPL's record() and stop() (issue 29 item 7), in tmux: record(), xdotool clicks xcalc's
# 1 and 2 as the person, stop() returns the lines (image targets), puts them in the history
# file; the lines run again after AC give 12.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
command -v xdotool >/dev/null || fail "xdotool is not installed (make deps installs it)"
. "$here/repl_tmux.bash"
start_repl_tmux eacu-repl-record "$OUT"
send 'launch "xcalc"; for _, k in ipairs { "1", "2" } do local m = wait(k, 20); print("A" .. "T", m.cx, m.cy) end'
for i in $(seq 300); do [ "$(pane | grep -c '^AT\s\+[0-9]')" = 2 ] && break; sleep 0.1; done
mapfile -t at < <(pane | sed -n 's/^AT\s\+\([0-9]*\)\s\+\([0-9]*\).*/\1 \2/p')
[ "${#at[@]}" = 2 ] || fail "expected the places of 1 and 2, got: ${at[*]}"
send 'record()'
wait_for "recording what you do"
for p in "${at[@]}"; do DISPLAY=:$disp xdotool mousemove $p click 1; sleep 0.5; done  # the person's pace
send 'lines = stop()'
# stop() proves each line's target (OCR, the image crop's uniqueness): a bound, not a latency
# claim (under the sanitizers on a loaded 2-core machine it took over 10 s once).
wait_for "lines recorded" 60
send 'n = 0; for l in lines:gmatch("[^\n]+") do if l:match("^tap%(") then n = n + 1 end end; print("LINES" .. n)'
wait_for "LINES2"
grep -Eq '^tap\((\{ )?"repl_assets/tap_1.png"' "$OUT/history" || { cat "$OUT/history" >&2; fail "stop() did not put the lines in the history"; }
[ "$(ls "$OUT"/repl_assets/*.png | wc -l)" = 2 ] || fail "expected the two keys' images in repl_assets"
send 'tap "AC"; assert(load(lines))(); print("DISPLAY " .. require("calculator").read_display())'
wait_for "DISPLAY 12" 30
send '.exit'
wait_for "REPL-EXITED 0" 15
echo "PASS repl_record"
