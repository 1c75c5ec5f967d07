#!/usr/bin/env bash
# The DGEMM front on the GPU machine, one bounded run (DGEMM_SPEED_BUDGET seconds, default 540; about
# 6 minutes on an H100): the CUDA dgemm tests (dgemm-ozaki bit for bit the cpu definition with
# --accuracy=cr and dgemm, correctly rounded against the exact oracle; the cuBLAS front near the
# exact product), then `accsum bench` in one process per data set, beside cublas-dgemm (the
# family's baseline, CUBLAS_COMPUTE_64F_PEDANTIC): cublas-dgemm-fixedpoint (--bits=DGEMM_BITS,
# default 55) and dgemm-ozaki --accuracy=dgemm,cr, median of DGEMM_REPS (default 10), at N = 4096
# and 8192 on U[0,1) and U[-1,1), and on log-uniform 1e10 data at N = 4096.
# Run from the repository root with the binaries built for sm_90 in build-gpu/bin (BIN overrides);
# writes $OUT/dgemm_speed.log and one JSON report per bench, dgemm_speed_<data>_<gpu>.json (gpu =
# h100 or h200, from the card's name). DGEMM_SPEED_TESTS=0 leaves the tests out.
set -uo pipefail
BUDGET=${DGEMM_SPEED_BUDGET:-540}
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_log dgemm_speed
REPS=${DGEMM_REPS:-10}
BITS=${DGEMM_BITS:-55}

[ "${DGEMM_SPEED_TESTS:-1}" = 1 ] &&
  run_capped tests 150 "$T" --gtest_brief=1 --gtest_filter='DgemmOzakiCuda.*:DgemmCuda.*:Dgemm.*' >> "$LOG" 2>&1

# The three fronts on one kind of data each ($OUT/dgemm_speed_NAME_$GPU.json).
ALGOS=cublas-dgemm,cublas-dgemm-fixedpoint,dgemm-ozaki
dgemm_bench bench uniform 150 "$ALGOS" --n=4096,8192 --dist=uniform
dgemm_bench bench uniform-sym 150 "$ALGOS" --n=4096,8192 --dist=uniform-sym
dgemm_bench bench loguniform_n4096 80 "$ALGOS" --n=4096 --dist=loguniform --range=1e10
