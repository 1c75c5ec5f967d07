#!/usr/bin/env bash
# A shorter re-measure of the sum and dot kernels after a change to their host side (launch sequence,
# registration, OpenCL arguments), on the GPU machine in one bounded run (about 4 minutes on an H100):
# compute-sanitizer memcheck and racecheck on the fpe-sum and superacc edge tests, then beside the
# vendor baseline in one process each: superacc / CUB Sum at 2^28 (ranges 1, 1e50, 1e300), fpe-sum
# R = 2, 4, 8 and dpsumk K = 2 / CUB, fpe-dot and dpdotk / cuBLAS ddot at 2^28 (range 1e50), and NVIDIA
# OpenCL superacc / the OpenCL plain sum at 2^26 and 2^28. Run from the repository root with the binaries
# in build-gpu/bin (BIN overrides); $OUT/sum_recheck.tgz holds every report and sum_recheck_<gpu>.json,
# the merged report to commit under results/.
set -uo pipefail
W=$(mktemp -d)
LOG="$W/sum_recheck.log"
{ nvidia-smi; cat "${COMMIT_FILE:-/dev/null}"; } > "$W/machine.txt" 2>&1
BUDGET=${RECHECK_BUDGET:-300}
source "$(dirname "$0")/common.sh"
sum_sanitize memcheck 45
sum_sanitize racecheck 45
sum_bench superacc_2e28 70 --backend=cuda --algo=superacc,cub-sum --n=2^28 --range=1,1e50,1e300 --generate=by-index
sum_bench fpe_dpsumk_sum 50 --backend=cuda --algo=fpe-sum,dpsumk,cub-sum --terms=2,4,8 --K=2 --n=2^28 --range=1e50
sum_bench fpe_dpdotk_dot 50 --backend=cuda --algo=fpe-dot,dpdotk,cublas-dot --terms=2,4,8 --K=2 --n=2^28 --range=1e50
ACCSUM_OPENCL_DEVICE=NVIDIA sum_bench opencl_sum 40 --backend=opencl --algo=superacc,naive --n=2^26,2^28 --range=1e50
merge_reports "$W" "sum_recheck_$GPU.json" >> "$LOG" 2>&1
step merge $?
tar -czf "$OUT/sum_recheck.tgz" -C "$W" .
cp "$LOG" "$OUT/"
