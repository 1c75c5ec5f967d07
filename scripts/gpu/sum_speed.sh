#!/usr/bin/env bash
# Sum and dot speed on the GPU machine, in one bounded run (about 6 minutes on an H100): the CUDA
# tests of the kernels it measures (fpe-sum / fpe-dot bit for bit the cpu serial definition,
# superacc, the shared adversarial corpus), compute-sanitizer memcheck and racecheck on them at
# small n, then in one process each, beside the vendor baseline:
#   superacc / superacc-dot (bounded pass on and off) beside CUB DeviceReduce::Sum / cuBLAS ddot at
#   n = 2^28, ranges 1, 1e50, 1e300;
#   superacc / superacc-dot (both) for n = 2^20 .. 2^30, range 1e50 (the ratio-vs-n figure);
#   superacc (both) on ill-conditioned sums (condition 1e30: the bounded pass cannot decide) at 2^22, 2^26;
#   fpe-sum / fpe-dot R = 2, 4, 8 at n = 2^28, range 1e50;
#   NVIDIA OpenCL superacc (defaults) beside the OpenCL plain sum at 2^26 and 2^28;
#   ncu: bytes, bandwidth, occupancy, instructions of superacc (both passes), CUB, fpe-sum R = 4, 8 at 2^28.
# Run from the repository root with the binaries in build-gpu/bin (BIN overrides); SUM_SPEED_TESTS=0
# leaves the tests out (a call that has just run them). Everything
# goes into $OUT/sum_speed.tgz (the device tool returns few files); sum_speed_<gpu>.json (gpu =
# h100 or h200, from the card's name) is the merged report to commit under results/.
set -uo pipefail
W=$(mktemp -d)
LOG="$W/sum_speed.log"
{ nvidia-smi; cat "${COMMIT_FILE:-/dev/null}"; } > "$W/machine.txt" 2>&1
BUDGET=${SUM_SPEED_BUDGET:-540}  # seconds for everything: a step gets what is left, up to its own cap
source "$(dirname "$0")/common.sh"

[ "${SUM_SPEED_TESTS:-1}" = 1 ] && run_capped tests 100 "$T" --gtest_brief=1 \
  --gtest_filter='FpeSumCuda*:FpeSumMt*:SuperaccCuda*:SharedCorpus*:-SuperaccCuda.MoreThanTwoToThe31Terms' \
  > "$W/tests.log" 2>&1
sum_sanitize memcheck 45
command -v cuobjdump > /dev/null && cuobjdump --dump-resource-usage "$A" 2>/dev/null |
  grep -A1 -E 'lanes_kernel|superacc_blocks' > "$W/resource_usage.txt"

if [ "${SUM_SPEED_SWEEP:-0}" != only ]; then
  sum_bench superacc_2e28 70 --backend=cuda --algo=superacc,cub-sum --bounded=0,1 --n=2^28 --range=1,1e50,1e300 \
    --generate=by-index
  sum_bench superacc_dot_2e28 70 --backend=cuda --algo=superacc-dot,cublas-dot --bounded=0,1 --n=2^28 \
    --range=1,1e50,1e300 --generate=by-index
  sum_bench fpe_sum 50 --backend=cuda --algo=fpe-sum,cub-sum --terms=2,4,8 --n=2^28 --range=1e50
  sum_bench fpe_dot 50 --backend=cuda --algo=fpe-dot,cublas-dot --terms=2,4,8 --n=2^28 --range=1e50
  sum_bench superacc_n_sum 80 --backend=cuda --algo=superacc,cub-sum --bounded=0,1 --n=2^20:2^30 --range=1e50 \
    --generate=by-index
  SUM_DIST=illcond sum_bench superacc_illcond 50 --backend=cuda --algo=superacc,cub-sum --bounded=0,1 \
    --n=2^22,2^26 --cond=1e30
  ACCSUM_OPENCL_DEVICE=NVIDIA sum_bench opencl_sum 40 --backend=opencl --algo=superacc,naive --n=2^26,2^28 --range=1e50
fi

# SUM_SPEED_SWEEP=1: launch shapes at the sizes where fixed costs show (CUDA superacc block x grid at
# 2^20 .. 2^24; OpenCL superacc groups x local at 2^22 / 2^26 / 2^28), to choose the defaults;
# SUM_SPEED_SWEEP=only: the tests and the CUDA sweep alone.
if [ "${SUM_SPEED_SWEEP:-0}" != 0 ]; then
  sum_bench sweep_cuda 50 --backend=cuda --algo=superacc,cub-sum --n=2^20,2^22,2^24 --range=1e50 --generate=by-index \
    --block=128,256,512 --grid=0,66,132,264
  [ "$SUM_SPEED_SWEEP" = 1 ] && ACCSUM_OPENCL_DEVICE=NVIDIA sum_bench sweep_opencl 45 --backend=opencl --algo=superacc,naive --n=2^22,2^26,2^28 \
    --range=1e50 --groups=0,528,660,1056,1320 --local=0,64
fi

if [ "${SUM_SPEED_SWEEP:-0}" != only ]; then
  if command -v ncu > /dev/null; then
    M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
    M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_fp64.sum
    M=$M,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_shared_mem
    run_capped ncu 50 ncu --clock-control none --csv --page raw --log-file "$W/ncu_2e28.csv" \
      -k 'regex:superacc_blocks|pair_sum_blocks|DeviceReduce|dot_kernel|lanes_kernel' --metrics "$M" \
      "$A" bench --backend=cuda --algo=superacc,cub-sum,superacc-dot,cublas-dot,fpe-sum --bounded=0,1 --terms=4,8 \
      --n=2^28 --range=1e50 \
      --reps=1 --warmup=0 --no-repro-check --format=csv > /dev/null 2>> "$LOG"
  fi
  sum_bench superacc_n_dot 70 --backend=cuda --algo=superacc-dot,cublas-dot --bounded=0,1 --n=2^20:2^29 --range=1e50 \
    --generate=by-index
fi
sum_sanitize racecheck 40
merge_reports "$W" "sum_speed_$GPU.json" >> "$LOG" 2>&1
step merge $?
tar -czf "$OUT/sum_speed.tgz" -C "$W" .
cp "$LOG" "$OUT/"
