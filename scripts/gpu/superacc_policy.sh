#!/usr/bin/env bash
# The default superacc / superacc-dot (bounded=auto: the bounded pass first only where the input fits
# in half the L2 the device reports) beside the bounded pass forced on (1) and off (0), against CUB /
# cuBLAS ddot in one process, median of 10, at n = 2^20 .. 2^28 on log-uniform data (ranges 1, 1e50,
# 1e300, made on the device) and ill-conditioned data (condition 1e8, 1e12, 1e16, 1e30; below); then the
# tests of the choice and of the kernels it picks, and ncu on the exact kernel where it is slowest
# beside CUB (2^20, 2^22) and at 2^28. Run from the repository root with the binaries in
# build-gpu/bin (BIN overrides); everything goes into $OUT/superacc_policy.tgz, the merged report
# as superacc_policy_<gpu>.json.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_work superacc_policy POLICY 560
N=${POLICY_N:-2^20,2^22,2^24,2^26,2^28}
NI=${POLICY_NI:-2^20,2^22,2^24,2^26}
work_bench sum_loguniform 90 loguniform --backend=cuda --algo=superacc,cub-sum --bounded=auto,0,1 --n="$N" \
  --range=1,1e50,1e300 --generate=by-index
work_bench dot_loguniform 90 loguniform --backend=cuda --algo=superacc-dot,cublas-dot --bounded=auto,0,1 --n="$N" \
  --range=1,1e50,1e300 --generate=by-index
# illcond data are made on the host, one element after another (about 20 s per 2^28 sum): every
# condition number up to 2^26, the two ends of the range at 2^28 (the exact kernel's time does not
# depend on the condition number; the bounded pass decides 1e8 and not 1e30).
work_bench sum_illcond 120 illcond --backend=cuda --algo=superacc,cub-sum --bounded=auto,0,1 --n="$NI" \
  --cond=1e8,1e12,1e16,1e30
work_bench dot_illcond 120 illcond --backend=cuda --algo=superacc-dot,cublas-dot --bounded=auto,0,1 --n="$NI" \
  --cond=1e8,1e12,1e16,1e30
work_bench sum_illcond_2e28 80 illcond --backend=cuda --algo=superacc,cub-sum --bounded=auto,0,1 --n=2^28 --cond=1e8,1e30
ACCSUM_OPENCL_DEVICE=NVIDIA work_bench opencl_sum 30 loguniform --backend=opencl --algo=superacc,naive --n=2^26 \
  --range=1e50
merge_reports "$W" "superacc_policy_$GPU.json" >> "$LOG" 2>&1
[ "${POLICY_TESTS:-1}" = 1 ] && run_capped tests 60 "$T" --gtest_brief=1 \
  --gtest_filter='SuperaccCuda*:SuperaccPolicy*:-SuperaccCuda.MoreThanTwoToThe31Terms' > "$W/tests.log" 2>&1
if [ "${POLICY_NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
  M=$M,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
  M=$M,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  M=$M,launch__grid_size,launch__block_size
  run_capped ncu 60 ncu --clock-control none --csv --page raw --log-file "$W/ncu_policy.csv" \
    -k 'regex:superacc_blocks|pair_sum_blocks|DeviceReduce' --metrics "$M" \
    "$A" bench --backend=cuda --algo=superacc,cub-sum --bounded=0,1 --n=2^20,2^22,2^28 --range=1e50 --generate=by-index \
    --reps=1 --warmup=1 --no-repro-check --format=csv > /dev/null 2>> "$LOG"
fi
tar -czf "$OUT/superacc_policy.tgz" -C "$W" .
cp "$LOG" "$OUT/"
