#!/usr/bin/env bash
# One bounded GPU call (BUDGET seconds, default 280): the cuBLAS baselines against their pedantic
# front rows, and compare's speed gate on the GPU.
#  1. dgemm: cublas-dgemm (cublasDgemm, default math: the family's baseline), cublas-dgemm-pedantic,
#     cublas-dgemm-fixedpoint --bits=55 and dgemm-ozaki --accuracy=dgemm,cr, median of DGEMM_REPS
#     (default 5), N = 4096 and 8192 on U[0,1) and U[-1,1), N = 4096 on log-uniform 1e10, as
#     scripts/gpu/dgemm_speed.sh: $OUT/dgemm_speed_<data>_<gpu>.json.
#  2. gemm at N = 8192, U[0,1): cublas-sgemm (cublasSgemm, default math: the baseline),
#     cublas-sgemm-pedantic and sgemm-via-dgemm (now on the default-math DGEMM):
#     $OUT/gemm_baselines_n8192_<gpu>.json.
#  3. scripts/speed_gate_rates.py with the CUDA paced-sum plugins ($B/plugins/paced_sum_cuda_*.so),
#     GATE_PAIRS pairs of each kind (default 15), n = 2^22: $OUT/speed_gate_<gpu>.json.
# Run from the repository root with the binaries built for sm_90 in $BIN (default build-gpu/bin).
set -uo pipefail
BUDGET=${BUDGET:-280}
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_log baselines_and_gate
REPS=${DGEMM_REPS:-5}
BITS=55
ALGOS=cublas-dgemm,cublas-dgemm-pedantic,cublas-dgemm-fixedpoint,dgemm-ozaki
dgemm_bench dgemm uniform 70 "$ALGOS" --n=4096,8192 --dist=uniform
dgemm_bench dgemm uniform-sym 70 "$ALGOS" --n=4096,8192 --dist=uniform-sym
dgemm_bench dgemm loguniform_n4096 25 "$ALGOS" --n=4096 --dist=loguniform --range=1e10
run_capped "gemm baselines" 50 "$A" bench --backend=cuda --algo=cublas-sgemm,cublas-sgemm-pedantic,sgemm-via-dgemm \
  --n=8192 --dist=uniform --reps="$REPS" --warmup=1 --no-repro-check --json="$OUT/gemm_baselines_n8192_${GPU}.json" \
  --format=csv >> "$LOG" 2>&1
run_capped "speed gate" 120 python3 "$(dirname "$0")/../speed_gate_rates.py" --accsum "$A" --plugins "$B/plugins" \
  --plugin-stem paced_sum_cuda --algo paced-sum-cuda --backend cuda --n 2^22 --reps 20 \
  --pairs "${GATE_PAIRS:-15}" --max-seconds "$(( $(cap 120) - 15 ))" --conditions quiet --out "$OUT/speed_gate_${GPU}.json" >> "$LOG" 2>&1
