#!/usr/bin/env bash
# OpenCL on the GPU machine: the OpenCL tests on NVIDIA's platform, then `accsum bench` of
# the OpenCL plain sum/dot (the OpenCL baseline) and superacc/superacc-dot beside CUB
# DeviceReduce::Sum and cuBLAS ddot, in one process (--backend=cuda,opencl; two processes only if
# that fails), n = 2^28, log-uniform ranges 1 / 1e50 / 1e300, superacc with expansions of 0 and 8
# terms (the dot also with vecs=4: 4 loads per input in flight), then a sweep of the OpenCL superacc
# sum's variants at range 1e50, n = 2^22 and 2^28 (vecs = 16-byte loads per batch, groups, local
# size, merge = global atomics or one partial per group). Run from
# the repository root with the binaries in build-gpu/bin; everything lands in $OUT:
# opencl_tests_gpu.log, opencl_sum.json, opencl_dot.json, sweep_sum.json (and their tables),
# opencl_ratios.md: OpenCL plain / CUB (target >= 0.90), OpenCL superacc / OpenCL plain (target
# >= 0.80) and the sweep sorted by time; ptx/sum, ptx/dot: the programs NVIDIA's OpenCL built for
# the main benches (ACCSUM_OPENCL_DUMP: program_<k>.bin, its build options in program_<k>.txt),
# to read for .local spills. The timeouts bound it to 155 s.
set -uo pipefail
# shellcheck source=scripts/gpu/common.sh
source "$(dirname "$0")/common.sh"
N=${OPENCL_N:-2^28}
RANGES=${OPENCL_RANGES:-1,1e50,1e300}
FPE=${OPENCL_FPE:-0,8}  # expansion sizes compared (default 0 on both backends)
GROUPS_SWEEP=${OPENCL_GROUPS:-0,1056,5280}  # 0: 20 per compute unit (2640 on 132 SMs)
SWEEP_N=${OPENCL_SWEEP_N:-2^22,$N}
export ACCSUM_OPENCL_DEVICE=${ACCSUM_OPENCL_DEVICE:-NVIDIA}  # NVIDIA's platform, not PoCL on the host CPU
LOG="$OUT/opencl_tests_gpu.log"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; timeout 10 "$A" info; } > "$LOG" 2>&1
timeout ${OPENCL_TESTS_S:-35} "$B/accsum_tests" --gtest_brief=1 --gtest_filter='*OpenCL*' >> "$LOG" 2>&1
echo "opencl tests exit $?" >> "$LOG"

# One bench per family; the baselines of each backend (cub-sum / cublas-dot, naive / dot) join by themselves.
bench() {  # family algo vecs seconds
  local fam=$1 algo=$2 vecs=$3 limit=$4
  mkdir -p "$OUT/ptx/$fam"
  ACCSUM_OPENCL_DUMP="$OUT/ptx/$fam" timeout "$limit" "$A" bench --backend=cuda,opencl --algo="$algo" --n="$N" --dist=loguniform \
    --range="$RANGES" --fpe="$FPE" --vecs="$vecs" --early-exit=1 --reps=20 --warmup=3 --no-repro-check \
    --json="$OUT/opencl_$fam.json" --format=md \
    > "$OUT/opencl_$fam.md" 2>> "$LOG"
  local rc=$?
  echo "bench $fam (one process) exit $rc" >> "$LOG"
  # One process could not hold both backends (a quick failure, not a timeout): each alone, ratios across processes.
  if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
    for be in cuda opencl; do
      ACCSUM_OPENCL_DUMP="$OUT/ptx/$fam" timeout 16 "$A" bench --backend=$be --algo="$algo" --n="$N" --dist=loguniform \
        --range="$RANGES" --fpe="$FPE" --vecs="$vecs" --early-exit=1 --reps=20 --warmup=3 --no-repro-check --json="$OUT/opencl_${fam}_$be.json" --format=md \
        > "$OUT/opencl_${fam}_$be.md" 2>> "$LOG"
      echo "bench $fam $be exit $?" >> "$LOG"
    done
  fi
}
bench sum superacc 0 35
bench dot superacc-dot 0,4 40
# The sweep: one range, one process, the OpenCL plain sum beside every variant.
timeout 35 "$A" bench --backend=opencl --algo=superacc --n="$SWEEP_N" --dist=loguniform --range=1e50 --fpe=0 \
  --vecs=2,4,8 --groups="$GROUPS_SWEEP" --local=0,64 --merge=0,1 --early-exit=1 --reps=10 --warmup=2 --no-repro-check \
  --json="$OUT/sweep_sum.json" --format=md > "$OUT/sweep_sum.md" 2>> "$LOG"
