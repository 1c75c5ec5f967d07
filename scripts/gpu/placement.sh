#!/usr/bin/env bash
# MPI ranks and GPUs on whatever the GPU machine has: the placement tests under
# mpirun -np 1/2/4 (on a one-GPU machine every rank shares device 0), then superacc and
# superacc-dot over 1, 2 and 4 ranks with inner=cuda at n = 2^28 (bits must be identical to the
# cuda and cpu results; `placement` in each JSON row says which rank used which GPU).
# Run from the repository root with the binaries in build-gpu/bin; everything lands in $OUT.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LOG="$OUT/placement_tests.log"
nvidia-smi -L > "$LOG" 2>&1
for np in 1 2 4; do
  timeout 120 mpirun --oversubscribe --bind-to none -np "$np" "$B/accsum_tests" --gtest_brief=1 \
    --gtest_filter='MpiPlacement*:Mpi*:SuperaccCuda.Mpi*' >> "$LOG" 2>&1
  echo "placement tests np=$np exit $?" >> "$LOG"
done
for np in 1 2 4; do
  timeout 120 mpirun --oversubscribe --bind-to none -np "$np" "$B/accsum" bench --algo=superacc,superacc-dot --backend=mpi \
    --inner=cuda --n=2^28 --range=1e50 --reps=10 --no-repro-check --json="$OUT/placement_mpi_cuda_np$np.json" \
    --format=csv > /dev/null 2>> "$LOG"
  echo "bench np=$np exit $?" >> "$LOG"
done
timeout 120 "$B/accsum" bench --algo=superacc,superacc-dot --backend=cuda,cpu-mt --n=2^28 --range=1e50 --reps=5 \
  --no-repro-check --json="$OUT/placement_single.json" --format=csv > /dev/null 2>> "$LOG"
echo "bench single exit $?" >> "$LOG"
