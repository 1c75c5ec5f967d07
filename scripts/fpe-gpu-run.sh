#!/usr/bin/env bash
# The fpe family on the lent GPU machine (issue 12): build here with
#   cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DACCSUM_OPENCL=OFF -DACCSUM_MPI=OFF && cmake --build build-gpu -j2
#   scripts/bundle-libs.sh build-gpu/bin   (the shared libraries the GPU machine lacks: MPFR, GMP, fmt)
# then run this there with build-gpu/bin carried; everything lands in $OUT.
set -uo pipefail
B=${BIN:-build-gpu/bin}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
A="$B/accsum"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/fpe_gpu_info.txt" 2>&1
"$B/accsum_tests" --gtest_brief=1 --gtest_filter='FpeCuda*:Fpe.*' > "$OUT/fpe_tests_gpu.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/fpe_tests_gpu.log"
# Tables I-IV: add and mul against R, registers only (shared=0) and 256 B of shared memory per term
# (shared=1), data-parallel against sequential, in the same process.
"$A" bench --backend=cuda --algo=fpe-add-safe,fpe-add-fast,fpe-seq-add,fpe-mul,fpe-seq-mul --R=2,4,8,16,32 \
  --n=${FPE_N:-2^18} --shared=0,1 --reps=10 --json="$OUT/fpe_cuda_tables.json" --format=md > "$OUT/fpe_cuda_tables.md" 2>&1
echo "bench exit $?" >> "$OUT/fpe_cuda_tables.md"
