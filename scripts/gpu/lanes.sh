#!/usr/bin/env bash
# The lane-accumulator kernels (dpsumk/dpdotk fused, fpe-sum/fpe-dot), which share the thread-level
# streaming of backends/cuda/thread/lane_stream.cuh: their CUDA tests, then n = 2^28 at range 1e50
# beside CUB / cuBLAS in one process (a must-not-regress check). Everything lands in $OUT.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
timeout 100 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='DpSumKCuda*:FpeSumCuda*' > "$OUT/lanes_tests.log" 2>&1
echo "lanes tests exit $?" >> "$OUT/lanes_tests.log"
timeout 120 "$B/accsum" bench --backend=cuda --algo=dpsumk,dpdotk,fpe-sum,fpe-dot,cub-sum,cublas-dot --K=2,3 \
  --variant=fused --terms=2 --n=2^28 --range=1e50 --reps=20 --no-repro-check --json="$OUT/lanes_2e28.json" \
  --format=md --out="$OUT/lanes_2e28.md"
echo "lanes bench exit $?" >> "$OUT/lanes_tests.log"
