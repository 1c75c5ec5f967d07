#!/usr/bin/env bash
# Many GPUs, one correctly rounded answer: MPI ranks, one GPU each (node-local rank),
# data made on each GPU by global index (--generate=by-index), superaccumulators merged by
# MPI_Allreduce. Weak scaling: 2^30 elements per GPU; strong scaling: 2^33 elements (sum) and
# 2^32 (dot: two arrays) in total, on 1, 2, 4, 8 GPUs as far as the machine has them. On a
# one-GPU machine 2 ranks share GPU 0 (the code path, not a scaling figure). Beside them, CUB
# and cuBLAS on one GPU at 2^30 (the per-rank yardstick) and the GPU tests of device generation.
# (--bind-to none: OpenMPI binds a rank to one core by default, and the oracle and cpu-mt use many.)
# Writes $OUT/scaling_*.json, scaling_tests.log and scaling.md (scripts/gpu/scaling_table.py).
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
REPS=${SCALING_REPS:-10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LOG="$OUT/scaling_tests.log"
GPUS=$(nvidia-smi -L | grep -c '^GPU')
nvidia-smi -L > "$LOG" 2>&1
if [ "${SCALING_TESTS:-1}" = 1 ]; then
  timeout 150 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='GenerateCuda*' >> "$LOG" 2>&1
  echo "device generation tests exit $?" >> "$LOG"
  for np in 1 2; do
    timeout 120 mpirun --oversubscribe --bind-to none -np "$np" "$B/accsum_tests" --gtest_brief=1 \
      --gtest_filter='MpiSuperacc.GeneratedByIndex*:MpiPlacement*' >> "$LOG" 2>&1
    echo "mpi by-index tests np=$np exit $?" >> "$LOG"
  done
fi
counts=""
for g in 1 2 4 8; do [ "$g" -le "$GPUS" ] && counts="$counts $g"; done
[ "$GPUS" -eq 1 ] && counts="1 2"  # 2 ranks on one GPU: exercises the path; not a scaling figure
bench() {  # name, np, n, algos
  timeout 150 mpirun --oversubscribe --bind-to none -np "$2" "$B/accsum" bench --algo="$4" --backend=mpi --inner=cuda \
    --generate=by-index --n="$3" --range=1e50 --reps="$REPS" --no-repro-check --json="$OUT/scaling_$1.json" \
    --format=csv > /dev/null 2>> "$LOG"
  echo "bench $1 np=$2 n=$3 exit $?" >> "$LOG"
}
timeout 120 "$B/accsum" bench --algo=superacc,cub-sum,superacc-dot,cublas-dot --backend=cuda --generate=by-index \
  --n=2^30 --range=1e50 --reps="$REPS" --no-repro-check --json="$OUT/scaling_one_gpu.json" --format=csv \
  > /dev/null 2>> "$LOG"
echo "bench one_gpu exit $?" >> "$LOG"
for g in $counts; do
  bench "weak_np$g" "$g" "$((g << 30))" superacc,superacc-dot
  [ "$GPUS" -eq 1 ] && [ "$g" -gt 1 ] && continue  # strong scaling needs real GPUs
  bench "strong_sum_np$g" "$g" 2^33 superacc
  bench "strong_dot_np$g" "$g" 2^32 superacc-dot
done
python3 "$(dirname "$0")/scaling_table.py" "$OUT" "$GPUS" > "$OUT/scaling.md" 2>> "$LOG"
