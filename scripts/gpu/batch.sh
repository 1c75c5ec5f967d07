#!/usr/bin/env bash
# Several topic scripts of scripts/gpu/ in one bounded device call, their outputs packed into one
# archive ($OUT/batch.tgz) because the device tool returns only a few files per call.
# Usage: scripts/gpu/batch.sh TOPIC:SECONDS ... (e.g. gemm:250 ozaki:160); binaries in build-gpu/bin,
# or in build-gpu/bin.tar.xz (unpacked first; its lib/ goes on LD_LIBRARY_PATH).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f build-gpu/bin.tar.xz ] && tar -xJf build-gpu/bin.tar.xz -C build-gpu
BIN=${BIN:-$ROOT/build-gpu/bin}
# shellcheck source=scripts/gpu/common.sh
source scripts/gpu/common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d)
nvidia-smi > "$WORK/nvidia-smi.txt" 2>&1
git rev-parse HEAD > "$WORK/commit.txt" 2>/dev/null
for job in "$@"; do
  topic=${job%%:*} cap=${job##*:}
  mkdir -p "$WORK/$topic"
  start=$(date +%s)
  OUT="$WORK/$topic" timeout "$cap" "scripts/gpu/$topic.sh" > "$WORK/$topic/driver.log" 2>&1
  echo "$topic exit $? after $(( $(date +%s) - start )) s (cap $cap s)" | tee -a "$WORK/batch.log"
done
tar -czf "$OUT/batch.tgz" -C "$WORK" .
