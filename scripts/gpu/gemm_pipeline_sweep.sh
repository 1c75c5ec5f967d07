#!/usr/bin/env bash
# The tiled SGEMM kernels under every policy compiled into a default build (auto's and the cp.async
# ring policies, backends/cuda/agent/gemm_policy.cuh) on the GPU machine, in one bounded run (about
# 4 minutes on an H100): the CUDA gemm tests (every compiled-in policy bit for bit the cpu
# definition), then `accsum bench` at N = 4096 and 8192 on U[0,1) beside cublas-sgemm in the same
# process: sgemm under the plain policies, sgemm-kahan and sgemm-dcs (tile 64) under the
# compensated ones (the two lists differ, so two processes). Run from the repository root with the
# binaries built for sm_90 in build-gpu/bin (BIN overrides). Writes into $OUT: gemm_pipeline_sweep.log,
# gemm_pipeline_sweep_<gpu>.json (the bench reports, merged) and gemm_pipeline_sweep_<gpu>.md
# (TFLOP/s and ratio to cuBLAS per policy, k-tiles in the ring, registers, spills, blocks per SM,
# shared memory), from which kAutoPlainPolicy / kAutoKahanPolicy / kAutoDcsPolicy are picked.
set -uo pipefail
BUDGET=${SWEEP_BUDGET:-240}  # seconds for everything: a step gets what is left, up to its own cap
source "$(dirname "$0")/common.sh"
LOG="$OUT/gemm_pipeline_sweep.log"
PARTS="$OUT/gemm_pipeline_sweep_parts"
mkdir -p "$PARTS"
machine_header "$LOG"

[ "${SWEEP_TESTS:-1}" = 1 ] && run_capped "gemm cuda tests" 120 "$T" --gtest_brief=1 --gtest_filter='GemmCuda.*' >> "$LOG" 2>&1

# The policies compiled into this build for an algorithm: its --policy help names them
# ("Compiled into this build: a, b; the others need ..."), as a comma list.
compiled() {
  "$A" list --format=json | python3 -c '
import json, re, sys
doc = json.load(sys.stdin)
for a in doc["algorithms"] if isinstance(doc, dict) else doc:
    if a["algo"] != sys.argv[1]: continue
    for b in a["backends"]:
        if b["backend"] != "cuda": continue
        for p in b["params"]:
            if p["name"] == "policy":
                names = re.search(r"Compiled into this build: ([^;(]*)", p["help"]).group(1)
                print(",".join(n.strip() for n in names.split(",") if n.strip()))
' "$1"
}
PLAIN=$(compiled sgemm)
COMP=$(compiled sgemm-kahan)
echo "plain policies: $PLAIN" >> "$LOG"
echo "compensated policies: $COMP" >> "$LOG"

bench() {  # name, cap seconds, options...
  local name=$1 limit=$2
  shift 2
  run_capped "bench $name" "$limit" "$A" bench --backend=cuda --n=4096,8192 --dist=uniform --reps=5 --warmup=1 \
    --no-repro-check "$@" --json="$PARTS/$name.json" --format=csv >> "$LOG" 2>&1
}
# Caps sized for the ring lists; a sweep build's whole lists need more (SWEEP_PLAIN_CAP, SWEEP_COMP_CAP).
bench plain "${SWEEP_PLAIN_CAP:-75}" --algo=cublas-sgemm,sgemm --policy="$PLAIN"
bench compensated "${SWEEP_COMP_CAP:-105}" --algo=cublas-sgemm,sgemm-kahan,sgemm-dcs --tile=64 --policy="$COMP"

merge_reports "$PARTS" merged.json >> "$LOG" 2>&1 && mv "$PARTS/merged.json" "$OUT/gemm_pipeline_sweep_${GPU}.json"
step "merge" $?

# One row per (N, algorithm, policy), fastest first, against cuBLAS SGEMM of the same process.
python3 - "$OUT/gemm_pipeline_sweep_${GPU}.json" "$OUT/gemm_pipeline_sweep_${GPU}.md" >> "$LOG" 2>&1 << 'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
target = {"sgemm": 0.95, "sgemm-kahan": 0.90, "sgemm-dcs": 0.85}
fig = lambda r, k: r.get(k, float("nan"))
num = lambda x, spec: format(x, spec) if isinstance(x, (int, float)) else str(x)
rows = []
for run in doc["runs"]:
    n = run["dataset"]["shape"]["rows"]
    for r in run["results"]:
        if r["algo"] == "cublas-sgemm":
            continue
        pol = r.get("params", {}).get("policy", "?")
        if "error" in r:
            rows.append((n, r["algo"], -1.0, f"| {n} | {r['algo']} | {pol} | error: {r['error']} |" + " |" * 9))
            continue
        ratio = r.get("ratio_to_baseline", float("nan"))
        rows.append((n, r["algo"], ratio,
                     f"| {n} | {r['algo']} | {pol} | {num(r['throughput']['FLOP_per_s'] / 1e12, '.1f')} | "
                     f"{num(ratio, '.3f')} | {target.get(r['algo'], 0):.2f} | {num(fig(r, 'policy_stages'), '.0f')} | "
                     f"{num(fig(r, 'policy_regs'), '.0f')} | {num(fig(r, 'policy_local_bytes'), '.0f')} | "
                     f"{num(fig(r, 'policy_threads'), '.0f')} | {num(fig(r, 'policy_blocks_per_sm'), '.0f')} | "
                     f"{num(fig(r, 'policy_smem_bytes') / 1024, '.0f')} | {num(r.get('abs_err'), '.3g')} |"))
rows.sort(key=lambda x: (x[0], x[1], -x[2]))
lines = ["# Tiled SGEMM policies, cp.async ring beside auto's (U[0,1), tile 64 for Kahan and DCS)", "",
         "| N | algo | policy | TFLOP/s | x cuBLAS | target | ring k-tiles | regs | spill B | threads | blocks/SM | "
         "smem KiB | max abs err |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
lines += [r[3] for r in rows]
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print(f"table: {len(rows)} rows -> {sys.argv[2]}")
EOF
step "table" $?
ls -la "$OUT" >> "$LOG"
