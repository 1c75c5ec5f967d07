#!/usr/bin/env bash
# The moddot family on the GPU machine, from the repository root with the built
# binaries in build-gpu/bin (scripts/bundle-libs.sh build-gpu/bin for the libraries it lacks);
# everything lands in $OUT. About 3 minutes on an H200 (each step is bounded by `timeout`).
#   1. the moddot tests that run on cuda (exact against GMP, block boundaries, n > 2^31);
#   2. accsum bench at n = 2^26 and 2^28 for p = 32771, 2^31 - 1, 2^50 - 27: both algorithms in
#      both roundings, the __umul64hi integer kernel and cuBLAS ddot (the bandwidth yardstick),
#      with a summary of the targets (>= 0.90x cuBLAS ddot, >= the integer kernel);
#   3. accsum table --suite=moddot --backend=cuda: the paper's Fig. 7 up to n = 2^28.
set -uo pipefail
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/moddot_gpu_info.txt" 2>&1

timeout 150 "$B/accsum_tests" --gtest_brief=1 \
  --gtest_filter='Moddot.Every*:Moddot.Random*:Moddot.Block*:Moddot.Rounding*:Moddot.ResultsAreIdentical*:ModdotGpu*' \
  > "$OUT/moddot_tests_gpu.log" 2>&1
echo "gpu tests exit $?" >> "$OUT/moddot_tests_gpu.log"

timeout 120 "$A" bench --backend=cuda --algo=moddot-abgd,moddot-lambda,moddot-int128,moddot-cublas-ddot --rounding=rz,rn \
  --p=32771,2147483647,1125899906842597 --n=2^26,2^28 --reps=30 --warmup=3 --no-repro-check \
  --json="$OUT/moddot_cuda_bench.json" --format=md > "$OUT/moddot_cuda_bench.md" 2>&1
echo "bench exit $?" >> "$OUT/moddot_cuda_bench.md"

python3 - "$OUT/moddot_cuda_bench.json" > "$OUT/moddot_cuda_targets.md" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("| p | n | algorithm | ms | vs cuBLAS ddot | vs int128 | targets |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for run in doc.get("runs") or [doc]:
    ds = run["dataset"]
    t = {}
    for r in run["results"]:
        if r.get("error") or r["backend"] != "cuda":
            continue
        prm = r.get("params", {})
        t[(r["algo"] + " " + prm.get("rounding", "")).strip()] = r["time_s"]["median"]
    ddot, i128 = t.get("moddot-cublas-ddot"), t.get("moddot-int128")
    for k, s in sorted(t.items()):
        if k.startswith(("moddot-abgd", "moddot-lambda")):
            a, b = ddot / s if ddot else 0, i128 / s if i128 else 0
            ok = "met" if a >= 0.90 and b >= 1.0 else "MISSED"
            print(f'| {ds.get("data_params", {}).get("p")} | {ds["n"]} | {k} | {s*1e3:.4f} | {a:.3f}x | {b:.3f}x | {ok} |')
PY

timeout 150 "$A" table --suite=moddot --backend=cuda --n=${MODDOT_TABLE_N:-2^28} --json="$OUT/moddot_table_cuda.json" \
  -o "$OUT/moddot_table_cuda.md" > "$OUT/moddot_table_cuda.log" 2>&1
echo "table exit $?" >> "$OUT/moddot_table_cuda.log"
python3 scripts/plot_moddot.py "$OUT/moddot_table_cuda.json" -o "$OUT/moddot_cuda_time.png" >> "$OUT/moddot_table_cuda.log" 2>&1
