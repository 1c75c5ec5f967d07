#!/usr/bin/env python3
"""The exact and accurate sums a Python user would pick, timed and judged beside accsum's own, on the
same .npy input.

For each input, `accsum bench --input=FILE` runs accsum's algorithms and gives the exact sum (MPFR, in its
JSON `reference`); this script then times the peers on the same array (median of --reps calls after one
warm-up call, on the array already in memory) and measures their error against that exact value:

  xsum (PyPI `xsum`, Neal's small and large superaccumulators, arXiv:1505.05571)  correctly rounded
  math.fsum (Shewchuk's exact partials, Python's standard library)                 correctly rounded
  accupy.fsum / accupy.ksum K=2,3 / accupy.kahan_sum (PyPI `accupy`, if installed)  CR / k-fold / none
  numpy.sum (pairwise summation)                                                    none

Errors are in ulps of the correctly rounded exact sum, as accsum reports them: |value - exact| / ulp(RN(exact))
(`ulps`, from the exact value's 40-digit decimal) and |value - RN(exact)| / ulp (`ulps_from_rn`, exact
rational arithmetic: 0 exactly when the value is the correctly rounded sum). Output: JSON and Markdown.

  scripts/peers.py --accsum build/bin/accsum --input x.npy --json peers.json --md peers.md
  scripts/peers.py --accsum build/bin/accsum --n 2^24 --range 1,1e50,1e300 --json p.json --md p.md
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np

from report_io import ScriptError, check_outputs, load_report, run_main, write_text

try:
    import xsum
except ImportError:
    xsum = None
try:
    import accupy
except ImportError:  # accupy needs Eigen headers to build (libeigen3-dev); see README
    accupy = None


def xsum_with(accumulator):
    def run(x):
        acc = accumulator()
        xsum.xsum_add(acc, x)
        return xsum.xsum_round(acc)
    return run


def peers():
    """(name, package, guarantee, function of a float64 array) for every peer installed here."""
    out = []
    if xsum is not None:
        out += [("xsum-large", "xsum", "correctly-rounded", xsum_with(xsum.xsum_large_accumulator)),
                ("xsum-small", "xsum", "correctly-rounded", xsum_with(xsum.xsum_small_accumulator))]
    out.append(("math.fsum", "python", "correctly-rounded", math.fsum))
    if accupy is not None:
        out += [("accupy.fsum", "accupy", "correctly-rounded", accupy.fsum),
                ("accupy.ksum K=2", "accupy", "k-fold", lambda x: accupy.ksum(x, K=2)),
                ("accupy.ksum K=3", "accupy", "k-fold", lambda x: accupy.ksum(x, K=3)),
                ("accupy.kahan_sum", "accupy", "none", accupy.kahan_sum)]
    out.append(("numpy.sum", "numpy", "none", np.sum))
    return out


def missing_notes():
    notes = []
    if xsum is None:
        notes.append("xsum not installed (pip install xsum): its rows are left out")
    if accupy is None:
        notes.append("accupy not installed (pip install accupy; needs libeigen3-dev to build): its rows are left out")
    return notes


def same_bits(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def ulp_of(rn):
    """accsum's unit: 2^(ilogb(rn) - 52), at least 2^-1074."""
    if rn == 0:
        return Fraction(2) ** -1074
    return max(Fraction(2) ** -1074, Fraction(2) ** (math.frexp(rn)[1] - 1 - 52))


def errors(value, reference):
    """(ulps vs exact, ulps vs RN(exact), correctly rounded) as accsum defines them."""
    rn = float.fromhex(reference["rounded_hex"])
    cr = same_bits(value, rn)
    if not (math.isfinite(value) and math.isfinite(rn)) or reference.get("special"):
        err = 0.0 if cr else math.inf
        return err, err, cr
    ulp = ulp_of(rn)
    exact = Fraction(Decimal(reference["exact_decimal"]))
    return (float(abs(Fraction(value) - exact) / ulp), float(abs(Fraction(value) - Fraction(rn)) / ulp), cr)


def time_peer(fn, x, reps):
    fn(x)  # warm-up
    times, value = [], None
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        value = float(fn(x))
        times.append((time.perf_counter_ns() - t0) * 1e-9)
    return value, times


def fail(message):
    raise ScriptError(message)


