#!/usr/bin/env bash
# The command table: eacu --help lists every command; eacu help CMD, eacu CMD --help and
# eacu CMD -h print that command's help and exit 0; an unknown command or option exits 2 naming
# what was expected; "--" keeps --help for the script; run --task still reaches the task form.
# No display needed.
set -uo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
db=$OUT/runs.db

# Runs eacu with the arguments; sets $out (stdout), $err (stderr) and $code.
call() {
  "$EACU" "$@" >"$OUT/stdout" 2>"$OUT/stderr"; code=$?
  out=$(cat "$OUT/stdout"); err=$(cat "$OUT/stderr")
}

# Every command of the table: the unknown-command message names them all (commandNames()),
# so a command added to the table is covered here without editing this list.
"$EACU" frobnicate >/dev/null 2>"$OUT/unknown" || true
commands=$(sed -n 's/.*(expected one of \(.*\); see eacu --help)$/\1/p' "$OUT/unknown" | tr -d ',')
[ -n "$commands" ] || fail "no command list in the unknown-command message: $(cat "$OUT/unknown")"
for c in run runs show report replay frames repl locate bench devices serve worker help version; do
  grep -qw "$c" <<<"$commands" || fail "the command table lacks '$c': $commands"
done
echo "cli_help: the table's commands: $commands"

# eacu --help (and -h, and help alone): every command with its synopsis, exit 0.
call --help
expect_eq "$code" "0" "exit status of eacu --help"
for c in $commands; do
  case $c in
    version) expect_contains "$out" "eacu --version" "eacu --help lists version" ;;
    *) grep -qE "^  eacu $c( |$)" <<<"$out" || fail "eacu --help does not list '$c': $out" ;;
  esac
done
expect_contains "$out" "eacu run --task SENTENCE" "eacu --help lists the task form of run"
help_text=$out
call -h; expect_eq "$out" "$help_text" "eacu -h"
call help; expect_eq "$out" "$help_text" "eacu help"
# No command at all: the same list on stderr, a usage error.
call
expect_eq "$code" "2" "exit status of eacu without a command"
expect_eq "$err" "$help_text" "eacu without a command prints the list to stderr"

# One command's help, three ways, the same text; exit 0.
call help report
expect_eq "$code" "0" "exit status of eacu help report"
expect_contains "$out" "eacu report [RUN] [-o FILE.html] [--assets DIR]" "eacu help report synopsis"
expect_contains "$out" "--assets DIR      write the images into DIR" "eacu help report options"
[ -z "$err" ] || fail "eacu help report wrote to stderr: $err"
report_help=$out
call report --help
expect_eq "$code" "0" "exit status of eacu report --help"
expect_eq "$out" "$report_help" "eacu report --help"
call report -h
expect_eq "$code" "0" "exit status of eacu report -h"
expect_eq "$out" "$report_help" "eacu report -h"
# --help wins over the other arguments (nothing is run, no run log is made).
call report 3 --db "$db" --help
expect_eq "$code" "0" "exit status of eacu report 3 --help"
expect_eq "$out" "$report_help" "eacu report 3 --help"
[ ! -e "$db" ] || fail "eacu report --help opened the run log"
# Every command answers --help with its own synopsis.
for c in $commands; do
  [ "$c" = version ] && continue
  call "$c" --help
  expect_eq "$code" "0" "exit status of eacu $c --help"
  expect_contains "$out" "Usage:" "eacu $c --help"
  # A here-string, not printf | grep -q: once grep has matched and gone, a write still to come
  # meets a closed pipe, and pipefail makes that a failure (a sanitizer CI run failed here).
  grep -qE "^  eacu $c( |$)" <<<"$out" || fail "eacu $c --help does not show its synopsis: $out"
done
call run --help
expect_contains "$out" "--max-actions N" "eacu run --help options"
expect_contains "$out" "--dry-run" "eacu run --help covers --task"
expect_contains "$out" "--wm WM           with --display virtual: the window manager started on it" "eacu run --help covers --wm"

# An unknown command: exit 2, the known commands named.
call frobnicate
expect_eq "$code" "2" "exit status of an unknown command"
expect_contains "$err" 'unknown command "frobnicate"' "unknown command message"
for c in $commands; do expect_contains "$err" "$c" "unknown command message names '$c'"; done
call help frobnicate
expect_eq "$code" "2" "exit status of eacu help for an unknown command"
expect_contains "$err" 'unknown command "frobnicate" (expected one of run, runs, show' "eacu help frobnicate"

# An unknown option: exit 2, the command's options and its help named.
call report --bogus --db "$db"
expect_eq "$code" "2" "exit status of an unknown option"
expect_contains "$err" "eacu report: unknown option --bogus (expected --db, --display (--device), --wm, -o, --output, --assets, --quiet; see eacu report --help)" "unknown option message"
call run --task "compute 1+1" --bogus
expect_eq "$code" "2" "exit status of an unknown option of run --task"
expect_contains "$err" "unknown option --bogus (expected --db, --display (--device), --wm, --task, --max-actions, --max-time, --serve-fd, --dry-run" "run --task unknown option"
# --serve-fd must name an open descriptor (eacu serve passes one end of a socketpair as 3).
call run --task "compute 1+1" --serve-fd 97 --db "$db"
expect_eq "$code" "2" "exit status of run --task with a closed --serve-fd"
expect_contains "$err" "--serve-fd 97: descriptor 97 is not open" "closed --serve-fd message"
echo 'print("never run")' >"$OUT/s.lua"
call run "$OUT/s.lua" --serve-fd three --db "$db"
expect_eq "$code" "2" "exit status of run with a malformed --serve-fd"
expect_contains "$err" '--serve-fd expects a file descriptor number (e.g. 3), got "three"' "malformed --serve-fd message"
[ ! -e "$db" ] || fail "a bad --serve-fd opened the run log"
# A malformed value is a usage error too.
call runs --limit many --db "$db"
expect_eq "$code" "2" "exit status of a malformed --limit"
expect_contains "$err" '--limit expects a whole number in [1, 1000000], got "many"' "malformed --limit message"

# After "--" the arguments are the script's: --help there is not eacu's.
call run "$OUT/no-such-script.lua" -- --help
expect_eq "$code" "2" "exit status of run with a missing script and -- --help"
expect_contains "$err" "no such script" "run ... -- --help runs (not help)"

# run dispatches to the task form.
call run --task "compute 12*34" --dry-run
expect_eq "$code" "0" "exit status of run --task --dry-run"
expect_contains "$out" "params expression=12*34" "run --task --dry-run routes the sentence"

call --version
expect_eq "$code" "0" "exit status of eacu --version"
expect_contains "$out" "eacu " "eacu --version"
echo "cli_help e2e: ok"
