#!/usr/bin/env bash
# fpe-sum / fpe-dot on the GPU machine, the R-term accumulators: run from the repo root
# with the built binaries in build-gpu/bin (scripts/bundle-libs.sh build-gpu/bin for the shared
# libraries); everything lands in $OUT. Bounded: a few minutes on an H200.
#  1. the CUDA tests: same bits as the cpu serial definition, within the proven bound;
#  2. n = 2^28, ranges 1 and 1e50: fpe-sum / fpe-dot R = 2, 4, 8 beside cub-sum / cublas-dot and
#     dpsumk / dpdotk K = 2 (fused) in the same process: time, and the error against the exact oracle.
# Look at: the tests' exit code; "vs base" of fpe-sum/fpe-dot terms=2 (target >= 0.9x CUB / cuBLAS);
# their digits / ulps against dpsumk / dpdotk K = 2 on the same data.
set -uo pipefail
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/fpe_sum_gpu_info.txt" 2>&1
timeout 240 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='FpeSumCuda*' > "$OUT/fpe_sum_tests_gpu.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/fpe_sum_tests_gpu.log"
timeout 150 "$A" bench --backend=cuda --algo=fpe-sum,cub-sum,dpsumk --terms=2,4,8 --K=2 --variant=fused \
  --n=2^28 --range=1,1e50 --reps=10 --json="$OUT/fpe_sum_cuda.json" --format=md > "$OUT/fpe_sum_cuda.md" 2>&1
echo "bench sum exit $?" >> "$OUT/fpe_sum_cuda.md"
timeout 150 "$A" bench --backend=cuda --algo=fpe-dot,cublas-dot,dpdotk --terms=2,4,8 --K=2 --variant=fused \
  --n=2^28 --range=1,1e50 --reps=10 --json="$OUT/fpe_dot_cuda.json" --format=md > "$OUT/fpe_dot_cuda.md" 2>&1
echo "bench dot exit $?" >> "$OUT/fpe_dot_cuda.md"
