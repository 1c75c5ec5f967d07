#!/usr/bin/env bash
# Where the time of one Ozaki-scheme call goes, kernel by kernel, on the GPU machine: ncu's
# gpu__time_duration of every kernel of one `accsum bench` repetition (beside its cuBLAS baseline) of
# sgemm-ozaki (--accuracy=cr and sgemm) and dgemm-ozaki (--accuracy=dgemm and cr) at N = PHASES_N
# (default 8192) on U[0,1). Writes $OUT/ozaki_phases_<algo>_<accuracy>.csv (ncu's raw CSV) and the
# per-kernel totals in $OUT/ozaki_phases.md (scripts/gpu/ozaki_phases.py). Run from the repository
# root with the binaries built for sm_90 in build-gpu/bin (BIN overrides); BUDGET caps the seconds.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
begin_log ozaki_phases
N=${PHASES_N:-8192}
profile() {  # family baseline, algorithm, accuracy
  run_capped "ncu $2 $3" 90 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    --log-file "$OUT/ozaki_phases_$2_$3.csv" "$A" bench --backend=cuda --algo="$1,$2" --accuracy="$3" --n="$N" \
    --dist=uniform --reps=1 --warmup=0 --no-repro-check --format=csv >> "$LOG" 2>&1
}
profile cublas-sgemm sgemm-ozaki cr
profile cublas-sgemm sgemm-ozaki sgemm
profile cublas-dgemm dgemm-ozaki dgemm
profile cublas-dgemm dgemm-ozaki cr
python3 "$(dirname "$0")/ozaki_phases.py" "$OUT"/ozaki_phases_*.csv > "$OUT/ozaki_phases.md" 2>> "$LOG"
