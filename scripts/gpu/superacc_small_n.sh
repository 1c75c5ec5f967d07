#!/usr/bin/env bash
# The exact kernel's tail at small n: superacc / superacc-dot with --lean-tail=0 (block merge by
# 64-bit shared-memory atomics, a second normalization for negative totals) beside --lean-tail=1
# (32-bit digit halves, one-pass negation), each with the default bounded=auto and with bounded=0
# (the exact kernel alone), against CUB / cuBLAS ddot in one process each, median of 10, at n = 2^20,
# 2^22, 2^24 on log-uniform data (ranges 1, 1e300, made on the device) and ill-conditioned data
# (condition 1e12, 1e30); first the tests of both tails and memcheck on the edge cases (both tails).
# Run from the repository root with the binaries in build-gpu/bin (BIN overrides); everything goes
# into $OUT/superacc_small_n.tgz, the merged report also as $OUT/superacc_small_n_<gpu>.json.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_work superacc_small_n SMALLN 230
N=${SMALLN_N:-2^20,2^22,2^24}
run_capped tests 60 "$T" --gtest_brief=1 \
  --gtest_filter='SuperaccCuda*:SuperaccCudaModel*:SuperaccPolicy*:-SuperaccCuda.MoreThanTwoToThe31Terms' \
  > "$W/tests.log" 2>&1
# racecheck (SMALLN_RACECHECK=1) is slower than the budget allows by default.
if [ "${SMALLN_SANITIZE:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  TOOLS=memcheck
  [ "${SMALLN_RACECHECK:-0}" = 1 ] && TOOLS="memcheck racecheck"
  for tool in $TOOLS; do
    run_capped "$tool" 40 compute-sanitizer --tool "$tool" --print-limit 5 "$T" \
      --gtest_filter='SuperaccCuda.EdgeCases' > "$W/$tool.log" 2>&1
  done
fi
sbench() {  # name cap dist options...: both tails, bounded=auto and 0, at the sizes N
  work_bench "$@" --backend=cuda --lean-tail=0,1 --bounded=auto,0 --n="$N"
}
sbench sum_loguniform 30 loguniform --algo=superacc,cub-sum --range=1,1e300 --generate=by-index
sbench dot_loguniform 30 loguniform --algo=superacc-dot,cublas-dot --range=1,1e300 --generate=by-index
sbench sum_illcond 35 illcond --algo=superacc,cub-sum --cond=1e12,1e30
sbench dot_illcond 35 illcond --algo=superacc-dot,cublas-dot --cond=1e12,1e30
merge_reports "$W" "superacc_small_n_$GPU.json" >> "$LOG" 2>&1
cp "$W/superacc_small_n_$GPU.json" "$OUT/" 2>> "$LOG"
tar -czf "$OUT/superacc_small_n.tgz" -C "$W" .
cp "$LOG" "$OUT/"
