#!/usr/bin/env bash
# Runs every fuzzer of tests/fuzz for SECONDS each (make fuzz; CI gives each 30 s: 13 fuzzers, 6.5 minutes in all), starting
# from its committed seed corpus and its regressions (copied to a work corpus under BUILD, which
# keeps growing between runs), and prints each one's executions, executions per second and
# corpus size. A crash stops the script: the input is copied to tests/fuzz/regressions/<name>/
# (commit it with the fix: fuzz_replay_<name> then runs it in make test-sanitize) and the
# sanitizer's report is printed.
# Usage: run_fuzzers.sh BUILD SECONDS [NAME...]
set -euo pipefail
BUILD=$(cd "$1" && pwd); SECONDS_EACH=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(fuzz_model_answer fuzz_asset_index fuzz_keys_text fuzz_image_decode fuzz_runlog fuzz_serve_http
  fuzz_redis_reply fuzz_cdp_message fuzz_serve_lines fuzz_agent_frames fuzz_agent_request fuzz_adb_protocol fuzz_uiautomator_xml)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
total=0
printf '%-20s %12s %10s %8s\n' fuzzer executions "exec/s" corpus
for name in "${names[@]}"; do
  bin=$BUILD/tests/fuzz/$name
  [ -x "$bin" ] || { echo "FAIL: $bin is not built (make fuzz builds it)"; exit 1; }
  work=$BUILD/fuzz-work/$name
  mkdir -p "$work/corpus" "$work/crashes" "$work/tmp"
  cp -n "$here/corpus/$name"/* "$work/corpus/" 2>/dev/null || true
  [ -d "$here/regressions/$name" ] && cp -n "$here/regressions/$name"/* "$work/corpus/" 2>/dev/null || true
  log=$work/last.log
  max_len=4096
  [ "$name" = fuzz_runlog ] && max_len=131072
  rc=0
  (cd "$work" && TMPDIR=$work/tmp "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
      -max_len=$max_len -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$work/crashes/" "$work/corpus") \
      >"$log" 2>&1 || rc=$?
  rm -rf "$work/tmp"/*
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  size=$(ls "$work/corpus" | wc -l)
  if [ "$rc" != 0 ]; then
    tail -60 "$log"
    mkdir -p "$here/regressions/$name"
    for f in "$work/crashes"/*; do [ -f "$f" ] && cp "$f" "$here/regressions/$name/" && echo "saved $here/regressions/$name/$(basename "$f")"; done
    echo "FAIL: $name found a crash (exit $rc); the input is in tests/fuzz/regressions/$name"
    exit 1
  fi
  printf '%-20s %12s %10s %8s\n' "$name" "${execs:-?}" "${speed:-?}" "$size"
  total=$((total + ${execs:-0}))
done
echo "fuzz: ${#names[@]} fuzzers, $total executions in all, no crash"
