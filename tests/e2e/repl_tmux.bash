# The REPL in a pseudo-terminal (tmux), for repl.sh and repl_record.sh. Source after lib.bash
# and start_test, with EACU, OUT and db set.
# start_repl_tmux NAME [DIR]: a private tmux server (socket NAME-PID in the test's temp dir,
# killed on exit) whose session "repl" runs `eacu repl --display virtual --db $db` (in DIR when
# given; --display $REPL_DEVICE when set), its history in $OUT/history; waits for the prompt
# and, on a virtual display, sets disp (the display number).

tm() { tmux -L "$sock" "$@"; }
pane() { tm capture-pane -p -J -S -300 -t repl; }
# Waits up to $2 seconds (default 10) for the pane to contain $1.
wait_for() {
  local deadline=$(( $(date +%s) + ${2:-10} ))
  while [ "$(date +%s)" -le $deadline ]; do
    pane | grep -qF -- "$1" && return 0
    sleep 0.05
  done
  pane >&2
  fail "the REPL did not show '$1' within ${2:-10} s"
}
count() { pane | grep -cF -- "$1" || true; }
# Types text literally (tmux would read "end" as the End key), then Enter.
send() { tm send-keys -t repl -l -- "$1"; tm send-keys -t repl Enter; }

start_repl_tmux() {
  command -v tmux >/dev/null || fail "tmux is not installed (make deps installs it)"
  sock="$1-$$"
  export TMUX_TMPDIR=$TMPDIR  # the tmux server's socket in this test's own temp dir
  trap 'tm kill-server 2>/dev/null || true' EXIT
  local cd_to=""
  [ -n "${2:-}" ] && cd_to="cd '$2' && "
  tm new-session -d -s repl -x 200 -y 60 \
    "${cd_to}env NO_COLOR=1 EACU_REPL_HISTORY='$OUT/history' EACU_HOME='${EACU_HOME:-}' '$EACU' repl --display '${REPL_DEVICE:-virtual}' --db '$db'; echo REPL-EXITED \$?; sleep 600"
  wait_for "eacu> " 30
  [ "${REPL_DEVICE:-virtual}" = virtual ] || return 0
  disp=$(pane | sed -n 's/.* repl on x11 :\([0-9]*\) .*/\1/p' | head -1)
  [ -n "$disp" ] || fail "the banner does not name the display"
}
