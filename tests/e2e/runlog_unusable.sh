#!/usr/bin/env bash
# A run log that cannot be written: `eacu run` stops at its start with one clear line and a
# non-zero exit, writes nothing and starts no Xvfb: a read-only file (chmod 444), a read-only
# folder (chmod 555), and a file another process holds an EXCLUSIVE lock on. Also: a log of a
# newer schema is refused; an older one (schema 4) is migrated to the current one in place.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
echo 'error("the script must not run")' > "$OUT/never.lua"

# Runs eacu run on $1, expecting failure with $2 in its one-line stderr; nothing started.
expect_refused() {
  local db=$1 want=$2 code=0 err
  "$EACU" run "$OUT/never.lua" --display virtual --db "$db" >/dev/null 2>"$OUT/err" || code=$?
  err=$(cat "$OUT/err")
  echo "$err"
  [ "$code" != 0 ] || fail "eacu run on $db exited 0"
  expect_contains "$err" "$want" "error for $db"
  expect_eq "$(echo "$err" | wc -l)" "1" "one line of error"
  case "$err" in *"Traceback"*|*"stack traceback"*|*"terminate called"*) fail "a traceback: $err" ;; esac
  [ ! -s "$XVFB_LOG" ] || fail "an Xvfb was started for an unusable run log: $(cat "$XVFB_LOG")"
}

# 1. A read-only file (chmod 444): refused, even as root; the file is unchanged.
ro=$OUT/ro.db
"$EACU" runs --db "$ro" >/dev/null
chmod 444 "$ro"
sum=$(sha256sum "$ro" | cut -d' ' -f1)
expect_refused "$ro" "run log $ro: cannot write: read-only file"
expect_eq "$(sha256sum "$ro" | cut -d' ' -f1)" "$sum" "read-only file unchanged"
chmod 644 "$ro"

# 2. A read-only folder (chmod 555): SQLite cannot keep its -wal and -shm files there.
mkdir -p "$OUT/rodir"
"$EACU" runs --db "$OUT/rodir/runs.db" >/dev/null
rm -f "$OUT/rodir/runs.db-wal" "$OUT/rodir/runs.db-shm"
chmod 555 "$OUT/rodir"
expect_refused "$OUT/rodir/runs.db" "cannot write: read-only directory $OUT/rodir"
chmod 755 "$OUT/rodir"
expect_eq "$(sqlite3 "$OUT/rodir/runs.db" 'SELECT COUNT(*) FROM runs')" "0" "no run written in the read-only folder"

# 3. Locked: another process holds an EXCLUSIVE transaction open.
lk=$OUT/locked.db
"$EACU" runs --db "$lk" >/dev/null
python3 - "$lk" "$OUT/locked" <<'PY' &
import sqlite3, sys, time, os
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
con.execute("UPDATE runs SET status = status")
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
con.execute("ROLLBACK")
PY
locker=$!
trap 'rm -f "$OUT/locked"; kill "$locker" 2>/dev/null || true' EXIT  # a failure below must not leave it holding the test open
for i in $(seq 100); do [ -f "$OUT/locked" ] && break; sleep 0.1; done
[ -f "$OUT/locked" ] || fail "the locking process did not take its lock"
t0=$(date +%s.%N)
expect_refused "$lk" "run log $lk: is locked by another process (waited 5 s)"
waited=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "refused after $waited s"
rm -f "$OUT/locked"; wait "$locker"
expect_eq "$(sqlite3 "$lk" 'SELECT COUNT(*) FROM runs')" "0" "no run written in the locked log"

# 4. A newer schema is refused with what to do; an older one is migrated in place.
nw=$OUT/newer.db
"$EACU" runs --db "$nw" >/dev/null
current=$(sqlite3 "$nw" 'PRAGMA user_version')  # what this eacu writes
sqlite3 "$nw" 'PRAGMA user_version=99'
expect_refused "$nw" "schema version 99 is newer than this eacu supports ($current)"
old=$OUT/old.db
"$EACU" runs --db "$old" >/dev/null
sqlite3 "$old" "ALTER TABLE steps DROP COLUMN actor; ALTER TABLE runs DROP COLUMN heartbeat_at; ALTER TABLE runs DROP COLUMN host; ALTER TABLE runs DROP COLUMN pid_start; ALTER TABLE runs DROP COLUMN pid; PRAGMA user_version=4;
  INSERT INTO runs(script, status, started_at) VALUES('old.lua', 'running', strftime('%s','now') - 3600);
  INSERT INTO runs(script, status, started_at) VALUES('young.lua', 'running', strftime('%s','now'))"
runs=$("$EACU" runs --db "$old")
echo "$runs"
expect_eq "$(sqlite3 "$old" 'PRAGMA user_version')" "$current" "schema migrated to $current"
expect_eq "$(sqlite3 "$old" "SELECT dflt_value FROM pragma_table_info('steps') WHERE name='actor'")" "'script'" "steps.actor added"
expect_contains "$(echo "$runs" | grep old.lua)" "crashed" "a schema-4 run left running an hour ago"
expect_contains "$(echo "$runs" | grep young.lua)" "running" "a schema-4 run started just now"
echo "runlog_unusable: ok"
