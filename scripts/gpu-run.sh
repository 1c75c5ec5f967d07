#!/usr/bin/env bash
# The whole GPU measurement in one go, for the lent H100/H200 machine:
# build here with `cmake -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build-gpu -j2`,
# then run this there with build-gpu/bin carried; everything lands in $OUT (at most 8 files).
# Usage: scripts/gpu-run.sh [all|superacc|dpsumk|moddot]
set -uo pipefail
B=${BIN:-build-gpu/bin}
OUT=${OUT:-gpu-out}
WHAT=${1:-all}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
A="$B/accsum"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; "$A" info --n=2^28; } > "$OUT/info.txt" 2>&1
"$B/accsum_tests" --gtest_brief=1 --gtest_filter='*Cuda*:*OpenCL*:Cli*:Moddot*' > "$OUT/tests_gpu.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/tests_gpu.log"
if [ "$WHAT" = all ] || [ "$WHAT" = superacc ]; then
  # superacc: n = 2^28 over dynamic ranges, every FPE configuration, beside CUB in the same process.
  "$A" bench --algo=superacc --backend=cuda --n=2^28 --range=1,1e10,1e50,1e100,1e300 \
    --fpe=0,2,4,8 --early-exit=0,1 --reps=20 --json="$OUT/superacc_cuda_range.json" --format=csv > /dev/null
  # Throughput against n (default configuration and the pure superaccumulator), range 1e50.
  "$A" bench --algo=superacc --backend=cuda --n=2^10:2^28 --range=1e50 --fpe=0,4 --early-exit=1 \
    --reps=20 --no-repro-check --json="$OUT/superacc_cuda_n.json" --format=csv > /dev/null
  "$A" bench --algo=superacc-dot --backend=cuda --n=2^28 --range=1,1e50 --reps=20 \
    --json="$OUT/superacc_dot_cuda.json" --format=csv > /dev/null
fi
if [ "$WHAT" = all ] || [ "$WHAT" = dpsumk ]; then
  # dpsumk / dpdotk: n = 2^28, K = 2, 3, 4, both variants, beside CUB and cuBLAS in the same process.
  "$A" bench --algo=dpsumk,dpdotk --backend=cuda --n=2^28 --K=2,3,4 --variant=fused,tree --reps=20 \
    --json="$OUT/dpsumk_cuda.json" --format=csv > /dev/null
  "$A" bench --algo=dpsumk,dpdotk --backend=cuda --n=2^10:2^28 --K=2,3 --variant=fused,tree --reps=20 \
    --no-repro-check --json="$OUT/dpsumk_cuda_n.json" --format=csv > /dev/null
fi
if [ "$WHAT" = all ] || [ "$WHAT" = moddot ]; then
  # moddot: both algorithms (rz, rn) beside the __umul64hi kernel and cuBLAS ddot of the same
  # vectors (the bandwidth yardstick), n = 2^26 and 2^28, the three primes of Fig. 7.
  "$A" bench --algo=moddot-abgd,moddot-lambda,moddot-int128,moddot-cublas-ddot --backend=cuda --n=2^26,2^28 \
    --p=32771,2147483647,1125899906842597 --rounding=rz,rn --reps=20 --json="$OUT/moddot_cuda.json" --format=csv > /dev/null
  # Fig. 7: time against n (transfer reported apart in transfer_s).
  "$A" bench --algo=moddot-abgd,moddot-lambda,moddot-int128,moddot-cublas-ddot --backend=cuda --n=2^2:2^28 \
    --p=32771,2147483647,1125899906842597 --rounding=rz,rn --reps=10 --no-repro-check \
    --json="$OUT/moddot_cuda_n.json" --format=csv > /dev/null
fi
ls -la "$OUT"
