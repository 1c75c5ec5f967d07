#!/usr/bin/env python3
"""Speed of `import accsum` beside Python's accurate sums and the plain ones, in one process.

Host (n = 10^7 float64, standard normal, and the same over a range of 1e200): accsum.sum (all cores) against
math.fsum (on a list, its fastest input), xsum, accupy.fsum and numpy.sum; the time of one call on
1000 elements. GPU (when torch sees a CUDA device and accsum has the CUDA backend): accsum.sum of
2^28 float64 against torch.sum, accsum.sum(axis=1) of 2^14 x 2^14 against torch.sum(dim=1), and
accsum.matmul(accuracy="cr") of 8192^2 float32 against torch.matmul with TF32 off. Every time is
the median of repeated runs (other processes may share the machine: the medians and the spread are
reported). Writes results/python_speed_<machine>.json.

Usage: python3 scripts/python_speed.py --machine NAME [--out PATH] [--reps R] [--n N] [--skip-gpu]
"""

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import accsum


def timed(fn, reps, warmup=1):
    """Median, min and max seconds of `reps` calls after `warmup` calls, and the last result."""
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "reps": reps}, out


def per_call(fn, calls, repeats):
    """Median over `repeats` batches of the mean seconds of one call in a batch of `calls`."""
    fn()
    batches = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        batches.append((time.perf_counter() - t0) / calls)
    return {"median_s": statistics.median(batches), "min_s": min(batches), "max_s": max(batches), "calls": calls,
            "batches": repeats}


# Peers that take seconds on 10^7 elements: fewer repetitions.
SLOW_PEERS = ("math.fsum", "accupy.fsum")


def host_peers(x):
    """(name, callable, correctly rounded?) of the Python sums present."""
    as_list = x.tolist()
    peers = [("math.fsum", lambda: math.fsum(as_list), True), ("numpy.sum", lambda: np.sum(x), False)]
    try:
        import xsum

        def xsum_large():
            acc = xsum.xsum_large_accumulator()
            xsum.xsum_add(acc, x)
            return xsum.xsum_round(acc)

        peers.append(("xsum (large accumulator)", xsum_large, True))
    except ImportError:
        pass
    try:
        import accupy

        peers.append(("accupy.fsum", lambda: accupy.fsum(x), True))
    except ImportError:
        pass
    return peers


# The host data: standard normal (a sum's usual input), and the same scaled by 10^U(-100, 100) (a wide
# range: more of it reaches the superaccumulator).
DATA = {"normal": "standard normal, float64",
        "wide": "standard normal * 10^uniform(-100, 100), float64"}


def host_data(kind, n):
    rng = np.random.default_rng(2026)
    x = rng.standard_normal(n)
    return x * np.power(10.0, rng.uniform(-100, 100, n)) if kind == "wide" else x


