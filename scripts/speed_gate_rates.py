#!/usr/bin/env python3
"""Measures how often `accsum compare` cries wolf and how often it catches a real slowdown.

Each trial is a base/new pair of `accsum bench` runs of one candidate row (the paced-sum test
plugin, tests/plugins/paced_sum.c or .cu) beside its family's baseline, judged by
`accsum compare`: same build on both sides (a false alarm is any "slower" verdict), or a new side
built SLOWDOWN_PERCENT = 5 or 10 % slower (a detection is "slower" on the candidate's row). Each
triplet of trials runs one base bench, then the three new sides in a random order (--seed), so a
change of the machine's load meets every kind alike and a triplet costs four benches, not six.
Every pair is judged twice from the same reports: on the ratio to the same-run baseline (compare's
default) and on raw times (--speed=time), so the file shows what the ratio buys.

With --hog, a CPU-bound process runs beside the benches for the whole condition. /proc/loadavg
is recorded before and after each condition: the machine may be loaded by others as well.

  scripts/speed_gate_rates.py --accsum build/bin/accsum --plugins build/plugins --pairs 100 \\
      --out results/speed_gate_cpu_small.json
"""
import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time

KINDS = (("same", 0), ("slowed 10 %", 10), ("slowed 5 %", 5))


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def spin():
    while True:
        pass


