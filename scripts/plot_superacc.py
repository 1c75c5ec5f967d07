#!/usr/bin/env python3
"""Throughput plots of the correctly rounded sum / dot (seed 004, Figs. 5-6) from accsum JSON.

Reads one or more `accsum bench --json` reports (schema accsum-report/1) and draws
  1. throughput against n (log-log), one line per algorithm / backend / parameter set, at one
     dynamic range (the most common one in the reports, or --range);
  2. throughput against the dynamic range of log-uniform data, at one n (the largest, or --n).
Throughput is the report's additions per second (sums) or elements per second (dots), in G/s.

  scripts/plot_superacc.py results/superacc_cuda_*.json --out results/superacc_cuda
  -> results/superacc_cuda_vs_n.png, results/superacc_cuda_vs_range.png
"""
import argparse
import collections
import json
import math
import sys


def rate(result):
    tp = result.get("throughput") or {}
    for key in ("additions_per_s", "elements_per_s", "operations_per_s"):
        if tp.get(key):
            return tp[key]
    for key, v in tp.items():
        if key.endswith("_per_s") and key != "bytes_per_s" and v:
            return v
    return None


def label(result):
    params = result.get("params") or {}
    text = " ".join("%s=%s" % (k, v) for k, v in sorted(params.items()) if k not in ("grid",))
    return "%s/%s%s" % (result["algo"], result["backend"], (" " + text) if text else "")


def load(paths, family):
    """Rows (n, range, label, G/s, is_baseline, device) from every run of every report."""
    rows = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        device = (doc.get("machine") or {}).get("gpu") or ""
        runs = doc.get("runs") or [doc]
        for run in runs:
            ds = run.get("dataset") or {}
            if family and ds.get("family") != family:
                continue
            rng = ds.get("range_requested") or ds.get("dynamic_range") or 1.0
            for r in run.get("results", []):
                g = rate(r)
                if g is None or r.get("error"):
                    continue
                rows.append((int(ds.get("n", 0)), float(rng), label(r), g / 1e9, bool(r.get("is_baseline")), device))
    return rows


def plot(rows, x_index, x_label, title, out, log_x):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = collections.defaultdict(list)
    baselines = set()
    for row in rows:
        series[row[2]].append((row[x_index], row[3]))
        if row[4]:
            baselines.add(row[2])
    fig, ax = plt.subplots(figsize=(8, 5))
    for name in sorted(series, key=lambda s: (s not in baselines, s)):
        pts = sorted(series[name])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        style = dict(linestyle="--", color="black", linewidth=2) if name in baselines else dict(marker="o", markersize=3)
        ax.plot(xs, ys, label=name, **style)
    if log_x:
        ax.set_xscale("log", base=2 if x_index == 0 else 10)
    ax.set_yscale("log")
    ax.set_xlabel(x_label)
    ax.set_ylabel("throughput (G terms/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    print("wrote", out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="accsum bench --json files")
    ap.add_argument("--out", default="superacc", help="output prefix (PNG files <out>_vs_n.png, <out>_vs_range.png)")
    ap.add_argument("--family", default=None, help="sum or dot (default: all runs)")
    ap.add_argument("--range", type=float, default=None, help="dynamic range for the plot against n")
    ap.add_argument("--n", type=int, default=None, help="n for the plot against the dynamic range")
    args = ap.parse_args(argv)

    rows = load(args.reports, args.family)
    if not rows:
        print("no results with a throughput in", args.reports, file=sys.stderr)
        return 1
    device = next((r[5] for r in rows if r[5]), "")
    ranges = collections.Counter(r[1] for r in rows)
    ns = sorted({r[0] for r in rows})
    rng = args.range if args.range is not None else ranges.most_common(1)[0][0]
    n_fix = args.n if args.n is not None else ns[-1]

    by_n = [r for r in rows if math.isclose(r[1], rng, rel_tol=1e-9)]
    if len({r[0] for r in by_n}) > 1:
        plot(by_n, 0, "n (terms)", "throughput vs n, dynamic range %g %s" % (rng, device), args.out + "_vs_n.png", True)
    by_range = [r for r in rows if r[0] == n_fix]
    if len({r[1] for r in by_range}) > 1:
        plot(by_range, 1, "dynamic range (max|x| / min|x|)", "throughput vs dynamic range, n = %d %s" % (n_fix, device),
             args.out + "_vs_range.png", True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