echo "sweep exit $?" >> "$LOG"

python3 - "$OUT" > "$OUT/opencl_ratios.md" 2>> "$LOG" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
times = {}  # (family, range) -> {(backend, algo, fpe params): median seconds}
SWEPT = ("fpe", "early_exit", "vecs", "groups", "local", "lanes", "merge")
def prm_of(r, keys):
    return " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if k in keys)
def load(pattern):
    times = {}
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        doc = json.load(open(path))
        for run in doc.get("runs") or [doc]:
            ds = run["dataset"]
            key = (ds["family"], ds.get("range_requested"), ds.get("n"))
            for r in run["results"]:
                if not r.get("error"):
                    keys = SWEPT if r["backend"] == "opencl" else ("fpe", "early_exit")
                    times.setdefault(key, {})[(r["backend"], r["algo"], prm_of(r, keys))] = r["time_s"]["median"]
                else:
                    print(f"error: {r['backend']} {r['algo']} {prm_of(r, SWEPT)}: {r['error']}", file=sys.stderr)
    return times
times = load("opencl_*.json")
vendor = {"sum": ("cub-sum", "naive", "superacc"), "dot": ("cublas-dot", "dot", "superacc-dot")}
print("| family | range | vendor (CUDA) ms | OpenCL plain ms | plain / vendor (>= 0.90) | OpenCL superacc | ms | superacc / plain (>= 0.80) | CUDA superacc / vendor |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
ms = lambda x: f"{x * 1e3:.4f}" if x else "-"
for (fam, rng, n), t in sorted(times.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
    v, p, s = vendor[fam]
    tv, tp = t.get(("cuda", v, "")), t.get(("opencl", p, ""))
    r1 = tv / tp if tv and tp else 0
    for (be, algo, prm), ts in sorted(t.items()):
        if be != "opencl" or algo != s:
            continue
        tc = t.get(("cuda", s, " ".join(w for w in prm.split() if w.split("=")[0] in ("fpe", "early_exit"))))
        r2 = tp / ts if tp and ts else 0
        r3 = tv / tc if tv and tc else 0
        print(f"| {fam} | {rng:g} | {ms(tv)} | {ms(tp)} | {r1:.3f}x {'met' if r1 >= 0.90 else 'MISSED'} | {prm} | {ms(ts)} | "
              f"{r2:.3f}x {'met' if r2 >= 0.80 else 'MISSED'} | {r3:.3f}x |")
for (fam, rng, n), t in sorted(load("sweep_*.json").items(), key=lambda kv: (kv[0][0], kv[0][1] or 0, kv[0][2] or 0)):
    tp = t.get(("opencl", vendor[fam][1], ""))
    print(f"\n### sweep: OpenCL {vendor[fam][2]} variants, {fam}, range {rng:g}, n = {n}, plain {ms(tp)} ms\n")
    print("| params | ms | superacc / plain |")
    print("| --- | --- | --- |")
    for (be, algo, prm), ts in sorted(t.items(), key=lambda kv: kv[1]):
        if algo == vendor[fam][2]:
            print(f"| {prm} | {ms(ts)} | {tp / ts if tp else 0:.3f}x |")
PY
echo "ratios exit $?" >> "$LOG"
ls -la "$OUT" >> "$LOG"