def bench(args, plugin, path):
    cmd = [args.accsum, "bench", f"--plugin={plugin}", f"--algo={args.algo}", f"--backend={args.backend}",
           f"--n={args.n}", f"--reps={args.reps}", "--no-repro-check", f"--json={path}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def judge(args, base, new, basis):
    out = subprocess.run([args.accsum, "compare", base, new, "--format=json", f"--speed={basis}"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"compare failed ({out.returncode}): {out.stderr.strip()}")
    doc = json.loads(out.stdout)
    slower = [c for c in doc["changes"] if c["aspect"] == "speed" and c["verdict"] == "slower"]
    on_row = [c for c in slower if f" {args.algo}@" in c["row"]]
    return {"alarm": bool(slower), "caught": bool(on_row),
            "delta": on_row[0]["delta"] if on_row else None}


def median_ratio_change(base, new, algo):
    """The candidate row's change of median ratio, new over base (for the record of the noise)."""
    def median_ratio(path):
        with open(path) as f:
            doc = json.load(f)
        row = next(r for r in doc["results"] if r["algo"] == algo)
        ratios = sorted(row["time_s"]["ratio_samples"])
        m = len(ratios)
        return ratios[m // 2] if m % 2 else 0.5 * (ratios[m // 2 - 1] + ratios[m // 2])
    return median_ratio(base) / median_ratio(new) - 1


def samples_of(path, algo):
    """The candidate row's per-repetition series, for --keep-samples (4 significant digits)."""
    with open(path) as f:
        doc = json.load(f)
    t = next(r for r in doc["results"] if r["algo"] == algo)["time_s"]
    return {k: [float(f"{v:.4g}") for v in t[k]] for k in ("samples", "baseline_samples", "ratio_samples")}


def machine_and_tool(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["machine"], doc["tool"]


def condition(args, hog, work, kept):
    procs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.hog_processes if hog else 0)]
    for p in procs:
        p.start()
    before = loadavg()
    started = time.time()
    trials = []
    order = random.Random(args.seed + hog)  # the order of a triplet's new sides
    try:
        for i in range(args.pairs):
            if args.max_seconds and time.time() - started > args.max_seconds:
                break  # out of time: the pairs measured so far are the result
            base, new = os.path.join(work, "base.json"), os.path.join(work, "new.json")
            bench(args, os.path.join(args.plugins, f"{args.plugin_stem}_0.so"), base)
            kinds = [k for k in KINDS if k[1] in args.kinds]
            for kind, percent in order.sample(kinds, len(kinds)):
                bench(args, os.path.join(args.plugins, f"{args.plugin_stem}_{percent}.so"), new)
                trials.append({"kind": kind, "ratio": judge(args, base, new, "ratio"),
                               "time": judge(args, base, new, "time"),
                               "ratio_change": median_ratio_change(base, new, args.algo)})
                if args.keep_samples:
                    kept.append({"hog": hog, "kind": kind, "base": samples_of(base, args.algo),
                                 "new": samples_of(new, args.algo)})
            print(f"{'hog' if hog else 'no hog'}: {i + 1}/{args.pairs} pairs", file=sys.stderr, flush=True)
    finally:
        for p in procs:
            p.terminate()
            p.join()
    machine, tool = machine_and_tool(os.path.join(work, "base.json"))
    return {"hog": hog, "hog_processes": len(procs), "loadavg_before": before, "loadavg_after": loadavg(),
            "seconds": round(time.time() - started, 1), "machine": machine, "tool": tool, "rates": rates(trials),
            "trials": trials}


def rates(trials):
    out = {}
    for basis in ("ratio", "time"):
        r = {}
        for kind, _ in KINDS:
            if not any(x["kind"] == kind for x in trials):
                continue  # not measured (--kinds)
            t = [x for x in trials if x["kind"] == kind]
            key = "alarm" if kind == "same" else "caught"
            r[kind] = {"pairs": len(t), "hits": sum(x[basis][key] for x in t),
                       "rate": round(sum(x[basis][key] for x in t) / len(t), 4) if t else None}
        out[basis] = r
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--accsum", required=True)
    ap.add_argument("--plugins", required=True, help="directory of paced_sum_{0,5,10}.so")
    ap.add_argument("--plugin-stem", default="paced_sum", help="paced_sum (cpu) or paced_sum_cuda")
    ap.add_argument("--algo", default="paced-sum")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--n", default="2^16", help="default: what the CI recipe's --n=small gives a sum")
    ap.add_argument("--reps", type=int, default=20, help="default: the CI recipe's")
    ap.add_argument("--pairs", type=int, default=100, help="pairs of each kind per condition")
    ap.add_argument("--conditions", default="quiet,hog", help="quiet, hog or both")
    ap.add_argument("--hog-processes", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="per condition: start no pair after this many seconds (0: no limit)")
    ap.add_argument("--kinds", default="0,10,5",
                    help="the new sides of each triplet: slowdowns in percent, among 0 (the same build), 10 and 5")
    ap.add_argument("--seed", type=int, default=1, help="of the order in which each triplet's new sides run")
    ap.add_argument("--keep-samples", help="also write every trial's per-repetition series to this file")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    conditions = args.conditions.split(",")
    try:
        args.kinds = {int(k) for k in args.kinds.split(",")}
    except ValueError:
        sys.exit("--kinds takes a list of 0, 10 and 5")
    if not args.kinds or not args.kinds <= {0, 10, 5}:
        sys.exit("--kinds takes a list of 0, 10 and 5")
    if not set(conditions) <= {"quiet", "hog"}:
        sys.exit("--conditions takes quiet and/or hog")
    with tempfile.TemporaryDirectory() as work:
        kept = []
        results = [condition(args, c == "hog", work, kept) for c in conditions]
    if args.keep_samples:
        with open(args.keep_samples, "w") as f:
            json.dump(kept, f)
    doc = {"schema": "accsum-speed-gate/1", "tool": results[0].pop("tool"), "machine": results[0].pop("machine"),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": ["scripts/speed_gate_rates.py"] +
           sys.argv[1:], "bench": {"algo": args.algo, "backend": args.backend, "n": args.n,
                                          "reps": args.reps},
           "note": "'hog' runs CPU-bound processes beside the benches; other work on the machine (its load average "
                   "is recorded) loads both conditions; each triplet of trials shares one base bench",
           "conditions": results}
    for c in results[1:]:
        c.pop("tool"), c.pop("machine")
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for c in results:
        print(("hog" if c["hog"] else "no hog"), json.dumps(c["rates"]))


if __name__ == "__main__":
    main()
