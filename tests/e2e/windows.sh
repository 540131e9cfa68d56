#!/usr/bin/env bash
# Windows of real programs (xcalc, zenity) listed and controlled under openbox on a virtual
# display; without a window manager the listing still works.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/windows.lua" --display virtual --wm openbox --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; echo "$out" >&2; fail "eacu run --wm openbox exited $rc"; }
echo "$out"
expect_contains "$out" "windows: window-bound locate, listed, focused, moved, resized, minimized, restored, maximized, closed" "window operations"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='window' AND status='ok'")" "13" "window steps recorded"
expect_eq "$(sqlite3 "$db" "SELECT target FROM steps WHERE run_id=$run AND action='window' AND params LIKE '%\"op\":\"close\"%'")" '"eacu windows test" (Zenity)' "close step's target"
expect_display_gone "$(display_of_run "$db" "$run")"

# An actions replay does the window operations again on the windows of the same class and title.
out=$("$EACU" replay "$run" --mode actions --display virtual --wm openbox --db "$db" 2>&1) || { rc=$?;
  echo "$out" >&2; fail "the actions replay exited $rc"; }
replay=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$replay AND action='window' AND status='ok'")" "13" "window steps replayed"
expect_eq "$(sqlite3 "$db" "SELECT json_extract(params, '$.result.x') || ',' || json_extract(params, '$.result.w') FROM steps WHERE run_id=$replay AND action='window' AND params LIKE '%\"op\":\"resize\"%'")" "40,320" "replayed resize"

out=$("$EACU" run "$here/windows.lua" --display virtual --db "$db" -- nowm 2>"$OUT/stderr2") || { rc=$?;
  cat "$OUT/stderr2" >&2; echo "$out" >&2; fail "eacu run without a window manager exited $rc"; }
expect_contains "$out" "windows without a window manager: listed and focused" "listing without a WM"

err=$("$EACU" run "$here/windows.lua" --display virtual --wm no-such-wm --db "$db" 2>&1) && fail "a missing window manager should fail"
expect_contains "$err" 'window manager "no-such-wm" cannot start' "missing WM message"
err=$("$EACU" run "$here/windows.lua" --display image:"$here/images/update_dialog.png" --wm openbox --db "$db" 2>&1) && fail "--wm with an image should fail"
expect_contains "$err" "expected a virtual display" "--wm needs a virtual display"
python3 "$here/windows_serve.py" "$EACU" "$OUT" || fail "eacu serve --wm openbox"
echo "windows: 10 passed, 0 failed"
