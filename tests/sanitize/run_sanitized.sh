#!/usr/bin/env bash
# make test-sanitize: the suite of a sanitizer build (ASan + UBSan, cmake/Sanitize.cmake) without
# the corpus accuracy tests and tests labelled `timing` or `long` (a long test whose code the
# sanitized suite runs in shorter tests). Every process of the suite (eacu runs,
# the workers and REPLs the tests start, the unit tests) writes its sanitizer reports to
# BUILD/sanitizer-logs/, so that a finding in a child whose exit status a test does not check
# still fails the suite: any report there is printed and the script exits 1.
# Usage: run_sanitized.sh BUILD [CTEST ARGS...]
set -euo pipefail
BUILD=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
logs=$BUILD/sanitizer-logs
rm -rf "$logs"; mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:strict_string_checks=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
# The tests' latency bounds (not eacu's own deadlines) are doubled: tests/e2e/lib.bash, scaled.
export EACU_TEST_TIME_SCALE=2
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
start=$(date +%s)
rc=0
(cd "$BUILD" && ctest --output-on-failure -j"${JOBS:-2}" -LE 'timing|long' -E '^corpus_' "$@") || rc=$?
# A report is a file with an error or a summary in it; anything else there is a sanitizer's
# warning (LeakSanitizer's "Running thread ... was not suspended" when a process exits while a
# thread is being created), shown but not a finding.
reports=$(grep -lE 'ERROR: |runtime error|SUMMARY: ' -r "$logs" | sort || true)
for f in $(find "$logs" -type f | sort); do
  echo "$reports" | grep -qx "$f" || { echo "=== sanitizer warning $f"; cat "$f"; }
done
if [ -n "$reports" ]; then
  for f in $reports; do echo "=== sanitizer report $f"; cat "$f"; done
  echo "FAIL: $(echo "$reports" | wc -l) sanitizer report(s) under $logs"
  rc=1
fi
echo "test-sanitize: ctest exit $rc, $(( $(date +%s) - start )) s"
exit $rc
