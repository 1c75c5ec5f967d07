#!/usr/bin/env bash
# What limits the tiled SGEMM kernels, measured by ncu on the GPU machine (about 1 minute): for
# cuBLAS SGEMM and the auto policies of sgemm, sgemm-kahan and sgemm-dcs (tile 64, fma 1) at
# N = 4096, U[0,1), one kernel launch each: time, instructions, issue utilisation, registers,
# occupancy and the warp stall reasons (cycles per issued instruction spent in each). Run from the
# repository root with the sm_90 binaries in build-gpu/bin; writes $OUT/gemm_stalls_<gpu>.csv (ncu's
# raw CSV, one row per kernel) and $OUT/gemm_stalls.log.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_log gemm_stalls
command -v ncu > /dev/null || { echo "ncu not found" >> "$LOG"; exit 1; }
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,launch__registers_per_thread,launch__block_size,launch__grid_size,smsp__average_warp_latency_per_inst_issued.ratio
M=$M,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum
for r in barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard math_pipe_throttle \
  mio_throttle misc no_instruction not_selected selected short_scoreboard wait; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
run_capped ncu 240 ncu --clock-control none --csv --page raw --log-file "$OUT/gemm_stalls_${GPU}.csv" \
  -k 'regex:sgemm_blocked|gemm_f32|sm90_xmma|sm80_xmma' --metrics "$M" \
  "$A" bench --backend=cuda --algo=cublas-sgemm,sgemm,sgemm-kahan,sgemm-dcs --tile=64 --n=4096 \
  --reps=1 --warmup=0 --no-repro-check --format=csv >> "$LOG" 2>&1