def host_section(n, reps, kind):
    x = host_data(kind, n)
    rows = []
    t, want = timed(lambda: accsum.sum(x), reps)
    rows.append({"name": "accsum.sum", "correctly_rounded": True, **t, "value_hex": float(want).hex()})
    for name, fn, cr in host_peers(x):
        t, got = timed(fn, reps if name not in SLOW_PEERS else max(3, reps // 3))
        rows.append({"name": name, "correctly_rounded": cr, **t, "value_hex": float(got).hex(),
                     "same_value_as_accsum": float(got) == float(want)})
    base = rows[0]["median_s"]
    for r in rows[1:]:
        r["accsum_speedup"] = r["median_s"] / base
    small, one = x[:1000].copy(), x[:1].copy()
    overhead = {"accsum.sum": per_call(lambda: accsum.sum(small), 20000, 9),
                "accsum.sum, 1 element (the call alone)": per_call(lambda: accsum.sum(one), 20000, 9),
                "numpy.sum": per_call(lambda: np.sum(small), 20000, 9),
                "math.fsum (list)": per_call(lambda: math.fsum(small.tolist()), 2000, 9)}
    return {"n": n, "data": DATA[kind], "threads": "all (accsum threads=0)",
            "rows": rows, "per_call_1000": overhead}


def summary(host):
    """The targets of the Python package on this host, each met or not."""
    by = {r["name"]: r for r in host["rows"]}
    out = {}
    if "math.fsum" in by:
        out["accsum.sum vs math.fsum (target >= 30x)"] = by["math.fsum"]["accsum_speedup"]
    for peer in ("xsum (large accumulator)", "accupy.fsum"):
        if peer in by:
            out[f"accsum.sum vs {peer} (target > 1x)"] = by[peer]["accsum_speedup"]
    out["accsum.sum vs numpy.sum (target >= 0.8x)"] = by["numpy.sum"]["accsum_speedup"]
    out["accsum.sum per call at 1000 elements, us (target <= 5)"] = host["per_call_1000"]["accsum.sum"]["median_s"] * 1e6
    return out


def gpu_section(reps):
    import torch

    if not torch.cuda.is_available() or not accsum.has_cuda():
        return {"skipped": "no CUDA device visible to torch or no CUDA backend in accsum"}
    dev = torch.device("cuda")
    out = {"device": torch.cuda.get_device_name(dev), "torch": torch.__version__}

    def cuda_timed(fn, reps):
        fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "reps": reps}

    def host_call(fn, reps):
        """Seconds the host spends in one call (the launches queued, not waited for): the part of the
        device time that is the host's, when the stream is idle at the call."""
        times = []
        for _ in range(reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        torch.cuda.synchronize()
        return statistics.median(times)

    def rows_kernel_by_block(m, reps):
        """The segmented kernel alone (no Python around it) for each block size, and whether every size
        gave accsum.sum(m, axis=1)'s bits."""
        want = accsum.sum(m, axis=1)
        stream = torch.cuda.current_stream().cuda_stream
        by = {}
        for block in (64, 128, 256, 512):
            got = torch.empty(m.shape[0], dtype=m.dtype, device=dev)
            launch = lambda: accsum._accsum.reduce_rows_cuda(m.data_ptr(), 0, m.shape[0], m.shape[1], m.device.index,
                                                              got.data_ptr(), stream, block)
            by[block] = {"median_s": cuda_timed(launch, reps)["median_s"],
                         "same_bits": bool(torch.equal(got.view(torch.int64), want.view(torch.int64)))}
        return by

    torch.manual_seed(1)
    x = torch.randn(1 << 28, dtype=torch.float64, device=dev)
    a = cuda_timed(lambda: accsum.sum(x), reps)
    b = cuda_timed(lambda: torch.sum(x), reps)
    out["sum_2e28_float64"] = {"accsum.sum": a, "torch.sum": b, "ratio_torch_over_accsum": b["median_s"] / a["median_s"],
                               "target": 0.95, "host_call_s": {"accsum.sum": host_call(lambda: accsum.sum(x), reps),
                                                               "torch.sum": host_call(lambda: torch.sum(x), reps)}}
    del x
    m = torch.randn(1 << 14, 1 << 14, dtype=torch.float64, device=dev)
    try:
        a = cuda_timed(lambda: accsum.sum(m, axis=1), reps)
        b = cuda_timed(lambda: torch.sum(m, dim=1), reps)
        out["sum_axis1_2e14_square_float64"] = {"accsum.sum": a, "torch.sum": b,
                                                "ratio_torch_over_accsum": b["median_s"] / a["median_s"], "target": 0.80,
                                                "host_call_s": host_call(lambda: accsum.sum(m, axis=1), reps),
                                                "kernel_by_block": rows_kernel_by_block(m, reps)}
    except NotImplementedError as e:
        out["sum_axis1_2e14_square_float64"] = {"not_run": str(e)}
    del m
    torch.backends.cuda.matmul.allow_tf32 = False
    p = torch.randn(8192, 8192, dtype=torch.float32, device=dev)
    q = torch.randn(8192, 8192, dtype=torch.float32, device=dev)
    try:
        reps_mm = max(3, reps // 3)
        a = cuda_timed(lambda: accsum.matmul(p, q, accuracy="cr"), reps_mm)
        b = cuda_timed(lambda: torch.matmul(p, q), reps_mm)
        out["matmul_cr_8192_float32"] = {
            "accsum.matmul": a, "torch.matmul (TF32 off)": b,
            # As the other rows: how many times torch's time accsum's is the speed ratio torch / accsum.
            "ratio_torch_over_accsum": b["median_s"] / a["median_s"], "target": 2.5,
            "ratio_accsum_time_over_torch_time": a["median_s"] / b["median_s"],
            "host_call_s": host_call(lambda: accsum.matmul(p, q, accuracy="cr"), 3),
            "check": rounding_check(accsum.matmul(p, q, accuracy="cr"), p, q)}
    except NotImplementedError as e:
        out["matmul_cr_8192_float32"] = {"not_run": str(e)}
    del p, q
    accsum.release_cuda_memory()
    return out


def rounding_check(c, a, b):
    """Every entry of the float32 product c against DGEMM on the float32 operands (exact products, a sum
    within gamma_K sum |a_ik b_kj| of the exact one, K u < 2^-39): where the interval's ends round to the
    same float32, that float is the correctly rounded entry (rounding is monotone); the entries whose
    interval holds a float32 rounding boundary are counted as undecided, not judged."""
    import torch

    k = a.shape[1]
    d = torch.matmul(a.double(), b.double())
    slack = torch.matmul(a.double().abs(), b.double().abs()).mul_(k * 2.0**-53 * 1.01).add_(2.0**-1074 * k)
    lo, hi = (d - slack).float(), (d + slack).float()
    decided = lo == hi
    wrong = decided & (c != lo)
    return {"entries": c.numel(), "decided": int(decided.sum()), "undecided": int((~decided).sum()),
            "decided_not_correctly_rounded": int(wrong.sum()),
            "method": "DGEMM of the float32 operands with the bound gamma_K sum|a||b|; decided where both ends "
                      "of the interval round to one float32"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", required=True, help="name in the output file, e.g. cpu2 or h100")
    ap.add_argument("--out", help="default: results/python_speed_<machine>.json")
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--skip-gpu", action="store_true")
    ap.add_argument("--skip-host", action="store_true")
    a = ap.parse_args()
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.abspath(__file__)))
    report = {"schema": "accsum-python-speed/1", "accsum": accsum.__version__, "python": sys.version.split()[0],
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              # ACCSUM_GIT names the revision where the tree travelled without its git history (the GPU machine).
              "tool": {"git": os.environ.get("ACCSUM_GIT") or (git.stdout.strip() if git.returncode == 0 else "–")},
              "numpy": np.__version__, "machine": a.machine, "cpus": os.cpu_count(), "platform": platform.platform(),
              "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
              "load_average_at_start": os.getloadavg()}
    if not a.skip_host:
        report["host"] = {}
        for kind in DATA:
            report["host"][kind] = section = host_section(a.n, a.reps, kind)
            section["summary"] = summary(section)
    if not a.skip_gpu:
        try:
            report["gpu"] = gpu_section(a.reps)
        except ImportError:
            report["gpu"] = {"skipped": "torch not installed"}
    report["load_average_at_end"] = os.getloadavg()
    path = a.out or os.path.join(os.path.dirname(__file__), "..", "results", f"python_speed_{a.machine}.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
