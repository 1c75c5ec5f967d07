#!/usr/bin/env bash
# The fpe tables on the GPU machine: the fpe family's CUDA tests (data-parallel, sequential and QD
# kernels bit for bit the cpu definitions and the QD library, both memory cases), then
# `accsum table --suite=fpe` on cuda: the accuracy table and Tables I-IV of Collange, Joldes,
# Muller, Popescu (ASAP 2016) in Mop/s, best case and 256 B of shared memory per term.
# Run from the repository root with the binaries in build-gpu/bin (BIN overrides); everything
# lands in $OUT. Bounded: about 3 minutes (each step has its own timeout).
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
N=${FPE_N:-2^20}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$OUT/fpe_gpu_info.txt" 2>&1
timeout 100 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='FpeCuda*:QdOps*:Fpe.*' > "$OUT/fpe_tests_cuda.log" 2>&1
echo "tests exit $?" >> "$OUT/fpe_tests_cuda.log"
timeout 150 "$B/accsum" table --suite=fpe --backend=cuda --n="$N" --json="$OUT/fpe_tables_cuda.json" \
  -o "$OUT/fpe_tables_cuda.md" > "$OUT/fpe_tables_cuda.log" 2>&1
echo "table exit $?" >> "$OUT/fpe_tables_cuda.log"
# The target: memory-constrained, data-parallel >= 2x sequential for every R >= 8 (add and mul).
if command -v python3 > /dev/null; then
  python3 - "$OUT/fpe_tables_cuda.json" > "$OUT/fpe_target.txt" 2>&1 <<'PY'
import json, sys
rate = {}
for run in json.load(open(sys.argv[1]))["runs"]:
    for r in run["results"]:
        if r.get("time_s", {}).get("reps", 0) > 1 and str(r.get("params", {}).get("shared")) == "1":
            rate[(r["algo"], int(r["R"]))] = r["throughput"]["operations_per_s"]
ok = True
for dp, seq in (("fpe-add-safe", "fpe-seq-add"), ("fpe-add-fast", "fpe-seq-add"), ("fpe-mul", "fpe-seq-mul")):
    for R in (2, 4, 8, 16, 32):
        if (dp, R) in rate and (seq, R) in rate:
            x = rate[(dp, R)] / rate[(seq, R)]
            met = x >= 2 or R < 8
            ok &= met
            print(f"memory-constrained R={R:2d} {dp} / {seq}: {x:.2f}x{'' if met else '  BELOW 2x'}")
print("target met" if ok else "target NOT met")
PY
fi
