# Helpers for the end-to-end tests: assertions that say what was expected and what came, and
# what keeps a test to what it started itself (its folder, temp dir, db, Xvfb servers,
# processes), so that tests can run side by side (ctest -j).
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_contains() { case "$1" in *"$2"*) ;; *) fail "$3: expected to contain '$2', got: $1" ;; esac; }

# Starts a test in a fresh $OUT: its temp dir ($OUT/tmp as TMPDIR), its default run log
# (EACU_DB, for a command given no --db), no DISPLAY of the caller's (every run names its
# display), and a record of the Xvfb servers its runs start ($XVFB_LOG, see below).
# A command that ends the test through set -e says where (an assignment x=$(...) that fails
# ends it with no word of its own).
start_test() {
  trap 'echo "FAIL: ${BASH_SOURCE[0]##*/} line $LINENO: a command exited with status $? (set -e ends the test)" >&2' ERR
  rm -rf "$OUT"; mkdir -p "$OUT/tmp" "$OUT/bin"
  export TMPDIR="$OUT/tmp" EACU_DB="$OUT/default.db"
  unset DISPLAY
  # A stand-in first in PATH for the Xvfb that eacu starts: it appends "pid start-time args"
  # to $XVFB_LOG and then execs the real Xvfb (the same process: same pid, arguments, group).
  local real; real=$(command -v Xvfb) || fail "Xvfb is not installed (make deps installs it)"
  XVFB_LOG=$OUT/xvfb.log
  cat >"$OUT/bin/Xvfb" <<EOF
#!/bin/sh
read -r stat </proc/\$\$/stat
set -- "\${stat##*) }" "\$@"
start=\$(echo "\$1" | cut -d' ' -f20)
shift
echo "\$\$ \$start \$*" >>'$XVFB_LOG'
exec '$real' "\$@"
EOF
  chmod +x "$OUT/bin/Xvfb"
  export PATH="$OUT/bin:$PATH"
}

# A latency bound of a test (not a deadline eacu enforces) times EACU_TEST_TIME_SCALE: 1 in make
# test, 2 in the sanitizer pass (tests/sanitize/run_sanitized.sh: AddressSanitizer's typical
# slowdown is 2x, its documentation says). Usage: bound=$(scaled 1.5)
TIME_SCALE=${EACU_TEST_TIME_SCALE:-1}
scaled() { python3 -c "print(round($1 * $TIME_SCALE, 3))"; }

# For a test whose runs read the accessibility tree, under AddressSanitizer (make
# test-sanitize): libatspi and glib have no frame pointers, so the fast unwinder stops at
# g_malloc and the suppression of libatspi's own leak (tests/sanitize/lsan.supp:
# dbus_connection_dispatch) cannot see where an allocation came from; the full unwinder can
# (3-4 times slower, so only in such tests).
unwind_fully_under_asan() {
  [ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
}

# The start time of process $1 (field 22 of /proc/PID/stat, clock ticks since boot): with the
# pid it names one process, never a later one that reuses the pid. Fails when it is gone.
start_time_of() {
  local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }; set -- $s; echo "${20}"
}
# The parent pid of process $1.
parent_of() {
  local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }; set -- $s; echo "$2"
}
# True while process $1, started at $2 (start_time_of), runs (a zombie has ended).
process_running() {
  local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }; set -- "$2" $s
  [ "$2" != Z ] && [ "$2" != X ] && [ "${21}" = "$1" ]
}
# Fails unless process $1 (started at $2) has ended, waiting up to 10 s; $3 names it.
expect_process_gone() {
  local i
  for i in $(seq 100); do process_running "$1" "$2" || return 0; sleep 0.1; done
  fail "$3 is still running (pid $1)"
}

# The display number of the run's Xvfb ("x11 :99 1280x800" -> 99).
display_of_run() { sqlite3 "$1" "SELECT device FROM runs WHERE id=$2" | sed -E 's/^x11 :([0-9]+).*/\1/'; }
# Fails unless the Xvfb that this test's last run on display :$1 started has ended, waiting up
# to 10 s. (Another test may hold :$1 by now: its server, socket and lock are not looked at.)
expect_display_gone() {
  local n=$1 pid= start=
  read -r pid start < <(awk -v d=":$n" '$3 == d { p = $1; s = $2 } END { print p, s }' "$XVFB_LOG" 2>/dev/null) || true
  [ -n "$pid" ] || fail "no Xvfb on :$n was started by this test (log: $XVFB_LOG)"
  expect_process_gone "$pid" "$start" "the Xvfb of display :$n (started by this test)"
}

