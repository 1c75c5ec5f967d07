#!/usr/bin/env bash
# GPU peers of superacc in one process each: CUB DeviceReduce::Sum (run-to-run reproducible
# only), CUB gpu_to_gpu (reproducible accumulator), superacc (correctly rounded and reproducible); cuBLAS
# ddot, CUB's reproducible dot, superacc-dot. Run from the repo root on the GPU machine with the built
# binaries in build-gpu/bin (built with the nvidia-cuda-cccl headers: CMake prints "CCCL 300500").
# Writes logs and JSON into $OUT; about 3-4 minutes (the tests are capped at 2).
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; "$A" list | grep -E "cub|cublas|superacc"; } \
  > "$OUT/peers_info.txt" 2>&1
timeout 120 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='CubReproCuda.*:SuperaccCuda.*' > "$OUT/peers_tests.log" 2>&1
echo "tests exit $?" >> "$OUT/peers_tests.log"
# n = 2^28, ranges 1 / 1e50 / 1e300; the reproducibility checks (permuted input) run for the promising rows.
"$A" bench --backend=cuda --algo=cub-sum,cub-sum-repro,superacc --n=2^28 --range=1,1e50,1e300 --reps=20 \
  --format=md --out="$OUT/peers_sum_2e28.md" --json="$OUT/peers_sum_2e28.json"
echo "sum bench exit $?" >> "$OUT/peers_tests.log"
"$A" bench --backend=cuda --algo=cublas-dot,cub-dot-repro,superacc-dot --n=2^28 --range=1,1e50,1e300 --reps=20 \
  --format=md --out="$OUT/peers_dot_2e28.md" --json="$OUT/peers_dot_2e28.json"
echo "dot bench exit $?" >> "$OUT/peers_tests.log"
ls -la "$OUT"
