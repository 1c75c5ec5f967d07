#!/usr/bin/env python3
"""Time against n of the moddot algorithms, one panel per prime, in the shape of Jean, Graillat,
SYNASC 2010, Fig. 7 (compute time solid, transfer to the device dashed), from accsum-report/1 JSON
files: `accsum table --suite=moddot --backend=... --json=...` (the GMP loop timed beside every
algorithm), or `accsum bench --algo=moddot-gmp,moddot-abgd,... --n=2^2:2^28 --json=...`.

    scripts/plot_moddot.py results/moddot_table_cpu_time.json -o results/moddot_cpu_time.png

A second row shows the speed-up over the paper's serial GMP loop (moddot-gmp) on the same data,
or, where the file has no GMP row for that n, over the family's baseline of the same backend.
"""
import json
import sys
from collections import defaultdict

from report_io import ScriptError, load_report, reports_to_figure_args, plt, run_main, save_figure, write_text  # noqa: E402,F401


def runs_of(doc):
    return doc.get("runs") or [doc]


def collect(paths):
    """{p: {label: [(n, median_s, transfer_s, speed-up)]}}"""
    data = defaultdict(lambda: defaultdict(list))
    gmp = {}  # (p, n) -> the GMP loop's median
    for path in paths:
        doc = load_report(path)
        for run in runs_of(doc):
            ds = run["dataset"]
            if ds.get("family") != "moddot":
                continue
            p = str(ds.get("data_params", {}).get("p", "?"))
            for row in run["results"]:
                if row["algo"] == "moddot-gmp" and row.get("time_s", {}).get("median"):
                    gmp[(p, ds["n"])] = row["time_s"]["median"]
            for row in run["results"]:
                if row.get("error") or not row.get("time_s", {}).get("median"):
                    continue
                prm = row.get("params", {})
                label = f'{row["algo"]} {row["backend"]}' + (f' {prm["rounding"]}' if "rounding" in prm else "")
                t = row["time_s"]["median"]
                ref = gmp.get((p, ds["n"]))
                data[p][label].append((ds["n"], t, row.get("transfer_s", 0.0),
                                       ref / t if ref else row.get("ratio_to_baseline")))
    return data


def main():
    args = reports_to_figure_args(__doc__, "results/moddot_time.png")
    data = collect(args.json)
    if not data:
        sys.exit("no moddot rows with timings in " + ", ".join(args.json))
    primes = sorted(data, key=lambda s: int(s) if s.isdigit() else 0)
    fig, axes = plt.subplots(2, len(primes), figsize=(6 * len(primes), 8), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1.4]})
    for col, p in enumerate(primes):
        top, bottom = axes[0][col], axes[1][col]
        for i, label in enumerate(sorted(data[p])):
            pts = sorted(data[p][label])
            ns = [q[0] for q in pts]
            c = f"C{i % 10}"
            top.plot(ns, [q[1] * 1e3 for q in pts], "-", color=c, marker="o", ms=3, label=label)
            if any(q[2] > 0 for q in pts):
                top.plot(ns, [q[2] * 1e3 for q in pts], "--", color=c, lw=1, label=label + " transfer")
            rs = [(q[0], q[3]) for q in pts if q[3]]
            if rs:
                bottom.plot([r[0] for r in rs], [r[1] for r in rs], "-", color=c, marker="o", ms=3)
        top.set(xscale="log", yscale="log", title=f"p = {p}", ylabel="time (ms)")
        top.grid(True, which="both", alpha=0.3)
        top.legend(fontsize=7)
        bottom.set(xscale="log", yscale="log", xlabel="n", ylabel="speed-up over GMP loop")
        bottom.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, args.out, dpi=120)
    print("wrote", args.out)


if __name__ == "__main__":
    run_main(main)