# Prints what sed expression $3 captures from file $1 once process $2 has written it there,
# waiting up to 10 s; fails naming $4 (and showing file $5, its stderr, if given) when the
# process exits first or nothing comes. Call as x=$(await_printed ...) || exit 1.
await_printed() {
  local got i
  for i in $(seq 100); do
    got=$(sed -n "$3" "$1" 2>/dev/null)
    [ -n "$got" ] && { echo "$got"; return 0; }
    kill -0 "$2" 2>/dev/null || fail "$4 exited${5:+: $(cat "$5")}"
    sleep 0.1
  done
  fail "$4 printed nothing within 10 s (expected a line for $3 in $1)"
}

# Starts the suite's model server (tests/model_server/fake_model.py, 127.0.0.1, a free port)
# with the given arguments, logging to $OUT/server.jsonl; sets $server_pid and $port, waiting
# up to 10 s for the port. An EXIT trap stops it.
start_model_server() {
  local lib_root; lib_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  python3 "$lib_root/tests/model_server/fake_model.py" --log "$OUT/server.jsonl" "$@" >"$OUT/port" &
  server_pid=$!
  trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true' EXIT
  port=$(await_printed "$OUT/port" "$server_pid" 's/^PORT \([0-9]*\)$/\1/p' "the model server") || exit 1
}

# start_model_server ARGS, then points eacu at it as an OpenAI-compatible provider (model
# fake-qwen-vl, key $MODEL_KEY or "sk-e2e", no retries, 20 s per call) through EACU_MODEL_*.
use_model_server() {
  start_model_server "$@"
  export EACU_MODEL_PROVIDER=openai EACU_MODEL=fake-qwen-vl EACU_MODEL_BASE_URL=http://127.0.0.1:$port/v1
  export EACU_MODEL_API_KEY=${MODEL_KEY:-sk-e2e} EACU_MODEL_MAX_RETRIES=0 EACU_MODEL_TIMEOUT=20
}

# Starts `eacu serve --port 0 ARGS...` logging to $OUT/serve.out and $OUT/serve.err; sets
# $serve_pid and $url (its address, without a query) once it prints it, waiting up to 10 s. An
# EXIT trap stops it (and the model server of start_model_server, if any).
start_serve() {
  "$EACU" serve --port 0 "$@" >"$OUT/serve.out" 2>"$OUT/serve.err" &
  serve_pid=$!
  trap '[ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null; kill "$serve_pid" 2>/dev/null || true' EXIT
  url=$(await_printed "$OUT/serve.out" "$serve_pid" 's|^eacu serve: listening on \(http://[^ ]*\) .*|\1|p' \
    "eacu serve" "$OUT/serve.err") || exit 1
  url=${url%%\?*}
}

# Headless Chromium with a fresh profile under $OUT, 60 s at most, its messages appended to
# $OUT/chromium.log; prints what it prints (the DOM with --dump-dom). Flags come first.
chrome() {
  local bin=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
  [ -n "$bin" ] || fail "chromium is not installed (make deps installs it)"
  local prof tmp rc=0; prof=$(mktemp -d "$OUT/profile.XXXX")
  # A TMPDIR of its own, under /tmp where $OUT is too deep for Chromium's singleton socket
  # ($TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket, 107 characters at most; cdp.py's chromium_tmp).
  if [ $(( ${#OUT} + 17 + 45 )) -le 107 ]; then tmp=$(mktemp -d "$OUT/ct.XXXXXXXX"); else tmp=$(mktemp -d /tmp/eacu-ct.XXXXXXXX); fi
  TMPDIR=$tmp timeout 60 "$bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
    --user-data-dir="$prof" --window-size=1500,950 "$@" 2>>"$OUT/chromium.log" || rc=$?
  rm -rf "$tmp"
  return $rc
}

# A run whose script reads a line from its stdin (a fifo) before each part, so that a test can
# put a fault in place (a stopped process) before the part's step starts.
# paced_run SCRIPT [RUN ARGS...]: starts `eacu run SCRIPT ARGS...` in the background ($pid; its
# stdout in $OUT/out, stderr in $OUT/err); `echo go >&3` lets the script go on, `exec 3>&-`
# ends its input. stop_process/resume_process PID... send SIGSTOP/SIGCONT; every stopped process
# is resumed when the test exits, however it exits.
paced_run() {
  mkfifo "$OUT/go"
  "$EACU" run "$@" <"$OUT/go" >"$OUT/out" 2>"$OUT/err" &
  pid=$!
  exec 3>"$OUT/go"
  stopped=()
  trap 'for p in "${stopped[@]}"; do kill -CONT "$p" 2>/dev/null || true; done' EXIT
}
stop_process() { kill -STOP "$@"; stopped+=("$@"); }
resume_process() { kill -CONT "$@"; }
# wait_line LINE SECONDS: waits until the paced run has printed a line starting with LINE on its
# stderr; fails (with that stderr) after SECONDS or when the run has ended without it.
wait_line() {
  for _ in $(seq $(($2 * 10))); do grep -q "^$1" "$OUT/err" && return 0; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  cat "$OUT/err" >&2
  fail "no '$1' from the script within $2 s"
}
