#!/usr/bin/env python3
"""Throughput against n of dpsumk / dpdotk for each K and variant, beside the baseline, from
accsum-report/1 JSON files (`accsum bench ... --n=2^10:2^28 --json=...`).

    scripts/plot_dpsumk.py results/dpsumk_sum_sweep.json results/dpsumk_dot_sweep.json \
        -o results/dpsumk_throughput.png

One panel per family (sum, dot): elements per second (n over the median device time) against n,
the baseline in black, `fused` solid and `tree` dashed, one colour per K. A second row shows the
ratio to the baseline measured in the same process.
"""
import json
import sys
from collections import defaultdict

from report_io import ScriptError, load_report, reports_to_figure_args, plt, run_main, save_figure, write_text  # noqa: E402,F401


def runs_of(doc):
    """A report holds `runs` (one per dataset) when --n was a list, else one run at top level."""
    return doc.get("runs") or [doc]


def series_key(row):
    p = row.get("params", {})
    if row.get("is_baseline"):
        return ("baseline", row["algo"], 0, "")
    return ("algo", p.get("variant", ""), int(p.get("K", 0)), p.get("twoprod", ""))


def collect(paths):
    """{family: {series_key: [(n, elements_per_s, ratio)]}}, plus the machine strings seen."""
    data = defaultdict(lambda: defaultdict(list))
    machines = set()
    for path in paths:
        doc = load_report(path)
        for b in doc.get("machine", {}).get("backends", {}).values():
            machines.add(b.split(",")[0])
        for run in runs_of(doc):
            n = run["dataset"]["n"]
            for row in run["results"]:
                if row.get("error") or not row.get("time_s", {}).get("median"):
                    continue
                if not row.get("is_baseline") and row["algo"] not in ("dpsumk", "dpdotk"):
                    continue
                eps = n / row["time_s"]["median"]
                data[row["family"]][series_key(row)].append((n, eps, row.get("ratio_to_baseline")))
    return data, machines


def main():
    args = reports_to_figure_args(__doc__, "results/dpsumk_throughput.png")
    data, machines = collect(args.json)
    if not data:
        sys.exit("no dpsumk/dpdotk rows with timings in " + ", ".join(args.json))
    families = [f for f in ("sum", "dot") if f in data]
    fig, axes = plt.subplots(2, len(families), figsize=(6.5 * len(families), 8), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1.4]})
    colours = {2: "tab:blue", 3: "tab:orange", 4: "tab:green", 6: "tab:red", 8: "tab:purple"}
    for col, fam in enumerate(families):
        top, bottom = axes[0][col], axes[1][col]
        for key in sorted(data[fam], key=lambda k: (k[0] != "baseline", k[1], k[2], k[3])):
            pts = sorted(data[fam][key])
            ns = [p[0] for p in pts]
            if key[0] == "baseline":
                top.plot(ns, [p[1] / 1e9 for p in pts], "k-", lw=2.2, label=key[1] + " (baseline)")
                continue
            _, variant, K, twoprod = key
            style = "-" if variant == "fused" else "--"
            label = f"{variant} K={K}" + (f" {twoprod}" if twoprod and twoprod != "fma" else "")
            c = colours.get(K, None)
            top.plot(ns, [p[1] / 1e9 for p in pts], style, color=c, marker="o", ms=3, label=label)
            ratios = [(p[0], p[2]) for p in pts if p[2] is not None]
            bottom.plot([r[0] for r in ratios], [r[1] for r in ratios], style, color=c, marker="o", ms=3)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.grid(True, which="both", alpha=0.3)
        top.set_yscale("log")
        top.set_ylabel("G elements / s (device time)")
        top.set_title(f"{'dpsumk' if fam == 'sum' else 'dpdotk'} on {', '.join(sorted(machines)) or 'GPU'}")
        top.legend(fontsize=8, ncol=2)
        bottom.axhline(0.9, color="grey", lw=0.8, ls=":")
        bottom.set_ylim(0, 1.15)
        bottom.set_xlabel("n (elements)")
        bottom.set_ylabel("ratio to baseline")
    fig.tight_layout()
    save_figure(fig, args.out, dpi=120)
    print("wrote", args.out)


if __name__ == "__main__":
    run_main(main)
