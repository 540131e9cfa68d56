# Helpers for the Android tests (sourced after tests/e2e/lib.bash and start_test).
#
# start_android: with $EACU_TEST_ADB_SERIAL set, the real phone of that serial through the
# user's adb server ($ANDROID_ADB_SERVER_PORT or 5037; nothing is started or stopped there) and
# $standin empty. Else the stand-in device (standin.py ARGS...: its Xvfb, chat_app.py) and a
# private adb server on a free port (never 5037), connected to it with `adb connect`. Sets
# $serial, $adb_port (exported as ANDROID_ADB_SERVER_PORT for eacu), $standin_pid, $standin_log
# (every command the stand-in ran), $control (its fault folder). An EXIT trap stops what it
# started: the adb server with `adb -P PORT kill-server` (only that one) and the stand-ins by pid.
#
# start_more_android NAME [ARGS...] (after start_android, stand-in only): one more stand-in
# device on the same private adb server (several devices at once). Sets $more_serial,
# $more_log, $more_control (under $OUT/NAME) and $more_pid; the EXIT trap stops it too.
adb_here() { HOME=$OUT/home adb -P "$adb_port" "$@"; }
start_android() {
  local dir; dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  command -v adb >/dev/null || fail "adb is not installed (make deps installs it)"
  if [ -n "${EACU_TEST_ADB_SERIAL:-}" ]; then
    serial=$EACU_TEST_ADB_SERIAL; adb_port=${ANDROID_ADB_SERVER_PORT:-5037}; standin=""
    export ANDROID_ADB_SERVER_PORT=$adb_port
    return 0
  fi
  standin=1
  command -v xdotool >/dev/null || fail "xdotool is not installed (make deps installs it)"
  control=$OUT/control; standin_log=$OUT/standin.log
  mkdir -p "$OUT/home"
  trap 'stop_android' EXIT
  adb_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export ANDROID_ADB_SERVER_PORT=$adb_port
  adb_here start-server >"$OUT/adb.out" 2>&1 || fail "adb -P $adb_port start-server: $(cat "$OUT/adb.out")"
  connect_standin "$OUT" "$@"
  standin_pid=$new_pid serial=$new_serial
}
# Starts standin.py ARGS... (its log and control folder under DIR), waits for its port and has
# the adb server connect to it; sets $new_pid and $new_serial.
connect_standin() {
  local dir=$1 py; shift
  py=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/standin.py
  mkdir -p "$dir/control"
  python3 "$py" --port-file "$dir/standin.port" --log "$dir/standin.log" --control "$dir/control" "$@" \
    >"$dir/standin.out" 2>&1 &
  new_pid=$!
  standin_pids="${standin_pids:-} $new_pid"
  local port; port=$(await_printed "$dir/standin.port" "$new_pid" 's/^\([0-9]*\) .*/\1/p' "the stand-in" "$dir/standin.out") || exit 1
  new_serial=127.0.0.1:$port
  adb_here connect "$new_serial" >>"$OUT/adb.out" 2>&1 || fail "adb connect $new_serial: $(cat "$OUT/adb.out")"
  local i
  for i in $(seq 100); do
    adb_here devices | grep -q "^$new_serial[[:space:]]*device" && return 0
    sleep 0.1
  done
  fail "the adb server did not list $new_serial as a device within 10 s: $(adb_here devices)"
}
start_more_android() {
  [ -n "${standin:-}" ] || fail "start_more_android: only with stand-ins (start_android first, without EACU_TEST_ADB_SERIAL)"
  local name=$1; shift
  connect_standin "$OUT/$name" "$@"
  more_pid=$new_pid more_serial=$new_serial more_log=$OUT/$name/standin.log more_control=$OUT/$name/control
}
stop_android() {
  [ -n "${adb_port:-}" ] && [ -n "${standin:-}" ] && adb_here kill-server >/dev/null 2>&1
  local p
  for p in ${standin_pids:-}; do kill "$p" 2>/dev/null; done
  return 0
}
# The app's screen as the stand-in's tree shows it, through the real adb client: the dump's XML.
dump_tree() {
  adb_here -s "$serial" shell uiautomator dump /sdcard/check.xml >/dev/null &&
    adb_here -s "$serial" exec-out cat /sdcard/check.xml
}
