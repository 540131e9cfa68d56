#!/usr/bin/env bash
# A full disk under the run log (issue 15): the run log on a 600 KiB tmpfs of this test's own
# (mounted here: needs root, as CI is), a script saving a frame per step until it fills. The run
# fails with an error that says the disk is full, is recorded as failed with that error (the
# reserve kept beside the log makes room for the last write), keeps every step the script saw
# committed, the log passes integrity_check, and no reserve file is left. Then a run started on
# a disk that is full already fails at once with a clear error, and the log is still intact.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
disk=$OUT/disk
mkdir -p "$disk"
mount -t tmpfs -o size=600k tmpfs "$disk" || fail "cannot mount a tmpfs at $disk (the test needs root, as CI runs it)"
trap 'umount "$disk" 2>/dev/null || umount -l "$disk" 2>/dev/null || true' EXIT
db=$disk/runs.db
cat > "$OUT/shots.lua" <<'LUA'
launch { "xmessage", "-center", "disk full test" }
for i = 1, 100000 do
  screenshot()
  io.stderr:write("committed " .. i .. "\n")
end
LUA

# 1. The disk fills during the run.
rc=0
timeout 120 "$EACU" run "$OUT/shots.lua" --display virtual --db "$db" >"$OUT/out" 2>"$OUT/err" || rc=$?
[ "$rc" != 124 ] || fail "eacu run did not end within 120 s on a full disk"
[ "$rc" != 0 ] || fail "eacu run exited 0 on a full disk"
committed=$(grep -c '^committed' "$OUT/err" || true)
msg=$(grep -v '^committed' "$OUT/err" || true)
echo "exit $rc after $committed frames: $msg"
[ "$committed" -gt 2 ] || fail "expected a few frames saved before the disk filled, got $committed"
expect_contains "$msg" "database or disk is full" "the error on stderr"
expect_contains "$msg" "no space left on the disk" "the error says what to do"
expect_eq "$(sqlite3 "$db" 'PRAGMA integrity_check')" "ok" "integrity_check"
expect_eq "$(sqlite3 "$db" 'SELECT COUNT(*) FROM runs')" "1" "runs in the log"
expect_eq "$(sqlite3 "$db" 'SELECT status FROM runs')" "failed" "the run's recorded status"
expect_contains "$(sqlite3 "$db" 'SELECT error FROM runs')" "disk is full" "the run's recorded error"
shots=$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE action='screenshot'")
[ "$shots" -ge "$committed" ] || fail "the script saw $committed screenshot steps committed, the log holds $shots"
expect_contains "$("$EACU" runs --db "$db")" "failed" "eacu runs"
left=$(ls "$disk" | grep -c reserve || true)
expect_eq "$left" "0" "reserve files left beside the log"
expect_display_gone "$(display_of_run "$db" 1)"

# 2. The disk is full before the run starts: a clear error at once, nothing lost.
dd if=/dev/zero of="$disk/filler" bs=4k 2>/dev/null || true
rc=0
timeout 60 "$EACU" run "$OUT/shots.lua" --display virtual --db "$db" >"$OUT/out2" 2>"$OUT/err2" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "a run on a full disk: expected a failure, got exit $rc"
msg2=$(grep -v '^committed' "$OUT/err2" || true)
echo "full from the start: exit $rc: $msg2"
expect_contains "$msg2" "the disk that holds it is full" "the error of a run on a full disk"
expect_eq "$(grep -c '^committed' "$OUT/err2" || true)" "0" "steps run on a full disk"
rm -f "$disk/filler"
expect_eq "$(sqlite3 "$db" 'PRAGMA integrity_check')" "ok" "integrity_check after the second run"
expect_eq "$(sqlite3 "$db" "SELECT COUNT(*) FROM steps WHERE action='screenshot'")" "$shots" "the first run's steps"
echo "disk_full: passed"
