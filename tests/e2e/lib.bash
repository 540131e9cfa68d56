# Helpers for the end-to-end tests: assertions that say what was expected and what came.
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_contains() { case "$1" in *"$2"*) ;; *) fail "$3: expected to contain '$2', got: $1" ;; esac; }
# The display number of the run's Xvfb ("x11 :99 1280x800" -> 99).
display_of_run() { sqlite3 "$1" "SELECT device FROM runs WHERE id=$2" | sed -E 's/^x11 :([0-9]+).*/\1/'; }
# Fails unless no X server is left on display $1 (lock file and socket gone), waiting up to 10 s.
expect_display_gone() {
  local n=$1 i
  for i in $(seq 100); do
    [ ! -e "/tmp/.X$n-lock" ] && [ ! -e "/tmp/.X11-unix/X$n" ] && return 0
    sleep 0.1
  done
  fail "the virtual display :$n is still running"
}
