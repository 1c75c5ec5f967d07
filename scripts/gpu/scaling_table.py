#!/usr/bin/env python3
"""Markdown table of scripts/gpu/scaling.sh's reports: per run, time, throughput, the MPI combine's
share, the ratio to CUB / cuBLAS on one GPU at the per-rank size, and whether the bits equal the
correctly rounded value (the same bits at every GPU count for the strong-scaling runs).
Usage: scaling_table.py OUT_DIR GPUS"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_io import load_report, run_main  # noqa: E402


def rows(path):
    doc = load_report(path)
    for run in doc.get("runs", []):
        for r in run.get("results", []):
            yield run.get("dataset", doc.get("dataset", {})), r


def main():
    out, gpus = sys.argv[1], int(sys.argv[2])
    one = {}  # per-rank yardstick: algo -> median seconds at 2^30 on one GPU
    path = os.path.join(out, "scaling_one_gpu.json")
    if os.path.exists(path):
        for _, r in rows(path):
            one[r["algo"]] = r["time_s"]["median"]
    vendor = {"superacc": "cub-sum", "superacc-dot": "cublas-dot"}
    print(f"GPUs on this machine: {gpus}" + (" (2 ranks share GPU 0: not a scaling figure)" if gpus == 1 else ""))
    print()
    print("| run | ranks | algo | n | median ms | G elem/s | MPI combine share | x vendor on 1 GPU per rank | correctly rounded | value |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    strong_bits = {}
    for path in sorted(glob.glob(os.path.join(out, "scaling_*_np*.json"))):
        m = re.search(r"scaling_(\w+?)_np(\d+)\.json$", path)
        kind, np_ = m.group(1), int(m.group(2))
        for ds, r in rows(path):
            if r.get("backend") != "mpi":
                continue
            n, t = ds.get("n", 0), r["time_s"]["median"]
            base = one.get(vendor.get(r["algo"], ""))
            # weak: each rank's GPU holds 2^30, as the one-GPU yardstick; the vendor would take `base`.
            ratio = f"{base / t:.3f}" if base and kind == "weak" else "-"
            share = r.get("mpi_combine_share")
            if kind.startswith("strong"):
                strong_bits.setdefault(r["algo"], set()).add(r["value_hex"])
            print(f"| {kind} | {np_} | {r['algo']} | 2^{n.bit_length() - 1} | {t * 1e3:.3f} | {n / t / 1e9:.1f} | "
                  f"{share:.4f} | {ratio} | {r['correctly_rounded']} | {r['value_hex']} |" if share is not None else
                  f"| {kind} | {np_} | {r['algo']} | {n} | {t * 1e3:.3f} | {n / t / 1e9:.1f} | - | {ratio} | "
                  f"{r['correctly_rounded']} | {r['value_hex']} |")
    print()
    for algo, bits in sorted(strong_bits.items()):
        print(f"- strong scaling, {algo}: {'identical bits at every rank count' if len(bits) == 1 else 'BITS DIFFER: ' + ', '.join(sorted(bits))}")
    for algo, t in sorted(one.items()):
        print(f"- one GPU, n = 2^30, {algo}: {t * 1e3:.3f} ms")


if __name__ == "__main__":
    run_main(main)
