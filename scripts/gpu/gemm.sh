#!/usr/bin/env bash
# The gemm family on the GPU machine, in one bounded run (about 3-4 minutes on an H200):
# the CUDA gemm tests, `accsum bench` of the whole front (ours and cuBLAS's) at N = 4096, 5120,
# 8192 on U[0,1], and the paper-layout table on cuda. Run from the repository root with the binaries
# built for sm_90 in build-gpu/bin (BIN overrides); everything lands in $OUT.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
FRONT=sgemm,sgemm-kahan,sgemm-dcs,cublas-sgemm,cublas-tf32,cublas-bf16x9,sgemm-via-dgemm,cublas-fixedpoint
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  git rev-parse HEAD 2>/dev/null
  # Registers, stack and shared memory of the tiled kernels (spills show as stack).
  command -v cuobjdump > /dev/null && cuobjdump --dump-resource-usage "$A" 2>/dev/null | grep -A1 sgemm_blocked
} > "$OUT/gemm_info.txt" 2>&1

# 1. Every tiled kernel bit for bit the cpu definition on odd shapes, the cuBLAS front against the
#    exact product; then the odd shapes once more under compute-sanitizer (out-of-bounds accesses).
timeout 90 "$B/accsum_tests" --gtest_filter='GemmCuda*' > "$OUT/gemm_tests.log" 2>&1
echo "gemm cuda tests exit $?" >> "$OUT/gemm_tests.log"
if command -v compute-sanitizer > /dev/null; then
  timeout 60 compute-sanitizer --tool memcheck --print-limit 5 "$B/accsum_tests" \
    --gtest_filter='GemmCuda.TiledKernelsOnOddShapesAndEdgeTiles' > "$OUT/gemm_memcheck.log" 2>&1
  echo "memcheck exit $?" >> "$OUT/gemm_memcheck.log"
fi

# The family's verify sweep (odd shapes, BLAS scalars, specials, ill-conditioned) against the oracle.
timeout 60 "$A" verify --backend=cuda --algo=sgemm,sgemm-kahan,sgemm-dcs > "$OUT/gemm_verify.txt" 2>&1
echo "verify exit $?" >> "$OUT/gemm_verify.txt"

# 2. The front at the issue's sizes, U[0,1], tiles 16 and 64, beside cuBLAS SGEMM in the same
#    process (large N: the oracle judges an evenly spaced sample of columns, exactly; see the JSON).
"$A" bench --backend=cuda --algo=$FRONT --tile=16,64 --bits=24,32 --n=4096,5120,8192 --dist=uniform \
  --reps=10 --warmup=2 --json="$OUT/gemm_front_h200.json" --out="$OUT/gemm_front_h200.md" --format=md \
  > /dev/null 2> "$OUT/gemm_front_h200.err"
# The paper's Table 3: products rounded separately (fma = 0), N = 4096.
"$A" bench --backend=cuda --algo=sgemm,sgemm-kahan,sgemm-dcs,cublas-sgemm --tile=64 --fma=0 --n=4096 \
  --dist=uniform --reps=5 --json="$OUT/gemm_fma0_h200.json" --out="$OUT/gemm_fma0_h200.md" --format=md \
  > /dev/null 2> "$OUT/gemm_fma0_h200.err"

# 3. The layout of Badin et al. 2011, Tables 4-9 (N = 1024 ... 5120, U[0,1] and U[-1,1], tiles
#    1 / 16 / 32 / 64, the vendor front beside them), every cell timed (median of 3).
"$A" table --suite=gemm --backend=cuda --n=5120 --reps=3 --json="$OUT/gemm_table_h200.json" \
  --out="$OUT/gemm_table_h200.md" 2> "$OUT/gemm_table_h200.err"
echo "table exit $?" >> "$OUT/gemm_table_h200.err"
ls -la "$OUT"
