#!/usr/bin/env python3
"""Per-kernel time totals from ncu raw CSV logs (gpu__time_duration.sum), one markdown table per log:
kernel name (template arguments cut), launches, total and share of the log's time."""
import csv
import re
import sys
from collections import defaultdict


def short_name(demangled):
    """The kernel's name without return type, namespaces, template arguments and parameters."""
    name = re.sub(r"\((anonymous namespace)\)::|<unnamed>::", "", demangled).removeprefix("void ")
    return re.split(r"[<(]", name)[0].rsplit("::", 1)[-1]


def kernel_totals(path):
    rows = []
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3, "nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}[row["Metric Unit"]]
        name = short_name(row["Kernel Name"])
        rows.append((name, float(row["Metric Value"].replace(",", "")) * scale))
    totals = defaultdict(lambda: [0, 0.0])
    for name, ms in rows:
        totals[name][0] += 1
        totals[name][1] += ms
    return totals


def main(paths):
    for path in paths:
        totals = kernel_totals(path)
        whole = sum(ms for _, ms in totals.values()) or 1.0
        print(f"## {path.rsplit('/', 1)[-1]}\n\n| kernel | launches | ms | share |\n| --- | ---: | ---: | ---: |")
        for name, (count, ms) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
            print(f"| `{name}` | {count} | {ms:.3f} | {100 * ms / whole:.1f} % |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
