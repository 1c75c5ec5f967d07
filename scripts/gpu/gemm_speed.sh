#!/usr/bin/env bash
# The GEMM speed on the GPU machine, one bounded run (about 5 minutes on an H100): the CUDA gemm and ozaki
# tests (every compiled-in policy bit for bit the cpu definition, sgemm-ozaki bit for bit the cpu
# definition with --accuracy=cr, faithful and sgemm, every entry within its reported bound), then `accsum
# bench` at N = 4096 and 8192 on U[0,1) and U[-1,1) of the tiled kernels (--policy=auto, tile 64), sgemm-ozaki
# at --accuracy=cr, faithful and sgemm, beside cublas-sgemm in the same process (median of GEMM_REPS), and
# sgemm-ozaki on log-uniform 1e10 data at N = 4096. Run from the repository root with the binaries
# built for sm_90 in build-gpu/bin (BIN overrides); writes $OUT/gemm_speed.log and one JSON report
# per bench, named by the card (h100, h200: from nvidia-smi, as every driver sourcing common.sh).
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
REPS=${GEMM_REPS:-10}
begin_log gemm_speed
timeout 150 "$T" --gtest_brief=1 --gtest_filter='GemmCuda.*:OzakiCuda.*:Ozaki.*' >> "$LOG" 2>&1
echo "gemm/ozaki tests exit $?" >> "$LOG"
for dist in uniform uniform-sym; do
  timeout 120 "$A" bench --backend=cuda --algo=cublas-sgemm,sgemm,sgemm-kahan,sgemm-dcs,sgemm-ozaki --tile=64 \
    --accuracy=cr,faithful,sgemm --n=4096,8192 --dist="$dist" --reps="$REPS" --warmup=1 --no-repro-check \
    --json="$OUT/gemm_speed_${dist}_${GPU}.json" --format=csv >> "$LOG" 2>&1
  echo "bench $dist exit $?" >> "$LOG"
done
timeout 80 "$A" bench --backend=cuda --algo=cublas-sgemm,sgemm-ozaki --accuracy=cr,faithful,sgemm --n=4096 --dist=loguniform \
  --range=1e10 --reps="$REPS" --warmup=1 --no-repro-check --json="$OUT/gemm_speed_loguniform_n4096_${GPU}.json" \
  --format=csv >> "$LOG" 2>&1
echo "bench loguniform exit $?" >> "$LOG"
