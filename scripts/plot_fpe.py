#!/usr/bin/env python3
"""Tables I-IV of Collange, Joldes, Muller, Popescu (ASAP 2016) as a figure: Mop/s of expansion
addition and multiplication against R, best case and memory-constrained (256 B of shared memory
per term), one line per algorithm, from the JSON of `accsum table --suite=fpe` (the timed rows:
more than one timed run per cell).

Usage: scripts/plot_fpe.py REPORT.json -o results/fpe_tables.png
"""
import argparse
import json
from collections import defaultdict

from report_io import ScriptError, check_outputs, load_report, plt, run_main, save_figure, write_text  # noqa: E402,F401

LABELS = {
    "fpe-add-safe": "Safe (Alg. 1)",
    "fpe-add-fast": "Fast",
    "fpe-seq-add": "Sequential",
    "fpe-qd-add": "QD",
    "fpe-mul": "Algorithm 2",
    "fpe-seq-mul": "Sequential",
    "fpe-qd-mul": "QD",
}
MUL = {"fpe-mul", "fpe-seq-mul", "fpe-qd-mul"}


def series(path):
    """(product, memory) -> label -> [(R, Mop/s)], timed rows only; QD only where it has a type."""
    doc = load_report(path)
    out = defaultdict(lambda: defaultdict(list))
    backend = ""
    for run in doc.get("runs", []):
        for r in run.get("results", []):
            if r.get("family") != "fpe" or r.get("time_s", {}).get("reps", 0) <= 1 or r["algo"] not in LABELS:
                continue
            R = int(r["R"])
            if r["algo"].startswith("fpe-qd-") and R > 4:
                continue
            memory = str(r.get("params", {}).get("shared", "0")) == "1"
            mops = r["throughput"]["operations_per_s"] / 1e6
            out[(r["algo"] in MUL, memory)][LABELS[r["algo"]]].append((R, mops))
            backend = r["backend"]
    return out, backend


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("-o", "--out", default="results/fpe_tables.png")
    a = ap.parse_args()
    check_outputs([a.report], [a.out])
    data, backend = series(a.report)
    fig, axes = plt.subplots(2, 2, figsize=(10, 8), sharex=True)
    titles = {(False, False): "Table I: addition, best case", (False, True): "Table II: addition, 256 B shared/term",
              (True, False): "Table III: multiplication, best case",
              (True, True): "Table IV: multiplication, 256 B shared/term"}
    for (product, memory), ax in zip(titles, axes.flat):
        for label, pts in sorted(data.get((product, memory), {}).items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_title(titles[(product, memory)], fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks([2, 4, 8, 16, 32], ["2", "4", "8", "16", "32"])
        ax.set_xlabel("R (terms)")
        ax.set_ylabel("Mop/s")
        ax.grid(True, which="both", alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, f"no such mode on {backend}", transform=ax.transAxes, ha="center", va="center")
    fig.suptitle(f"Floating-point expansions on {backend}: throughput against R")
    fig.tight_layout()
    save_figure(fig, a.out, dpi=150)
    print(a.out)


if __name__ == "__main__":
    run_main(main)