def run(cmd):
    """Runs an accsum command; its own one-line error is already on stderr when it fails."""
    try:
        subprocess.run(cmd, check=True)
    except subprocess.CalledProcessError as e:
        fail(f"accsum {cmd[1]} failed (exit {e.returncode})")
    except OSError as e:
        fail(f"cannot run {cmd[0]}: {e.strerror}")


def run_accsum(args, npy, tmpdir):
    out = os.path.join(tmpdir, "accsum.json")
    cmd = [args.accsum, "bench", f"--input={npy}", f"--algo={args.algo}", f"--backend={args.backend}",
           f"--reps={args.reps}", "--no-repro-check", "--format=json", "--out=/dev/null", f"--json={out}"]
    run(cmd)
    return load_report(out), cmd


def check_same_dataset(report, x, npy):
    """The report must describe this array: the same n and the same exact sum (math.fsum is
    correctly rounded, as the report's rounded reference is). Anything else is refused."""
    dataset, reference = report["dataset"], report["reference"]
    if dataset.get("family") not in (None, "sum"):
        fail(f"{npy}: the report is of a {dataset.get('family')} dataset, not a sum")
    if int(dataset["n"]) != int(x.size):
        fail(f"{npy}: the report's dataset has n = {dataset['n']}, the input has {x.size} elements (another dataset)")
    try:
        rn = math.fsum(x)
    except (OverflowError, ValueError):
        return  # partial sums beyond the double range: n is all that can be compared here
    want = float.fromhex(reference["rounded_hex"])
    if not same_bits(rn, want):
        fail(f"{npy}: the report's exact sum {reference['rounded_hex']} is not this input's ({rn.hex()}): another dataset")


def check_same_content(args, report, npy, tmpdir):
    """A report given with --accsum-json names its input by content hash (dataset.content_hash):
    accsum hashes this input the same way (one untimed pass of the plain sum) and the two must agree."""
    want = report["dataset"].get("content_hash")
    if not want:
        return  # an older report: n and the exact sum were all that could be compared
    out = os.path.join(tmpdir, "hash.json")
    run([args.accsum, "bench", f"--input={npy}", "--algo=naive", "--backend=cpu", "--reps=1", "--no-repro-check",
         "--format=json", "--out=/dev/null", f"--json={out}"])
    got = load_report(out)["dataset"].get("content_hash")
    if got != want:
        fail(f"{npy}: the report's content hash {want} is not this input's ({got}): another dataset")


def accsum_rows(report, reference, n):
    rows = []
    for r in report["results"]:
        value = float.fromhex(r["value_hex"]) if "value_hex" in r else float(r["value"])
        ulps, from_rn, cr = errors(value, reference)
        params = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()))
        rows.append({"name": f"accsum {r['algo']}" + (f" ({params})" if params else ""), "source": f"accsum {r['backend']}",
                     "guarantee": r["guarantee"], "value": value, "value_hex": value.hex(), "ulps": ulps,
                     "ulps_from_rn": from_rn, "correctly_rounded": cr, "time_s": r["time_s"]["median"],
                     "ns_per_element": r["time_s"]["median"] / max(n, 1) * 1e9, "algo": r["algo"],
                     "backend": r["backend"]})
    return rows


def compare_one(args, npy, tmpdir, report=None):
    cmd = None
    if report is None:
        report, cmd = run_accsum(args, npy, tmpdir)
    reference, dataset = report["reference"], report["dataset"]
    try:
        x = np.load(npy)
    except (OSError, ValueError) as e:
        fail(f"{npy}: cannot read as .npy: {e}")
    if x.ndim == 2 and 1 in x.shape:  # (1, n) and (n, 1) are sums for accsum too
        x = x.reshape(-1)
    if x.ndim != 1:
        fail(f"{npy}: a sum dataset (1-D .npy) is needed, got shape {x.shape}")
    x = np.ascontiguousarray(x, dtype=np.float64)
    check_same_dataset(report, x, npy)
    if cmd is None:
        check_same_content(args, report, npy, tmpdir)
    n = int(x.size)
    rows = accsum_rows(report, reference, n)
    for name, package, guarantee, fn in peers():
        value, times = time_peer(fn, x, args.reps)
        ulps, from_rn, cr = errors(value, reference)
        med = statistics.median(times)
        rows.append({"name": name, "source": package, "guarantee": guarantee, "value": value,
                     "value_hex": value.hex(), "ulps": ulps, "ulps_from_rn": from_rn, "correctly_rounded": cr,
                     "time_s": med, "ns_per_element": med / max(n, 1) * 1e9, "times_s": times})
    ref_row = next((r for r in rows if r.get("algo") == "superacc"), None)
    for r in rows:
        r["speed_vs_accsum_superacc"] = (ref_row["time_s"] / r["time_s"]) if ref_row and r["time_s"] > 0 else None
    return {"input": npy, "generated_by": GENERATED.get(npy), "n": n, "dataset": dataset, "reference": reference, "accsum_command": cmd or report.get("command"),
            "rows": rows}


