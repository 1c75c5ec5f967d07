#!/usr/bin/env bash
# One bounded device call that re-checks a tree on the GPU machine: every CUDA test of the test
# binary, the OpenCL tests on NVIDIA's platform, the plugins and the library (scripts/gpu/plugins.sh),
# and the speed of what a change to shared CUDA code could slow (superacc / superacc-dot beside CUB /
# cuBLAS at 2^28, the OpenCL superacc with its defaults beside the OpenCL plain sum, sgemm beside
# cuBLAS SGEMM), each in one process beside its baseline. Everything goes into $OUT/check_all.tgz.
# Run from the repository root with the built tree in build-gpu (bin/, plugins/, lib/,
# use-the-library/). BUDGET (seconds, default 540) bounds the whole run; a step gets what is left.
set -uo pipefail
W=$(mktemp -d)
LOG="$W/check_all.log"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi > "$W/machine.txt" 2>&1
source "$(dirname "$0")/common.sh"
export LD_LIBRARY_PATH="$PWD/build-gpu/lib:$PWD/$B/lib:$LD_LIBRARY_PATH"  # the library test loads libaccsum by absolute path

run_capped "cuda tests" 200 "$T" --gtest_brief=1 \
  --gtest_filter='*Cuda*:*Gpu*:*GPU*:Plugins.*:Library.*:-SuperaccCuda.MoreThanTwoToThe31Terms:Library.InstalledPackage*' > "$W/tests_cuda.log" 2>&1
run_capped "opencl tests (NVIDIA)" 200 env ACCSUM_OPENCL_DEVICE=NVIDIA "$T" \
  --gtest_filter='*OpenCL*:-*Mpi*' > "$W/tests_opencl.log" 2>&1
run_capped plugins 120 env OUT="$W/plugins" scripts/gpu/plugins.sh

bench() {  # name, cap seconds, options...
  local name=$1 limit=$2
  shift 2
  run_capped "bench $name" "$limit" "$A" bench --reps=20 --warmup=3 --no-repro-check "$@" \
    --json="$W/$name.json" --format=md > "$W/$name.md" 2>> "$LOG"
}
bench sum_2e28 40 --backend=cuda --algo=superacc,cub-sum,superacc-dot,cublas-dot --n=2^28 --range=1e50 --generate=by-index
ACCSUM_OPENCL_DEVICE=NVIDIA bench opencl_defaults 40 --backend=opencl --algo=superacc,naive --n=2^26,2^28 --range=1e50
bench sgemm_4096 60 --backend=cuda --algo=sgemm,cublas-sgemm --shape=4096,4096,4096 --dist=uniform
tar -czf "$OUT/check_all.tgz" -C "$W" .
cp "$LOG" "$OUT/"
