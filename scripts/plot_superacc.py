#!/usr/bin/env python3
"""Throughput plots of the correctly rounded sum / dot (Collange, Defour, Graillat, Iakymchuk 2015, Figs. 5-6) from accsum JSON.

Reads one or more `accsum bench --json` reports (schema accsum-report/1) and draws
  1. throughput against n (log-log), one line per algorithm / backend / parameter set, at one
     dynamic range (the most common one in the reports, or --range);
  2. throughput against the dynamic range of log-uniform data, at one n (the largest, or --n).
Throughput is the report's additions per second (sums) or elements per second (dots), in G/s.

  scripts/plot_superacc.py results/superacc_cuda_sum_n.json --range 1 --out results/superacc_cuda_sum
  scripts/plot_superacc.py results/superacc_cuda_sum_ranges.json --params adaptive=0 --out results/superacc_cuda_sum
  -> results/superacc_cuda_sum_vs_n.png, results/superacc_cuda_sum_vs_range.png
"""
import argparse
import collections
import json
import math
import sys
from report_io import ScriptError, check_outputs, load_report, run_main, save_figure, write_text  # noqa: E402,F401


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
    params = dict(result.get("params") or {})
    params.pop("grid", None)
    if str(params.get("fpe")) == "0":  # the pure superaccumulator: no expansion to exit early or bypass
        params.pop("early_exit", None)
        params.pop("adaptive", None)
    text = " ".join("%s=%s" % (k, v) for k, v in sorted(params.items()))
    return "%s/%s%s" % (result["algo"], result["backend"], (" " + text) if text else "")


def wanted(result, filters):
    params = result.get("params") or {}
    if result.get("is_baseline") or str(params.get("fpe")) == "0":
        return True
    return all(str(params.get(k)) == v for k, v in filters.items())


def load(paths, family, filters):
    """Rows (n, range, label, G/s, is_baseline, device) from every run of every report."""
    rows = []
    seen = set()
    for path in paths:
        doc = load_report(path)
        machine = doc.get("machine") or {}
        device = (machine.get("backends") or {}).get("cuda", "").split(",")[0] or machine.get("gpu") or ""
        runs = doc.get("runs") or [doc]
        for run in runs:
            ds = run.get("dataset") or {}
            if family and ds.get("family") != family:
                continue
            rng = ds.get("range_requested") or ds.get("dynamic_range") or 1.0
            for r in run.get("results", []):
                g = rate(r)
                if g is None or r.get("error") or not wanted(r, filters):
                    continue
                key = (int(ds.get("n", 0)), float(rng), label(r))
                if key in seen:  # the same configuration under parameters it ignores
                    continue
                seen.add(key)
                rows.append(key + (g / 1e9, bool(r.get("is_baseline")), device))
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
    fig, ax = plt.subplots(figsize=(9, 7))
    colors = plt.get_cmap("tab20").colors
    for i, name in enumerate(sorted(series, key=lambda s: (s not in baselines, s))):
        pts = sorted(series[name])
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if name in baselines:
            style = dict(linestyle="--", color="black", linewidth=2)
        else:
            style = dict(marker="o", markersize=3, color=colors[i % len(colors)])
        ax.plot(xs, ys, label=name, **style)
    if log_x and x_index == 0:
        ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(x_label)
    ax.set_ylabel("throughput (G terms/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    fig.tight_layout()
    save_figure(fig, out, dpi=130)
    print("wrote", out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="accsum bench --json files")
    ap.add_argument("--out", default="superacc", help="output prefix (PNG files <out>_vs_n.png, <out>_vs_range.png)")
    ap.add_argument("--family", default=None, help="sum or dot (default: all runs)")
    ap.add_argument("--range", type=float, default=None, help="dynamic range for the plot against n")
    ap.add_argument("--n", type=int, default=None, help="n for the plot against the dynamic range")
    ap.add_argument("--only", choices=["n", "range"], default=None, help="draw only this plot")
    ap.add_argument("--params", default="", help="keep only these parameter values, e.g. adaptive=0,block=512")
    args = ap.parse_args(argv)
    check_outputs(args.reports, [args.out + "_vs_n.png", args.out + "_vs_range.png"])

    filters = dict(kv.split("=", 1) for kv in args.params.split(",") if kv)
    rows = load(args.reports, args.family, filters)
    if not rows:
        raise ScriptError("no results with a throughput in " + " ".join(args.reports))
    device = next((r[5] for r in rows if r[5]), "")
    ranges = collections.Counter(r[1] for r in rows)
    ns = sorted({r[0] for r in rows})
    rng = args.range if args.range is not None else ranges.most_common(1)[0][0]
    n_fix = args.n if args.n is not None else ns[-1]

    by_n = [r for r in rows if math.isclose(r[1], rng, rel_tol=1e-9)]
    drawn = 0
    if args.only != "range" and len({r[0] for r in by_n}) > 1:
        drawn += 1
        plot(by_n, 0, "n (terms)", "throughput vs n, dynamic range %g, %s" % (rng, device), args.out + "_vs_n.png", True)
    by_range = [(r[0], math.log10(r[1]) if r[1] > 0 else 0.0) + r[2:] for r in rows if r[0] == n_fix]
    if args.only != "n" and len({r[1] for r in by_range}) > 2:
        drawn += 1
        plot(by_range, 1, "log10 of the dynamic range (max|x| / min|x|)",
             "throughput vs dynamic range, n = %d, %s" % (n_fix, device), args.out + "_vs_range.png", False)
    if not drawn:
        raise ScriptError("too few sizes or ranges in %s to draw a curve" % " ".join(args.reports))
    return 0


if __name__ == "__main__":
    run_main(main, sys.argv[1:])