def fmt_num(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.{digits}g}"


def markdown(doc):
    lines = []
    for run in doc["runs"]:
        d, ref = run["dataset"], run["reference"]
        rng = d.get("dynamic_range_log10")
        lines.append(f"**{os.path.basename(run['input'])}: n = {run['n']}"
                     + (f", dynamic range 1e{rng:.1f}" if rng is not None else "") + f", cond {fmt_num(d.get('cond'))}, exact sum (RN) "
                     f"{ref['rounded_hex']}**")
        lines.append("")
        lines.append("| implementation | from | guarantee | error (ulps) | correctly rounded | median time | "
                     "ns/element | speed vs accsum superacc |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in run["rows"]:
            lines.append(f"| {r['name']} | {r['source']} | {r['guarantee']} | {fmt_num(r['ulps'])} | "
                         f"{'yes' if r['correctly_rounded'] else 'no'} | {r['time_s']:.4g} s | "
                         f"{r['ns_per_element']:.3g} | {fmt_num(r['speed_vs_accsum_superacc'])}x |")
        lines.append("")
    for note in doc["notes"]:
        lines.append(f"Note: {note}")
    return "\n".join(lines) + "\n"


def generate(args, tmpdir):
    files = []
    for rng in args.range.split(","):
        path = os.path.join(tmpdir, f"loguniform_{rng}.npy")
        cmd = [args.accsum, "gen", "--dist=loguniform", f"--range={rng}", f"--n={args.n}", f"--seed={args.seed}"]
        run(cmd + ["-o", path])
        files.append(path)
        GENERATED[path] = cmd
    return files


GENERATED = {}  # generated input -> the accsum gen command that made it


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accsum", default="build/bin/accsum", help="the accsum binary")
    ap.add_argument("--input", nargs="*", default=[], help=".npy float64 files of shape (n,)")
    ap.add_argument("--n", help="generate log-uniform data of this size instead (accsum gen syntax, e.g. 2^24)")
    ap.add_argument("--range", default="1,1e50,1e300", help="dynamic ranges of the generated data")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--algo", default="naive,pairwise,neumaier,sumk,superacc", help="accsum's algorithms")
    ap.add_argument("--backend", default="cpu", help="accsum's backend(s)")
    ap.add_argument("--accsum-json", help="an accsum-report/1 of the one --input to use instead of running accsum")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions (median)")
    ap.add_argument("--json", help="write the comparison here")
    ap.add_argument("--md", help="write the Markdown tables here (default: stdout)")
    args = ap.parse_args()
    if bool(args.input) == bool(args.n):
        ap.error("give --input FILE... or --n N")
    if args.reps < 1:
        ap.error("--reps must be >= 1")
    if args.accsum_json and len(args.input) != 1:
        ap.error("--accsum-json needs exactly one --input")
    check_outputs(args.input + ([args.accsum_json] if args.accsum_json else []), [args.json, args.md])
    for note in missing_notes():
        print(f"peers.py: {note}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmpdir:
        files = args.input or generate(args, tmpdir)
        report = None
        if args.accsum_json:
            report = load_report(args.accsum_json)
        runs = [compare_one(args, f, tmpdir, report) for f in files]
    doc = {"schema": "accsum-peers/1", "command": sys.argv, "python": sys.version.split()[0],
           "versions": {"numpy": np.__version__, "xsum": package_version("xsum"), "accupy": package_version("accupy")},
           "notes": missing_notes(), "runs": runs}
    if args.json:
        write_text(args.json, json.dumps(doc, indent=1, default=str))
    md = markdown(doc)
    if args.md:
        write_text(args.md, md)
    else:
        sys.stdout.write(md)


def package_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    run_main(main)
