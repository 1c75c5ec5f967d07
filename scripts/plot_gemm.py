#!/usr/bin/env python3
"""The gemm family's accuracy/speed front: max |error| against the exact product (log scale) versus
TFLOP/s, one point per result of `accsum bench` or `accsum table --reps` JSON reports (accsum-report/1),
labelled algo [tile=..] (backend), one colour per dataset (size and generator).

Usage: scripts/plot_gemm.py REPORT.json [REPORT.json ...] [--dist uniform] -o results/gemm_front.png
"""
import argparse
import json

from report_io import ScriptError, check_outputs, load_report, plt, run_main, save_figure, write_text  # noqa: E402,F401


def runs(doc):
    """(dataset, results) of every dataset of a report (multi-dataset reports list them in "runs")."""
    if doc.get("runs"):
        for r in doc["runs"]:
            yield r.get("dataset", {}), r.get("results", [])
    else:
        yield doc.get("dataset", {}), doc.get("results", [])


def rows(paths, dist):
    for path in paths:
        doc = load_report(path)
        for ds, results in runs(doc):
            if dist and ds.get("generator") != dist:
                continue
            shape = ds.get("shape")
            size = f"{shape['rows']}x{shape['cols']}x{shape['inner']}" if isinstance(shape, dict) else ds.get("n")
            for r in results:
                if r.get("family") != "gemm" or r.get("abs_err") is None or "throughput" not in r:
                    continue
                label = r["algo"]
                params = r.get("params", {})
                for key in ("tile", "bits", "fma"):
                    if key in params and not (key == "fma" and str(params[key]) == "1"):
                        label += f" {key}={params[key]}"
                yield f"{size} {ds.get('generator', '')}", f"{label} ({r['backend']})", \
                    r["throughput"]["FLOP_per_s"] / 1e12, r["abs_err"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("-o", "--out", default="results/gemm_front.png")
    ap.add_argument("--dist", default="uniform", help="only datasets of this generator ('' for all)")
    a = ap.parse_args()
    check_outputs(a.reports, [a.out])
    points = list(rows(a.reports, a.dist))
    if not points:
        raise SystemExit("plot_gemm.py: no gemm results with throughput in " + ", ".join(a.reports))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for ds in dict.fromkeys(p[0] for p in points):  # one colour per dataset, in order
        mine = [p for p in points if p[0] == ds]
        ax.scatter([p[2] for p in mine], [p[3] for p in mine], s=30, label=ds)
        for _, label, tflops, err in mine:
            ax.annotate(label, (tflops, err), fontsize=6, xytext=(4, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("TFLOP/s (median)")
    ax.set_ylabel("max |error| against the exact product")
    ax.set_title("gemm: accuracy against speed (lower right is better)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, title="dataset", title_fontsize=7)
    fig.tight_layout()
    save_figure(fig, a.out, dpi=150)
    print(a.out)


if __name__ == "__main__":
    run_main(main)
