#!/usr/bin/env bash
# CUDA at small and medium n: the superacc CUDA tests (small sizes, tile and grid
# boundaries, lanes full of pending pieces, the adversarial sets, n > 2^31), then superacc beside
# CUB DeviceReduce::Sum and superacc-dot beside cuBLAS ddot for n = 2^10 .. 2^30 (every other
# power of two below 2^20), log-uniform range 1, data made on the GPU by index; the ratio table
# (target: >= 0.90 for every n >= 2^24) and an ncu profile of the 2^24 kernels. Run from the
# repository root with the binaries in build-gpu/bin; everything lands in $OUT. About 3 minutes
# on an H200. Figure: scripts/plot_ratio_n.py (make plots) once the JSON is under results/.
set -uo pipefail
source "$(dirname "$0")/common.sh"
LOG="$OUT/superacc_n_tests.log"
SIZES=${SUPERACC_N_SIZES:-2^10,2^12,2^14,2^16,2^18,2^20:2^30}
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > "$LOG" 2>&1
timeout 150 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='SuperaccCuda*:SharedCorpus*' >> "$LOG" 2>&1
echo "superacc tests exit $?" >> "$LOG"
bench() {  # name, algorithms, time limit
  timeout "$3" "$A" bench --backend=cuda --algo="$2" --n="$SIZES" --dist=loguniform --range=1 --reps=30 --warmup=3 \
    --no-repro-check --generate=by-index --json="$OUT/superacc_n_$1_h200.json" --format=md \
    --out="$OUT/superacc_n_$1_h200.md" 2>> "$LOG"
  echo "bench $1 exit $?" >> "$LOG"
}
bench sum superacc,cub-sum 120
bench dot superacc-dot,cublas-dot 150
if command -v python3 > /dev/null; then
  python3 scripts/plot_ratio_n.py "$OUT"/superacc_n_sum_h200.json "$OUT"/superacc_n_dot_h200.json \
    --md "$OUT/superacc_n_ratios.md" >> "$LOG" 2>&1
  echo "ratio table exit $?" >> "$LOG"
fi
# The kernels at n = 2^24 (one timed run each after one warm-up): time, DRAM and SM throughput,
# occupancy, registers.
if command -v ncu > /dev/null; then
  timeout 60 ncu --clock-control none --csv --page raw --log-file "$OUT/superacc_n_ncu_2e24.csv" \
    -k 'regex:superacc_blocks|DeviceReduce|dot_kernel|reduce_1Block' \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size \
    "$A" bench --backend=cuda --algo=superacc,cub-sum,superacc-dot,cublas-dot --n=2^24 --range=1 --reps=1 --warmup=1 \
    --no-repro-check --generate=by-index --format=csv > /dev/null 2>> "$LOG"
  echo "ncu exit $?" >> "$LOG"
fi
