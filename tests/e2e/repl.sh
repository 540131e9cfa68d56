#!/usr/bin/env bash
# eacu repl through a pseudo-terminal (tmux): results printed readably, tab completion of
# module members and asset names, an error that keeps the session, Ctrl-C cancelling a
# running wait, highlight() windows, .shot, .record, the history file, Ctrl-D leaving.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
. "$here/repl_tmux.bash"
# Sends $1 and interrupts it with Ctrl-C until the REPL reports one more "cancelled (Ctrl-C)"
# than before. It first waits until the REPL took the line (its echo is the last line and the
# cursor left it): a Ctrl-C that came earlier would clear the prompt and flush the unread Enter.
send_and_interrupt() {
  local before; before=$(count "cancelled (Ctrl-C)")
  send "$1"
  local deadline=$(( $(date +%s) + 10 ))
  until [ "$(pane | grep -v '^ *$' | tail -1)" = "eacu> $1" ] \
        && [ "$(tm display-message -p -t repl '#{cursor_x}')" = 0 ]; do
    [ "$(date +%s)" -le $deadline ] || { pane >&2; fail "the REPL did not take the line '$1' within 10 s"; }
    sleep 0.05
  done
  local t0; t0=$(date +%s)
  for i in $(seq 40); do
    tm send-keys -t repl C-c
    [ "$(count "cancelled (Ctrl-C)")" -gt "$before" ] && break
    sleep 0.25
  done
  [ "$(count "cancelled (Ctrl-C)")" -gt "$before" ] || { pane >&2; fail "Ctrl-C did not cancel '$1'"; }
  local elapsed=$(( $(date +%s) - t0 ))
  [ $elapsed -lt 15 ] || fail "Ctrl-C took $elapsed s to cancel '$1'"
}

start_repl_tmux eacu-repl-test

# Results print readably: a Match with its box, score, method and scale; tables nested.
send 'launch "xcalc"'
send 'm = wait("AC", 10)'
send 'm'
wait_for "Match{found box=(186,68 32x18) at=(202,77) score=1.000"
wait_for "method=expected_scale scale=1.00"
send '{ n = 1, list = { 2, 3 }, "x" }'
wait_for '{ "x", list = { 2, 3 }, n = 1 }'

# Tab completion: a module member, and an asset name inside quotes.
tm send-keys -t repl -l 'eacu.asse'; tm send-keys -t repl Tab
wait_for "eacu> eacu.assets"
tm send-keys -t repl C-u
tm send-keys -t repl -l 'tap "calculator.btn_mul'; tm send-keys -t repl Tab
wait_for 'eacu> tap "calculator.btn_multiply"'
tm send-keys -t repl Enter
wait_for "Match{found box=(186,278 32x18)"

# An error prints the message and the session goes on.
send 'tap "no_such_button"'
wait_for 'error: '
wait_for 'target "no_such_button" not found'
send 'print(40 + 2)'
wait_for "42"

# ask_user on a terminal: the question shows, the typed line is the answer (recorded as a step).
send 'answer = ask_user("Who gets the message?")'
wait_for "eacu: Who gets the message?"
send '张三 Zhang San'
send 'print("answer=[" .. answer .. "]")'
wait_for "answer=[张三 Zhang San]"
send 'for i = 1, 2 do'
send 'print("line " .. i)'
send 'end'
wait_for "line 2"

# Ctrl-C cancels a running wait (60 s) and keeps the session. The wait may not have begun
# when the first Ctrl-C arrives (it then just clears the prompt), so send it until cancelled.
send_and_interrupt 'wait({ image = "calculator.display_5", region = { 0, 0, 226, 60 } }, 60)'
send 'print("still " .. "here")'
wait_for "still here"

# Ctrl-C interrupts a busy pure-Lua loop too (the JIT is off in the REPL's Lua state and an
# interrupt hook raises the cancellation at the next instruction).
send_and_interrupt 'n = 0 while true do n = n + 1 end'
send 'print("looped " .. tostring(n > 0))'
wait_for "looped true"

# highlight(m): four override-redirect windows outline the match, then go away.
send 'highlight(m, 2)'
deadline=$(( $(date +%s) + 5 )); n=0
while [ "$(date +%s)" -le $deadline ]; do
  n=$(xwininfo -display ":$disp" -root -children 2>/dev/null | grep -c '"eacu highlight"' || true)
  [ "$n" = 4 ] && break; sleep 0.05
done
expect_eq "$n" "4" "highlight windows"
geom=$(xwininfo -display ":$disp" -root -children | grep '"eacu highlight"' | grep -o '[0-9]*x[0-9]*+[0-9]*+[0-9]*' | sort | tr '\n' ' ')
expect_eq "$geom" "38x3+183+65 38x3+183+86 3x18+183+68 3x18+218+68 " "outline bars around (186,68 32x18)"
deadline=$(( $(date +%s) + 8 ))
while [ "$(date +%s)" -le $deadline ]; do
  n=$(xwininfo -display ":$disp" -root -children 2>/dev/null | grep -c '"eacu highlight"' || true)
  [ "$n" = 0 ] && break; sleep 0.1
done
expect_eq "$n" "0" "highlight windows after their time"

# .shot, .record, .help.
send ".shot $OUT/shot.png"
wait_for "written to $OUT/shot.png"
[ -s "$OUT/shot.png" ] || fail ".shot wrote no file"
send ".record on"
send 'tap "1"'
send 'tap "2"'
send ".record off $OUT/recorded.lua"
wait_for "saved 2 lines to $OUT/recorded.lua"
expect_eq "$(grep -v '^--' "$OUT/recorded.lua")" $'tap "1"\ntap "2"' "recorded script"
send ".help"
wait_for "Ctrl-C cancels a running wait"

# Ctrl-D leaves; the session is a run with its steps; the history file has the lines.
tm send-keys -t repl C-d
wait_for "REPL-EXITED 0"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "passed" "REPL run status"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE run_id=$run AND action='tap' AND status='ok'")" "3" "REPL taps recorded"
expect_eq "$(sqlite3 "$db" "SELECT target || ' ' || json_extract(params, '$.answer') FROM steps WHERE run_id=$run AND action='ask_user'")" \
  "Who gets the message? 张三 Zhang San" "ask_user step recorded with its answer"
grep -qF 'print(40 + 2)' "$OUT/history" || fail "history file lacks the lines entered"
expect_display_gone "$disp"
echo "repl: 7 passed, 0 failed"
