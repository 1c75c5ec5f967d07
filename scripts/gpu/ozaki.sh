#!/usr/bin/env bash
# sgemm-ozaki on the GPU machine: the CUDA ozaki tests, then `accsum bench` of sgemm-ozaki (default
# slices and the sweep 3..6) beside cublas-sgemm, sgemm-via-dgemm and cublas-fixedpoint at N = 4096
# and 8192 on U[0,1], U[-1,1] and log-uniform 1e10 (the family's sampled-column exact oracle at
# these sizes). Run from the repository root with the binaries in build-gpu/bin; everything lands
# in $OUT (a log and six JSON reports). About 3 minutes on an H200. OZAKI_N, OZAKI_DISTS and
# OZAKI_SLICES narrow the sweep (e.g. OZAKI_N=8192 OZAKI_DISTS=uniform-sym OZAKI_SLICES=0).
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/ozaki_tests.log" 2>&1
timeout 120 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='OzakiCuda.*:Ozaki.*' >> "$OUT/ozaki_tests.log" 2>&1
echo "ozaki tests exit $?" >> "$OUT/ozaki_tests.log"
for n in ${OZAKI_N:-4096 8192}; do
  for dist in ${OZAKI_DISTS:-uniform uniform-sym loguniform}; do
    range=(); [ "$dist" = loguniform ] && range=(--range=1e10)
    timeout 150 "$A" bench --backend=cuda --algo=sgemm-ozaki,cublas-sgemm,sgemm-via-dgemm,cublas-fixedpoint \
      --slices=${OZAKI_SLICES:-0,3,4,5,6} --n="$n" --dist="$dist" "${range[@]}" --reps=10 --warmup=2 --no-repro-check \
      --json="$OUT/ozaki_${dist}_n${n}.json" --format=csv > /dev/null 2>> "$OUT/ozaki_tests.log"
    echo "bench $dist n=$n exit $?" >> "$OUT/ozaki_tests.log"
  done
done
