#!/usr/bin/env bash
# The exact kernel without private lanes (lanes=0: the expansions' residues go straight into the
# block's shared superaccumulator; fpe 2, 4, 8 with early exit) beside the default exact kernel
# (lanes=1, fpe=0), both with bounded=0 (the exact kernel alone), against CUB in one process each,
# median of 10: n = 2^20 .. 2^28 on log-uniform data (ranges 1, 1e300, made on the device) and
# ill-conditioned data (condition 1e8, 1e30) up to 2^24; then the tests of the exact kernel, memcheck
# on it, and ncu of both at 2^20 and 2^28. Run from the repository root with the binaries in
# build-gpu/bin (BIN overrides); everything goes into $OUT/superacc_exact.tgz, the merged report as
# superacc_exact_<gpu>.json.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_work superacc_exact EXACT 300
N=${EXACT_N:-2^20,2^22,2^24,2^26,2^28}
NI=${EXACT_NI:-2^20,2^22,2^24}
LANES1="--lanes=1 --fpe=0"
LANES0="--lanes=0 --fpe=2,4,8 --early-exit=1"
ebench() {  # name cap dist options...: the exact kernel alone
  work_bench "$@" --bounded=0
}
for v in 1 0; do
  [ "$v" = 1 ] && P=$LANES1 || P=$LANES0
  # shellcheck disable=SC2086
  ebench "sum_loguniform_lanes$v" 60 loguniform --backend=cuda --algo=superacc,cub-sum $P --n="$N" --range=1,1e300 \
    --generate=by-index
  # shellcheck disable=SC2086
  ebench "sum_illcond_lanes$v" 60 illcond --backend=cuda --algo=superacc,cub-sum $P --n="$NI" --cond=1e8,1e30
done
merge_reports "$W" "superacc_exact_$GPU.json" >> "$LOG" 2>&1
[ "${EXACT_TESTS:-1}" = 1 ] && run_capped tests 60 "$T" --gtest_brief=1 \
  --gtest_filter='SuperaccCuda*:SharedCorpus*:SuperaccPolicy*:-SuperaccCuda.MoreThanTwoToThe31Terms' > "$W/tests.log" 2>&1
if [ "${EXACT_SANITIZE:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  run_capped memcheck 60 compute-sanitizer --tool memcheck --print-limit 5 "$T" \
    --gtest_filter='SuperaccCuda.EdgeCases:SuperaccCuda.SmallSizesAndTileBoundaries' > "$W/memcheck.log" 2>&1
fi
if [ "${EXACT_NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
  M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
  M=$M,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active
  M=$M,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
  for v in 1 0; do
    [ "$v" = 1 ] && P=$LANES1 || P="--lanes=0 --fpe=4 --early-exit=1"
    # shellcheck disable=SC2086
    run_capped "ncu lanes$v" 40 ncu --clock-control none --csv --page raw --log-file "$W/ncu_lanes$v.csv" \
      -k 'regex:superacc_blocks|DeviceReduce' --metrics "$M" "$A" bench --backend=cuda --algo=superacc,cub-sum \
      --bounded=0 $P --n=2^20,2^28 --range=1e300 --generate=by-index --reps=1 --warmup=1 --no-repro-check \
      --format=csv > /dev/null 2>> "$LOG"
  done
fi
tar -czf "$OUT/superacc_exact.tgz" -C "$W" .
cp "$LOG" "$OUT/"
