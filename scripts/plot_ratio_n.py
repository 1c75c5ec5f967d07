#!/usr/bin/env python3
"""Speed of the correctly rounded sum / dot relative to the vendor's inexact one, against n.

Reads `accsum bench --json` reports (schema accsum-report/1), e.g. the superacc_n_{sum,dot}_h200.json
of scripts/gpu/superacc_n.sh, and for every dataset size takes each non-baseline result's
`ratio_to_baseline` (its median time beside CUB DeviceReduce::Sum or cuBLAS ddot, measured in the
same process). One line per algorithm; the targets (>= 0.80 from n = 2^20, >= 0.90 from 2^22) are
drawn in. --before adds an earlier report's line (dashed) for comparison; --md writes the table
(no matplotlib needed for that). --spread keeps every dataset of a size (ranges, condition numbers) and
draws each line's worst ratio over them (solid) beside its best (dotted).

  scripts/plot_ratio_n.py results/superacc_n_sum_h200.json results/superacc_n_dot_h200.json --range 1 \\
      --before results/superacc_cuda_sum_n.json -o results/superacc_n_ratio.png
  scripts/plot_ratio_n.py results/superacc_n_*_h200.json --md results/superacc_n_ratios.md
"""
import argparse
import collections
import json
import math
from report_io import ScriptError, check_outputs, load_report, run_main, save_figure, write_text  # noqa: E402,F401

# (from log2 n, ratio): the target of every n from there to the next entry.
TARGETS = [(20, 0.80), (22, 0.90)]


def target(n):
    """The target ratio at n, or None below the first entry."""
    t = None
    for log2_from, ratio in TARGETS:
        if n >= 2 ** log2_from:
            t = ratio
    return t


def rows(paths, algos=None, params=None, rng=None, benches=None, spread=False):
    """{label: {n: (ratio, time, baseline time, baseline name, correctly rounded)}}, label "algo/backend" and its
    `bounded` parameter where it has one (one range: rng; benches: only the runs a merged report tags with one of
    these `bench` names). spread: {label: {n: [every dataset's tuple]}} instead."""
    out = collections.defaultdict(lambda: collections.defaultdict(list)) if spread else collections.defaultdict(dict)
    for path in paths:
        doc = load_report(path)
        for run in doc.get("runs") or [doc]:
            if benches and run.get("bench") not in benches:
                continue
            ds = run.get("dataset") or {}
            n = ds.get("n")
            if rng is not None and ds.get("range_requested") not in (None, rng):
                continue
            results = run.get("results") or []
            base = {r["algo"]: r for r in results if r.get("is_baseline")}
            for r in results:
                if r.get("is_baseline") or r.get("ratio_to_baseline") is None:
                    continue
                if algos and r["algo"] not in algos:
                    continue
                p = r.get("params") or {}
                if params and any(str(p.get(k)) != v for k, v in params.items()):
                    continue
                b = base.get(r.get("baseline")) or {}
                label = "%s/%s" % (r["algo"], r["backend"]) + (" bounded=%s" % p["bounded"] if "bounded" in p else "")
                row = (r["ratio_to_baseline"], (r.get("time_s") or {}).get("median"),
                       (b.get("time_s") or {}).get("median"), r.get("baseline"), r.get("correctly_rounded"))
                if spread:
                    out[label][n].append(row)
                else:
                    out[label][n] = row
    return out


def log2n(n):
    k = math.log2(n)
    return "2^%d" % k if k == int(k) else str(n)


def write_md(data, path):
    lines = ["| algorithm | n | baseline | baseline median | median | ratio | correctly rounded | target |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, by_n in sorted(data.items()):
        for n in sorted(by_n):
            ratio, t, tb, bname, cr = by_n[n]
            t_n = target(n)
            if t_n is not None:
                verdict = ("met" if ratio >= t_n else "**not met**") + " (>= %.2f)" % t_n
            else:
                verdict = "-"
            us = lambda s: "%.1f us" % (s * 1e6) if s is not None else "?"
            lines.append("| %s | %s | %s | %s | %s | %.3f | %s | %s |"
                         % (label, log2n(n), bname, us(tb), us(t), ratio, "yes" if cr else "**no**", verdict))
    write_text(path, "\n".join(lines) + "\n")


def worst_best(data):
    """{label (worst): {n: row}, label (best): {n: row}} from rows(..., spread=True)."""
    out = {}
    for label, by_n in data.items():
        out[label + " (worst)"] = {n: min(v) for n, v in by_n.items()}
        out[label + " (best)"] = {n: max(v) for n, v in by_n.items()}
    return out


def plot(data, before, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for label, by_n in sorted(data.items()):
        ns = sorted(by_n)
        best = label.endswith(" (best)")
        ax.plot(ns, [by_n[n][0] for n in ns], marker="." if best else "o", linestyle=":" if best else "-",
                label=label)
    for label, by_n in sorted(before.items()):
        ns = sorted(by_n)
        ax.plot(ns, [by_n[n][0] for n in ns], linestyle="--", marker=".", alpha=0.6, label="%s (before)" % label)
    hi = max([n for by_n in list(data.values()) + list(before.values()) for n in by_n] + [2 ** TARGETS[-1][0]])
    for k, (log2_from, ratio) in enumerate(TARGETS):
        end = 2 ** TARGETS[k + 1][0] if k + 1 < len(TARGETS) else hi
        ax.hlines(ratio, 2 ** log2_from, end, colors="k", linestyles=":",
                  label="targets" if k == 0 else None)
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (doubles)")
    ax.set_ylabel("speed / vendor baseline (same process)")
    ax.set_title(title)
    ax.set_ylim(0, 1.1)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    save_figure(fig, out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--before", nargs="*", default=[], help="earlier reports, drawn dashed")
    ap.add_argument("--algo", default="superacc,superacc-dot", help="algorithms to draw (comma list)")
    ap.add_argument("--params", default="fpe=0", help="keep results with these parameters (k=v,...)")
    ap.add_argument("--range", type=float, help="keep datasets of this requested dynamic range only")
    ap.add_argument("--bench", help="keep the runs of these benches of a merged report (comma list)")
    ap.add_argument("--targets", help="log2 n:ratio,... (the target from each n on) instead of the defaults")
    ap.add_argument("--spread", action="store_true", help="every dataset of a size: its worst and best ratio")
    ap.add_argument("-o", "--out", help="figure (PNG)")
    ap.add_argument("--md", help="Markdown table")
    ap.add_argument("--title", default="Correctly rounded superacc on CUDA vs CUB Sum / cuBLAS ddot")
    a = ap.parse_args()
    check_outputs(a.reports + a.before, [a.out, a.md])
    if a.targets:
        TARGETS[:] = [(int(k), float(v)) for k, v in (t.split(":") for t in a.targets.split(","))]
    algos = set(a.algo.split(",")) if a.algo else None
    params = dict(kv.split("=", 1) for kv in a.params.split(",") if kv) if a.params else None
    benches = set(a.bench.split(",")) if a.bench else None
    data = rows(a.reports, algos, params, a.range, benches, a.spread)
    if a.spread:
        data = worst_best(data)
    if not data:
        raise SystemExit("no results of %s with %s in %s" % (a.algo, a.params, " ".join(a.reports)))
    if a.md:
        write_md(data, a.md)
    if a.out:
        plot(data, rows(a.before, algos, params, a.range, benches) if a.before else {}, a.out, a.title)


if __name__ == "__main__":
    run_main(main)
