#!/usr/bin/env bash
# The tiled SGEMM kernels under every --policy (backends/cuda/agent/gemm_policy.cuh) on
# the GPU machine, in one bounded run (about 4 minutes on an H200): the CUDA gemm tests (every
# policy bit for bit the cpu definition; capped at 120 s), then `accsum bench` of sgemm,
# sgemm-kahan --tile=64 and sgemm-dcs --tile=64 under every policy of their lists beside
# cublas-sgemm in the same process, at N = 5120 and 8192 on U[0,1) (benches capped at 150 s in
# all). Run from the repository root with the binaries built for sm_90 and
# -DACCSUM_GEMM_POLICY_SWEEP=ON in build-gpu/bin (BIN overrides). Writes $OUT/gemm_policies.log, gemm_policies_h200.json (the bench reports, merged)
# and gemm_policies_h200.md (TFLOP/s and ratio to cuBLAS per policy, registers, spills, blocks per
# SM, against the targets). POLICY_N narrows the sizes (e.g. POLICY_N=8192), POLICY_ALGOS the
# algorithms, POLICY_BUDGET (seconds) widens the benches' budget.
set -uo pipefail
B=${BIN:-build-gpu/bin}
OUT=${OUT:-gpu-out}
source "$(dirname "$0")/common.sh"
mkdir -p "$OUT"
A="$B/accsum"
# The sweep lists are compiled only with -DACCSUM_GEMM_POLICY_SWEEP=ON (docs/gemm.md).
if "$A" list --format=json | grep -q 'the others need -DACCSUM_GEMM_POLICY_SWEEP=ON'; then
  echo "gemm_policies.sh: $A compiles only --policy=auto's policies: configure with -DACCSUM_GEMM_POLICY_SWEEP=ON" >&2
  exit 2
fi
LOG="$OUT/gemm_policies.log"
PARTS="$OUT/gemm_policies_parts"
mkdir -p "$PARTS"
machine_header "$LOG"

timeout 120 "$B/accsum_tests" --gtest_brief=1 --gtest_filter='GemmCuda.*' >> "$LOG" 2>&1
echo "gemm cuda tests exit $?" >> "$LOG"

# The policy names of an algorithm on cuda (its --policy choices, "auto" left out).
policies() {
  "$A" list --format=json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
algos = doc["algorithms"] if isinstance(doc, dict) else doc
for a in algos:
    if a["algo"] != sys.argv[1]: continue
    for b in a["backends"]:
        if b["backend"] != "cuda": continue
        for p in b["params"]:
            if p["name"] == "policy":
                print(",".join(c for c in p["allowed"].split("|") if c != "auto"))
' "$1"
}

BUDGET=${POLICY_BUDGET:-150}
start=$SECONDS
for n in ${POLICY_N:-5120 8192}; do
  for algo in ${POLICY_ALGOS:-sgemm sgemm-kahan sgemm-dcs}; do
    left=$((BUDGET - (SECONDS - start)))
    if [ "$left" -le 5 ]; then echo "bench $algo n=$n skipped: the ${BUDGET} s budget is spent" >> "$LOG"; continue; fi
    tile=(); [ "$algo" != sgemm ] && tile=(--tile=64)
    list=$(policies "$algo")
    echo "bench $algo n=$n policies $list" >> "$LOG"
    timeout "$left" "$A" bench --backend=cuda --algo="$algo" "${tile[@]}" --policy="$list" --n="$n" --dist=uniform \
      --reps=10 --warmup=2 --no-repro-check --json="$PARTS/${algo}_n${n}.json" --format=csv >> "$LOG" 2>&1
    echo "bench $algo n=$n exit $? ($((SECONDS - start)) s)" >> "$LOG"
  done
done

# Merge the reports; the table: one row per (N, algorithm, policy), best first, against cuBLAS.
python3 - "$PARTS" "$OUT/gemm_policies_h200.json" "$OUT/gemm_policies_h200.md" >> "$LOG" 2>&1 << 'EOF'
import glob, json, os, sys
parts, out_json, out_md = sys.argv[1:4]
docs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(parts, "*.json")))]
json.dump({"issue": 9, "what": "tiled SGEMM policies beside cuBLAS SGEMM", "reports": docs}, open(out_json, "w"), indent=1)
f = lambda x, spec: format(x, spec) if isinstance(x, (int, float)) else str(x)
target = {"sgemm": 0.90, "sgemm-kahan": 0.90, "sgemm-dcs": 0.85}
rows = []
for d in docs:
    for run in d.get("runs", []):
        n = run["dataset"]["shape"]["rows"]
        res = run["results"]
        cub = [r for r in res if r["algo"] == "cublas-sgemm" and "error" not in r]
        cub_tf = cub[0]["throughput"]["FLOP_per_s"] / 1e12 if cub else float("nan")
        for r in res:
            if r["algo"] == "cublas-sgemm": continue
            p = r.get("params", {})
            if "error" in r:
                rows.append((n, r["algo"], p.get("policy", "?"), None, r["error"])); continue
            rows.append((n, r["algo"], p.get("policy", "?"), dict(
                tflops=r["throughput"]["FLOP_per_s"] / 1e12, ratio=r.get("ratio_to_baseline", float("nan")),
                cub=cub_tf, regs=r.get("policy_regs"), local=r.get("policy_local_bytes"),
                blocks=r.get("policy_blocks_per_sm"), threads=r.get("policy_threads"), err=r.get("abs_err")), None))
lines = ["# Tiled SGEMM policies on the GPU (U[0,1), tile 64 for Kahan and DCS)", "",
         "| N | algo | policy | TFLOP/s | x cuBLAS | target | cuBLAS TFLOP/s | regs | spill B | threads | blocks/SM | max abs err |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
best = {}
key = lambda r: (r[0], r[1], -(r[3]["ratio"] if r[3] else -1))
for n, algo, pol, m, err in sorted(rows, key=key):
    if m is None:
        lines.append(f"| {n} | {algo} | {pol} | error: {err} | | | | | | | | |"); continue
    t = target.get(algo, 0)
    ok = "met" if isinstance(m["ratio"], (int, float)) and m["ratio"] >= t else "not met"
    lines.append(f"| {n} | {algo} | {pol} | {f(m['tflops'], '.1f')} | {f(m['ratio'], '.3f')} | {t:.2f} {ok} | "
                 f"{f(m['cub'], '.1f')} | {f(m['regs'], '.0f')} | {f(m['local'], '.0f')} | {f(m['threads'], '.0f')} | "
                 f"{f(m['blocks'], '.0f')} | {f(m['err'], '.3g')} |")
    best.setdefault((n, algo), (pol, m["ratio"]))
lines += ["", "Best per size and algorithm (set kAutoPlainPolicy / kAutoKahanPolicy / kAutoDcsPolicy from these):", ""]
for (n, algo), (pol, ratio) in sorted(best.items()):
    lines.append(f"- N = {n}, {algo}: {pol} ({ratio:.3f}x cuBLAS; target {target.get(algo, 0):.2f})")
open(out_md, "w").write("\n".join(lines) + "\n")
print(f"table: {len(rows)} rows -> {out_md}")
EOF
echo "table exit $?" >> "$LOG"
ls -la "$OUT" >> "$LOG"
