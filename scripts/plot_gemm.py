#!/usr/bin/env python3
"""The gemm family's accuracy/speed front: max |error| against the exact product (log scale) versus
TFLOP/s, one point per row of `accsum bench` JSON reports (accsum-report/1), labelled algo[/tile].

Usage: scripts/plot_gemm.py REPORT.json [REPORT.json ...] -o results/gemm_front.png
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(paths):
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for r in doc.get("results", []):
            if r.get("family") != "gemm" or "abs_err" not in r:
                continue
            label = r["algo"]
            params = r.get("params", {})
            for key in ("tile", "bits", "fma"):
                if key in params and not (key == "fma" and str(params[key]) == "1"):
                    label += f" {key}={params[key]}"
            yield label, r["backend"], r["throughput"]["FLOP_per_s"] / 1e12, r["abs_err"], doc.get("dataset", {})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("-o", "--out", default="results/gemm_front.png")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 5))
    for label, backend, tflops, err, _ in rows(a.reports):
        ax.scatter(tflops, err, s=30)
        ax.annotate(f"{label} ({backend})", (tflops, err), fontsize=7, xytext=(4, 2), textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xlabel("TFLOP/s (median)")
    ax.set_ylabel("max |error| against the exact product")
    ax.set_title("gemm: accuracy against speed")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=150)
    print(a.out)


if __name__ == "__main__":
    main()
