#!/usr/bin/env bash
# Runs every libFuzzer target of build-asan (ACCSUM_FUZZ=ON) for FUZZ_SECONDS each (default 20),
# two at a time (seven targets: 80 s in all), from the committed seed corpus tests/fuzz/corpus/<target>/. New inputs go to a
# scratch corpus under the build directory; a crash, a sanitizer report, a leak or a timeout
# fails the run and leaves the input in $BUILD/fuzz-artifacts/. Prints each target's executions.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-asan}
SECS=${FUZZ_SECONDS:-20}
TARGETS=(npy raw text cli gemm moddot report)
mkdir -p "$BUILD/fuzz-artifacts" "$BUILD/fuzz-logs"
export TMPDIR=${TMPDIR:-/tmp}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_one() {
  local t=$1 work="$BUILD/fuzz-corpus/$1"
  mkdir -p "$work"
  "$BUILD/fuzz/fuzz_$t" "$work" "tests/fuzz/corpus/$t" -max_total_time="$SECS" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$BUILD/fuzz-artifacts/$t-" >"$BUILD/fuzz-logs/$t.log" 2>&1
}
declare -A pid
fail=0
for ((i = 0; i < ${#TARGETS[@]}; i += 2)); do
  for t in "${TARGETS[@]:i:2}"; do run_one "$t" & pid[$t]=$!; done
  for t in "${TARGETS[@]:i:2}"; do
    if wait "${pid[$t]}"; then st=ok; else st=FAILED; fail=1; fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD/fuzz-logs/$t.log" | grep -o '[0-9]*$')
    echo "fuzz_$t: $st, ${execs:-?} executions in ${SECS} s (log $BUILD/fuzz-logs/$t.log)"
    [ "$st" = ok ] || tail -n 40 "$BUILD/fuzz-logs/$t.log"
  done
done
exit $fail
