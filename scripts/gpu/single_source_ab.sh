#!/usr/bin/env bash
# A/B of two builds of accsum on the GPU machine, in one call: the same benchmarks run by the
# binary before a change (BEFORE, a directory holding accsum) and after it (AFTER, holding accsum
# and accsum_tests), alternated over ROUNDS rounds so that drift of the card hits both alike. First
# the CUDA and NVIDIA OpenCL tests of the AFTER build (AB_TESTS=0 leaves them out), then:
#   sum, n = 2^28, log-uniform 1e50: superacc, dpsumk K = 2, 3, fpe-sum R = 2, 4, 8 beside CUB;
#   dot, n = 2^28: superacc-dot, dpdotk K = 2, fpe-dot R = 2, 4 beside cuBLAS ddot;
#   moddot, n = 2^26, p = 2^50 - 27: abgd and lambda beside their baseline;
#   gemm, N = 4096, U[0,1): sgemm, sgemm-kahan, sgemm-dcs, sgemm-ozaki beside cuBLAS SGEMM;
#   with AB_ONLY=ozaki, only sgemm-ozaki beside cuBLAS SGEMM at N = 4096 and 8192, 10 repetitions;
#   AB_SUPERACC (e.g. --bounded=1) pins superacc's parameters on both sides where their defaults differ.
# Everything goes into $OUT/ab.tgz; ab_<gpu>.json (the runs merged, each tagged with its bench
# "before-<name>-<round>" or "after-<name>-<round>") is the report to commit under results/.
set -uo pipefail
BEFORE=${BEFORE:?directory of the accsum binary before the change}
AFTER=${AFTER:?directory of the accsum and accsum_tests binaries after the change}
ROUNDS=${ROUNDS:-2}
W=$(mktemp -d)
LOG="$W/ab.log"
{ nvidia-smi; cat "${COMMIT_FILE:-/dev/null}"; } > "$W/machine.txt" 2>&1
BUDGET=${AB_BUDGET:-560}
source "$(dirname "$0")/common.sh"

[ "${AB_TESTS:-1}" = 1 ] && run_capped tests_cuda 150 "$AFTER/accsum_tests" --gtest_brief=1 \
  --gtest_filter='*Cuda*:*CUDA*:SharedCorpus*:-SuperaccCuda.MoreThanTwoToThe31Terms' > "$W/tests_cuda.log" 2>&1
[ "${AB_TESTS:-1}" = 1 ] && ACCSUM_OPENCL_DEVICE=NVIDIA run_capped tests_opencl 150 "$AFTER/accsum_tests" --gtest_brief=1 \
  --gtest_filter='*OpenCL*:-*Batches*' > "$W/tests_opencl.log" 2>&1

bench() {  # side (before|after), name, cap seconds, options...
  local side=$1 name=$2 limit=$3 dir
  shift 3
  [ -n "${AB_ONLY:-}" ] && [ "${name%-*}" != "$AB_ONLY" ] && return  # AB_ONLY=moddot: that bench alone
  [ "$side" = before ] && dir=$BEFORE || dir=$AFTER
  run_capped "$side $name" "$limit" "$dir/accsum" bench --backend=cuda --warmup=3 --no-repro-check "$@" \
    --json="$W/$side-$name.json" --format=md > "$W/$side-$name.md" 2>> "$LOG"
}
for ((round = 1; round <= ROUNDS; ++round)); do
  for side in before after; do
    bench "$side" "sum-$round" 40 --algo=superacc,dpsumk,fpe-sum,cub-sum --K=2,3 --terms=2,4,8 --n=2^28 \
      --dist=loguniform --range=1e50 --reps=20 ${AB_SUPERACC:-}
    bench "$side" "dot-$round" 40 --algo=superacc-dot,dpdotk,fpe-dot,cublas-dot --K=2 --terms=2,4 --n=2^28 \
      --dist=loguniform --range=1e50 --reps=20 ${AB_SUPERACC:-}
    bench "$side" "moddot-$round" 40 --algo=moddot-abgd,moddot-lambda,cublas-dot --n=2^26 --reps=20
    bench "$side" "gemm-$round" 60 --algo=sgemm,sgemm-kahan,sgemm-dcs,sgemm-ozaki,cublas-sgemm --n=4096 --reps=5
    # AB_ONLY=ozaki: sgemm-ozaki alone beside cuBLAS SGEMM, more repetitions and two sizes.
    [ "${AB_ONLY:-}" = ozaki ] && bench "$side" "ozaki-$round" 60 --algo=sgemm-ozaki,cublas-sgemm --n=4096,8192 --reps=10
  done
done
merge_reports "$W" "ab_$GPU.json" >> "$LOG" 2>&1
step merge $?
tar -czf "$OUT/ab.tgz" -C "$W" .
cp "$LOG" "$OUT/"
