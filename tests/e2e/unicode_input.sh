#!/usr/bin/env bash
# input of Unicode text into a real text field of a real program (zenity) on a virtual display.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db
out=$("$EACU" run "$here/unicode_input.lua" --display virtual --db "$db" 2>"$OUT/stderr") || { rc=$?;
  cat "$OUT/stderr" >&2; fail "eacu run exited $rc"; }
echo "$out"
expect_contains "$out" "zenity received: 你好, eacu 123" "typed text"
run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
expect_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id=$run")" "passed" "run status"
expect_eq "$(sqlite3 "$db" "SELECT target FROM steps WHERE run_id=$run AND action='input'")" "你好, eacu 123" "recorded input"
expect_display_gone "$(display_of_run "$db" "$run")"

# Mixed scripts, more characters than the keymap has spare keycodes, symbols and shifted keys.
long='中文输入测试：日本語カタカナ한국어 Ünïcödé ÀÉÎÕÜ ~!@#$%^&*()_+{}|:"<>?'
out=$("$EACU" run "$here/unicode_input.lua" --display virtual --db "$db" -- "$long" 2>"$OUT/stderr2") || { rc=$?;
  cat "$OUT/stderr2" >&2; fail "eacu run (long text) exited $rc"; }
expect_contains "$out" "zenity received: $long" "long mixed text"
echo "unicode_input: 2 passed, 0 failed"
