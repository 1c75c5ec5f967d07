#!/usr/bin/env python3
"""Regenerate the measured parts of README.md and docs/, docs/cli.md and results/README.md.

  scripts/gen_docs.py --accsum build/bin/accsum          # rewrite every generated part
  scripts/gen_docs.py --accsum build/bin/accsum --check  # exit 1 naming each stale file

Tables live between `<!-- generated:NAME -->` and `<!-- /generated -->` in README.md and docs/*.md;
each is built from the committed JSON reports under results/ by the function BLOCKS[NAME] and names
the command, machine, date and git revision behind it. docs/cli.md is the output of `accsum --help`
and `accsum <sub> --help` for every subcommand. results/README.md indexes every file under results/
from the reports themselves (tool, machine, command) and from results/meta.jsonl (what each file
measures, its date, and for files that are not reports the report or command they came from).

The CLI help depends on the build (the backends and optional libraries compiled in): docs/cli.md
records that configuration, and --check compares the help only for a binary built the same way
(otherwise it checks the rest and exits 77, which CTest shows as skipped).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")
META = os.path.join(RESULTS, "meta.jsonl")
SKIPPED = 77  # CTest SKIP_RETURN_CODE
OPEN = re.compile(r"<!-- generated:([a-z0-9-]+)((?: [^ >]+)*) -->")
CLOSE = "<!-- /generated -->"


# ---------------------------------------------------------------- reports and their provenance

_cache = {}


def meta():
    if "meta" not in _cache:
        with open(META, encoding="utf-8") as f:
            entries = [json.loads(line) for line in f if line.strip()]
        _cache["meta"] = {e.pop("file"): e for e in entries}
    return _cache["meta"]


def report(name):
    """The JSON document results/NAME (a report, a bundle of reports, or a peers document)."""
    if name not in _cache:
        with open(os.path.join(RESULTS, name), encoding="utf-8") as f:
            _cache[name] = json.load(f)
    return _cache[name]


def subreports(doc):
    return doc["reports"] if "reports" in doc and "schema" not in doc else [doc]


def rows(name):
    """(dataset, result) for every result row of results/NAME; a merged report's run names its bench in
    the dataset's copy ("bench")."""
    for doc in subreports(report(name)):
        if "runs" in doc:
            for run in doc["runs"]:
                ds = dict(run.get("dataset", {}), bench=run["bench"]) if "bench" in run else run.get("dataset", {})
                for r in run.get("results", []):
                    yield ds, r
        else:
            for r in doc.get("results", []):
                yield doc.get("dataset", {}), r


OUTPUT_ARGS = ("--json=", "--out=", "--format=", "--md=")


def command_of(argv):
    """argv as a reader would type it: the binary as `accsum`, output destinations left out."""
    out, skip = [], False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if i == 0:
            out.append("accsum" if os.path.basename(a) == "accsum" else a)
        elif a in ("-o", "--out", "--json", "--md"):
            skip = True
        elif not a.startswith(OUTPUT_ARGS):
            out.append(a)
    return " ".join(out)


def short_cpu(cpu):
    return re.sub(r"\((R|TM)\)|Processor|CPU|\s+\d+-Core", "", cpu or "?").replace("  ", " ").strip()


def gpus_of(doc):
    """'NVIDIA H200' or '2x NVIDIA H200' from the machine section, else from the rows' placement."""
    b = doc.get("machine", {}).get("backends", {})
    if "cuda" in b:
        return b["cuda"].split(",")[0]
    names = set()
    count = 0
    for run in doc.get("runs", [{"results": doc.get("results", [])}]):
        for r in run.get("results", []):
            for p in r.get("placement", []) or []:
                m = re.search(r"device \d+ of (\d+): ([^,]+)", p)
                if m:
                    count = max(count, int(m.group(1)))
                    names.add(m.group(2))
    if names:
        name = sorted(names)[0]
        return f"{count}x {name}" if count > 1 else name
    if "opencl" in b and "NVIDIA" in b["opencl"]:
        return "NVIDIA " + b["opencl"].split("NVIDIA", 1)[1].split(",")[0].strip()
    return None


def machine_of(name):
    """The machine a results file was measured on: its report's machine section, else meta.jsonl."""
    m = meta().get(name, {})
    if "machine" in m:
        return m["machine"]
    src = source_report(name)
    if src is None:
        return "?"
    doc = subreports(report(src))[0]
    mach = doc.get("machine")
    if mach is None:
        return meta().get(src, {}).get("machine", "?")
    cpu = f"{short_cpu(mach.get('cpu'))}, {mach.get('hardware_threads')} threads"
    gpu = gpus_of(doc)
    return f"{gpu} (host: {cpu})" if gpu else cpu


def source_report(name):
    """The JSON report behind results/NAME: itself, meta's `from`, or the JSON of the same stem."""
    if name.endswith(".json"):
        return name
    m = meta().get(name, {})
    if "from" in m:
        return (os.path.dirname(name) + "/" if os.path.dirname(name) else "") + m["from"]
    stem = os.path.splitext(name)[0] + ".json"
    return stem if os.path.exists(os.path.join(RESULTS, stem)) else None


def git_of(name):
    src = source_report(name)
    if src is None:
        return meta().get(name, {}).get("git", "–")
    doc = subreports(report(src))[0]
    return doc.get("tool", {}).get("git", "–") if isinstance(doc.get("tool"), dict) else "–"


def date_of(name):
    src = source_report(name)
    if src is not None:
        doc = subreports(report(src))[0]
        if doc.get("date"):
            return doc["date"][:10]
    return meta()[name]["date"] if name in meta() else meta()[src]["date"]


def commands_of(name):
    m = meta().get(name, {})
    if "command" in m:
        return [m["command"]]
    src = source_report(name)
    if src is None:
        return ["?"]
    cmds = []
    merged = report(src).get("merged_from")  # one document merged from several runs (scripts/gpu/*.sh)
    if merged:
        return list(dict.fromkeys(command_of(m.get("command", [])) for m in merged))
    for doc in subreports(report(src)):
        c = command_of(doc.get("command", []))
        if c not in cmds:
            cmds.append(c)
    return cmds


def provenance(*names):
    """One line per source file: command, machine, date, git revision."""
    lines = ["Measured by:"]
    for n in names:
        cmds = "; ".join(f"`{c}`" for c in commands_of(n))
        lines.append(f"- [`results/{n}`](results/{n}) — {cmds} on {machine_of(n)}, "
                     f"{date_of(n)} (git {git_of(n)}).")
    return lines


# ---------------------------------------------------------------- formatting

def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return out


def pow2(n):
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def ratio(x):
    return f"{x:.3f}×"


def span(values):
    """The range of some ratios: 0.946–0.947×, or one ratio when they print alike."""
    lo, hi = ratio(min(values)), ratio(max(values))
    return lo if lo == hi else f"{lo[:-1]}–{hi}"


def ulps(u):
    if u is None:
        return "–"
    if u == 0:
        return "0"
    return f"{u:.3g}" if u < 1e4 else f"{u:.1e}"


def log2err(x):
    """A worst log2 relative error: "exact" where it is -inf (every pair exact)."""
    return "exact" if x in ("-inf", None) or x == float("-inf") else f"2^{float(x):.0f}"


def pct(x):
    """A share in per cent; a share short of 1 never prints as 100 %."""
    if x == 1:
        return "100 %"
    shown = f"{100 * x:.3g}"
    return f"{shown} %" if float(shown) < 100 else f"{100 * x:.6g} %"


def num(x):
    """A rate or time to three significant digits, without exponents."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def ms(t):
    return f"{1e3 * t:.3f}"


def rng(ds):
    r = ds.get("range_requested")
    return "–" if r is None else ("1" if r == 1 else f"{r:.0e}".replace("e+", "e"))


def median(r):
    return r["time_s"]["median"]


def ns_per_unit(ds, r):
    """ns per element (per operation); older reports lack the throughput figure, so from the median."""
    t = r.get("throughput", {}).get("ns_per_unit")
    return t if t is not None else 1e9 * median(r) / ds["n"]


def find(name, pred):
    return [(ds, r) for ds, r in rows(name) if pred(ds, r)]


def one(name, pred):
    got = find(name, pred)
    if not got:
        raise SystemExit(f"gen_docs: no row in results/{name} matches the table's selection")
    return got[0]


def where(name, block, lines):
    """Guard: a table built from no rows is an error, never an empty table."""
    if not lines:
        raise SystemExit(f"gen_docs: block {block}: results/{name} gave no rows")
    return lines


# ---------------------------------------------------------------- the generated blocks

HEADLINE_SUM = "sum_speed_h100.json"  # the GPU columns of the sum and dot rows
HEADLINE_GEMM = "gemm_speed_uniform_h100.json"


def headline():
    body = []
    # sum and dot: the superaccumulator on the GPU (beside CUB / cuBLAS) and on one core.
    for fam, algo, bench, gbase, cfile, cbase, cnote in (
            ("sum", "superacc", "superacc_2e28", "cub-sum", "cpu_superacc_n2e26_s6.json", "naive",
             "n = 2^26, ranges 1–1e300"),
            ("dot", "superacc-dot", "superacc_dot_2e28", "cublas-dot", "cpu_speed_n2e24.json", "dot",
             "n = 2^24, U[0,1)")):
        in_bench = lambda ds, r, bench=bench: ds.get("bench") == bench and r["backend"] == "cuda"
        g = find(HEADLINE_SUM, lambda ds, r: in_bench(ds, r) and r["algo"] == algo)
        gb = find(HEADLINE_SUM, lambda ds, r: in_bench(ds, r) and r["algo"] == gbase)
        c = find(cfile, lambda ds, r: r["backend"] == "cpu" and r["algo"] == algo)
        cb = find(cfile, lambda ds, r: r["backend"] == "cpu" and r["algo"] == cbase)
        body.append([fam, f"`{algo}`",
                     f"{span([r['ratio_to_baseline'] for _, r in where(HEADLINE_SUM, 'headline', g)])} "
                     f"{'CUB' if fam == 'sum' else 'cuBLAS ddot'} (H100, n = 2^28, ranges 1–1e300)",
                     f"correctly rounded; baseline up to {ulps(max(r['ulps'] for _, r in gb))} ulps",
                     f"{span([r['ratio_to_baseline'] for _, r in c])} the plain loop ({cnote})",
                     f"correctly rounded; plain loop up to {ulps(max(r['ulps'] for _, r in cb))} ulps"])
    # gemm: Ozaki scheme on int8 tensor cores; selective compensation on the CPU.
    at_8192 = lambda ds, r: ds.get("rows") == 8192 or ds.get("n") == 8192
    ds, oz = one(HEADLINE_GEMM, lambda ds, r: at_8192(ds, r) and r["algo"] == "sgemm-ozaki"
                 and r["params"].get("accuracy") == "cr")
    _, cb = one(HEADLINE_GEMM, lambda ds, r: at_8192(ds, r) and r["algo"] == "cublas-sgemm")
    _, kc = one("gemm_cpu_mt_n512.json", lambda ds, r: r["algo"] == "sgemm-kahan" and r["params"].get("tile") == 16)
    _, ob = one("gemm_cpu_mt_n512.json", lambda ds, r: r["algo"] == "openblas-sgemm")
    body.append(["gemm", "`sgemm-ozaki` (GPU), `sgemm-kahan` tile 16 (CPU)",
                 f"{ratio(oz['ratio_to_baseline'])} cuBLAS SGEMM (H100, N = 8192, U[0,1))",
                 f"{pct(oz['share_correctly_rounded'])} of entries correctly rounded; cuBLAS {pct(cb['share_correctly_rounded'])}",
                 f"{ratio(kc['ratio_to_baseline'])} OpenBLAS (cpu-mt, N = 512)",
                 f"{pct(kc['share_correctly_rounded'])} correctly rounded; OpenBLAS {pct(ob['share_correctly_rounded'])}"])
    # moddot: the better Jean-Graillat algorithm beside cuBLAS ddot of the same n, and beside the GMP loop.
    p = 1125899906842597
    sel = lambda a: find("moddot_cuda_bench_h200.json",
                         lambda ds, r: ds["n"] == 2**28 and ds["data_params"]["p"] == p and r["algo"] == a)
    ddot = median(sel("moddot-cublas-ddot")[0][1])
    best = min(sel("moddot-lambda") + sel("moddot-abgd"), key=lambda x: median(x[1]))[1]  # the fastest
    _, cab = one("moddot_cpu_rn.json", lambda ds, r: ds["n"] == 2**22 and ds["data_params"]["p"] == p
                 and r["backend"] == "cpu" and r["algo"] == "moddot-abgd")
    body.append(["moddot", f"`{best['algo']}` {best['params']['rounding']} (GPU), `moddot-abgd` rn (CPU)",
                 f"{ratio(ddot / median(best))} cuBLAS ddot of the same n (H200, n = 2^28, p = 2^50 − 27)",
                 "exact residue (cuBLAS ddot is a bandwidth yardstick, not a residue)",
                 f"{cab['ratio_to_baseline']:.1f}× the GMP loop (n = 2^22)", "exact residue, as GMP"])
    # fpe: the data-parallel expansion addition beside QD's qd_real (R = 4).
    g = {a: one("fpe_tables_cuda.json", lambda ds, r, a=a: r["algo"] == a and r.get("R") == 4 and
                r["params"].get("shared") == 0 and r["time_s"]["reps"] > 1 and ds["generator"] == "random")[1]
         for a in ("fpe-add-safe", "fpe-qd-add")}
    c = {a: one("fpe_cpu_r2_r4.json", lambda ds, r, a=a: r["algo"] == a and ds["data_params"]["R"] == 4)[1]
         for a in ("fpe-add-safe", "fpe-qd-add")}
    body.append(["fpe", "`fpe-add-safe`, R = 4",
                 f"{ratio(median(g['fpe-qd-add']) / median(g['fpe-add-safe']))} QD `qd_real` addition (H200, 2^20 pairs)",
                 f"worst relative error {log2err(g['fpe-add-safe']['max_rel_err_log2'])} (within its proven bound); QD {log2err(g['fpe-qd-add']['max_rel_err_log2'])}",
                 f"{ratio(median(c['fpe-qd-add']) / median(c['fpe-add-safe']))} QD `qd_real` addition (one core, 2^15 pairs)",
                 f"worst relative error {log2err(c['fpe-add-safe']['max_rel_err_log2'])}; QD {log2err(c['fpe-qd-add']['max_rel_err_log2'])}"])
    head = ["family", "best algorithm", "GPU: speed vs vendor", "GPU: accuracy", "CPU: speed vs baseline", "CPU: accuracy"]
    return table(head, body) + [""] + provenance(
        HEADLINE_SUM, "cpu_superacc_n2e26_s6.json", "cpu_speed_n2e24.json", HEADLINE_GEMM, "gemm_cpu_mt_n512.json", "moddot_cuda_bench_h200.json",
        "moddot_cpu_rn.json", "fpe_tables_cuda.json", "fpe_cpu_r2_r4.json")


def superacc_n():
    s = {ds["n"]: r for ds, r in rows("superacc_n_sum_h200.json") if r["algo"] == "superacc"}
    d = {ds["n"]: r for ds, r in rows("superacc_n_dot_h200.json") if r["algo"] == "superacc-dot"}
    body = [[pow2(n), f"{1e6 * median(s[n]):.1f} µs", ratio(s[n]["ratio_to_baseline"]),
             ratio(d[n]["ratio_to_baseline"]) if n in d else "–",
             "yes" if s[n]["correctly_rounded"] and (n not in d or d[n]["correctly_rounded"]) else "NO"]
            for n in sorted(s)]
    return where("superacc_n_sum_h200.json", "superacc-n",
                 table(["n", "superacc", "× CUB Sum", "superacc-dot × cuBLAS ddot", "correctly rounded"], body)) + \
        [""] + provenance("superacc_n_sum_h200.json", "superacc_n_dot_h200.json")


def superacc_ranges():
    body = []
    for f, algo, base, repro, pf in (("opencl_sum_h200.json", "superacc", "cub-sum", "cub-sum-repro", "peers_sum_2e28_h200.json"),
                                     ("opencl_dot_h200.json", "superacc-dot", "cublas-dot", "cub-dot-repro", "peers_dot_2e28_h200.json")):
        for ds, r in rows(f):
            if r["backend"] != "cuda" or r["algo"] != algo or r["params"].get("fpe", 0) != 0:
                continue
            _, b = one(f, lambda d2, x: d2 == ds and x["algo"] == base)
            _, rp = one(pf, lambda d2, x: d2["range_requested"] == ds["range_requested"] and x["algo"] == repro)
            body.append([f"`{algo}`", rng(ds), f"{ms(median(b))} ms", ratio(r["ratio_to_baseline"]), ulps(r["ulps"]),
                         ulps(b["ulps"]), ratio(rp["ratio_to_baseline"])])
    head = ["algorithm", "range", "vendor (CUB Sum / cuBLAS ddot)", "× vendor", "ulps", "vendor ulps",
            "CUB gpu_to_gpu × vendor"]
    return where("opencl_sum_h200.json", "superacc-ranges", table(head, body)) + [""] + provenance(
        "opencl_sum_h200.json", "opencl_dot_h200.json", "peers_sum_2e28_h200.json", "peers_dot_2e28_h200.json")


def dpsumk_k():
    body = []
    for f, algo in (("dpsumk_sum_2e28.json", "dpsumk"), ("dpsumk_dot_2e28.json", "dpdotk")):
        for variant in ("fused", "tree"):
            got = sorted(((r["params"]["K"], r) for _, r in rows(f) if r["algo"] == algo and
                          r["params"].get("variant") == variant and r["params"].get("twoprod", "fma") == "fma"),
                         key=lambda x: x[0])
            body.append([f"`{algo}` {variant}"] + [ratio(r["ratio_to_baseline"]) for _, r in got])
            ks = [k for k, _ in got]
    return where("dpsumk_sum_2e28.json", "dpsumk-k",
                 table(["n = 2^28, U[0,1), × CUB / cuBLAS"] + [f"K = {k}" for k in ks], body)) + \
        [""] + provenance("dpsumk_sum_2e28.json", "dpsumk_dot_2e28.json")


def cpu_algorithms():
    body = []
    for ds, r in rows("cpu_speed_n2e24.json"):
        if r["backend"] != "cpu":
            continue
        params = ", ".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
        body.append([r["family"], f"`{r['algo']}`" + (f" {params}" if params else ""), r["guarantee"],
                     f"{ns_per_unit(ds, r):.2f}", ratio(r["ratio_to_baseline"]), ulps(r["ulps"])])
    return where("cpu_speed_n2e24.json", "cpu-algorithms",
                 table(["family", "algorithm (cpu, one core)", "guarantee", "ns per element", "× plain loop", "ulps"], body)) + \
        [""] + provenance("cpu_speed_n2e24.json")


def cpu_superacc():
    body = []
    for ds, r in rows("cpu_superacc_n2e26_s6.json"):
        if r["algo"] != "superacc":
            continue
        _, b = one("cpu_superacc_n2e26_s6.json", lambda d2, x: d2 == ds and x["backend"] == r["backend"] and x["is_baseline"])
        body.append([r["backend"], rng(ds), f"{r['throughput']['ns_per_unit']:.2f}", f"{b['throughput']['ns_per_unit']:.2f}",
                     ratio(r["ratio_to_baseline"]), ulps(b["ulps"])])
    return where("cpu_superacc_n2e26_s6.json", "cpu-superacc",
                 table(["backend", "range", "superacc ns/element", "plain sum ns/element", "× plain", "plain sum ulps"], body)) + \
        [""] + provenance("cpu_superacc_n2e26_s6.json")


def peers_cpu():
    doc = report("peers_cpu_n2e24.json")
    ranges = [re.sub(r"^loguniform_|\.npy$", "", os.path.basename(run["input"])) for run in doc["runs"]]
    names = []
    for run in doc["runs"]:
        for r in run["rows"]:
            if r["name"] not in names:
                names.append(r["name"])
    body = []
    for name in names:
        cells, guar = [], ""
        for run in doc["runs"]:
            r = next((x for x in run["rows"] if x["name"] == name), None)
            cells.append("–" if r is None else f"{r['ns_per_element']:.2f} ({ulps(r['ulps_from_rn'])})")
            guar = guar or (r or {}).get("guarantee", "")
        body.append([name, guar] + cells)
    head = ["n = 2^24, one core", "guarantee"] + [f"range {x}: ns/element (ulps)" for x in ranges]
    return where("peers_cpu_n2e24.json", "peers-cpu", table(head, body)) + [""] + provenance("peers_cpu_n2e24.json")


def accuracy_digits():
    conds, table_rows = [], {}
    for ds, r in rows("accuracy_cpu_illcond.json"):
        c = ds.get("cond_requested")
        if c not in conds:
            conds.append(c)
        params = ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
        table_rows.setdefault((r["family"], r["algo"] + (f" {params}" if params else ""), r["guarantee"]), {})[c] = r["digits"]
    body = [[f, f"`{a}`", g] + [f"{d.get(c, float('nan')):.1f}" for c in conds] for (f, a, g), d in table_rows.items()]
    return where("accuracy_cpu_illcond.json", "accuracy-digits",
                 table(["family", "algorithm", "guarantee"] + [f"cond {c:.0e}".replace("e+", "e") for c in conds], body)) + \
        [""] + provenance("accuracy_cpu_illcond.json")


def gemm_front():
    body = []
    for ds, r in rows("gemm_front_auto_h200.json"):
        if ds["n"] != 8192:
            continue
        params = ", ".join(f"{k}={v}" for k, v in sorted(r["params"].items()) if k not in ("fma", "policy"))
        body.append([f"`{r['algo']}`" + (f" {params}" if params else ""), f"{r['throughput']['FLOP_per_s'] / 1e12:.1f}",
                     ratio(r["ratio_to_baseline"]), ulps(r["ulps"]), f"{r['abs_err']:.2e}",
                     pct(r["share_correctly_rounded"]), pct(r["share_faithful"])])
    head = ["N = 8192, U[0,1)", "TFLOP/s", "× cuBLAS SGEMM", "max ulps", "max abs error", "correctly rounded", "faithful"]
    return where("gemm_front_auto_h200.json", "gemm-front", table(head, body)) + [""] + provenance("gemm_front_auto_h200.json")


DIST_NAMES = {"uniform": "U[0,1)", "uniform-sym": "U[−1,1)", "loguniform": "log-uniform"}


def ozaki_rows(names):
    """The sgemm-ozaki rows of these reports, each with its data's name and its --slices."""
    for name in names:
        for ds, r in rows(name):
            if r["algo"] == "sgemm-ozaki":
                yield ds, r, DIST_NAMES[ds["generator"]] + (f" {rng(ds)}" if ds["generator"] == "loguniform" else ""), \
                    r["params"].get("slices", 0)


def ozaki():
    body, files = [], ["ozaki_packed_uniform_n8192_h200.json", "ozaki_packed_uniform-sym_n8192_h200.json",
                       "ozaki13_uniform_n16384_h200.json", "ozaki13_loguniform_n8192_h200.json"]
    for ds, r, dist, sl in ozaki_rows(files):
        split = " / ".join(f"{1e3 * r[k]:.1f}" for k in ("ozaki_scale_s", "ozaki_products_s", "ozaki_accumulate_round_s"))
        body.append([dist, ds["n"], "default" if sl == 0 else sl, f"{ms(median(r))} ms", ratio(r["ratio_to_baseline"]),
                     pct(r["share_correctly_rounded"]), pct(r["share_faithful"]), int(r["ozaki_int8_products"]), split,
                     f"{r['ozaki_int8_tops']:.0f}"])
    head = ["data", "N", "slices", "time", "× cuBLAS SGEMM", "correctly rounded", "faithful", "int8 products",
            "scale / products / combine (ms)", "int8 TOPS"]
    return where(files[0], "ozaki", table(head, body)) + [""] + provenance(*files)


def ozaki_faithful(*names):
    """sgemm-ozaki's accuracy modes beside cuBLAS SGEMM: the entries --accuracy=faithful summed exactly and what
    they cost, with the shares of correctly rounded and faithful entries the exact oracle found."""
    body = []
    for ds, r, dist, sl in ozaki_rows(names):
        body.append([dist, ds["shape"]["rows"], r["params"]["accuracy"], int(r["ozaki_slices"]) if sl else
                     f"{int(r['ozaki_slices'])} (chosen)", f"{ms(median(r))} ms", ratio(r["ratio_to_baseline"]),
                     pct(r["share_correctly_rounded"]), pct(r["share_faithful"]), int(r["ozaki_exact_entries"]),
                     f"{1e3 * r['ozaki_exact_entries_s']:.2f}", r["guarantee"],
                     "yes" if r["guarantee_met"] else "NO"])
    head = ["data", "N", "accuracy", "moduli", "time", "× cuBLAS SGEMM", "correctly rounded", "faithful",
            "entries summed exactly", "their time (ms)", "guarantee", "met"]
    return where(names[0], "ozaki-faithful", table(head, body)) + [""] + provenance(*names)


def gemm_speed(*names):
    """The GEMM speed reports of one card (scripts/gpu/gemm_speed.sh, dgemm_speed.sh): every method beside
    its cuBLAS baseline, its error against the exact oracle and, for the Ozaki scheme, its plan, phases and
    proven row bound."""
    body, baselines = [], set()
    for name in names:
        for ds, r in rows(name):
            baselines.add(r["baseline"])
            dist = DIST_NAMES[ds["generator"]] + (f" {rng(ds)}" if ds["generator"] == "loguniform" else "")
            params = " ".join(f"{k}={v}" for k, v in sorted(r["params"].items()) if k in ("tile", "accuracy", "bits"))
            ozaki = r["algo"] in ("sgemm-ozaki", "dgemm-ozaki")
            split = " / ".join(f"{1e3 * r[k]:.2f}" for k in ("ozaki_scale_s", "ozaki_products_s",
                                                            "ozaki_accumulate_round_s")) if ozaki else "–"
            body.append([dist, ds["shape"]["rows"], f"`{r['algo']}`" + (f" {params}" if params else ""),
                         f"{ms(median(r))} ms", ratio(r["ratio_to_baseline"]), f"{r['abs_err']:.3g}",
                         pct(r["share_correctly_rounded"]), int(r["ozaki_slices"]) if ozaki else "–", split,
                         f"{r['ozaki_row_bound_max']:.3g}" if ozaki else "–",
                         int(r.get("bound_violations", 0)) if ozaki else "–"])
    head = ["data", "N", "method", "time", "× " + " / ".join(f"`{b}`" for b in sorted(baselines)), "max abs error",
            "correctly rounded", "moduli",
            "scale / products / combine (ms)", "proven bound, max row", "violations"]
    return where(names[0], "gemm-speed", table(head, body)) + [""] + provenance(*names)


def gemm_cpu():
    body = []
    for ds, r in rows("gemm_cpu_mt_n512.json"):
        body.append([f"`{r['algo']}`", r["params"].get("tile", "–"), f"{r['throughput']['FLOP_per_s'] / 1e9:.1f}",
                     ratio(r["ratio_to_baseline"]), f"{r['abs_err']:.1e}", f"{r['avg_abs_err']:.1e}",
                     pct(r["share_correctly_rounded"]), pct(r["share_faithful"])])
    head = ["cpu-mt, N = 512, U[0,1)", "tile", "GFLOP/s", "× OpenBLAS", "max abs error", "avg abs error",
            "correctly rounded", "faithful"]
    return where("gemm_cpu_mt_n512.json", "gemm-cpu", table(head, body)) + [""] + provenance("gemm_cpu_mt_n512.json")


PRIMES = {32771: "32771", 2147483647: "2^31 − 1", 1125899906842597: "2^50 − 27"}


def moddot_cuda():
    f = "moddot_cuda_bench_h200.json"
    body = []
    for ds, r in rows(f):
        if r["algo"] not in ("moddot-abgd", "moddot-lambda"):
            continue
        _, dd = one(f, lambda d2, x: d2 == ds and x["algo"] == "moddot-cublas-ddot")
        body.append([PRIMES[ds["data_params"]["p"]], pow2(ds["n"]), f"`{r['algo']}` {r['params']['rounding']}",
                     f"{ms(median(r))} ms", ratio(median(dd) / median(r)), ratio(r["ratio_to_baseline"]),
                     "yes" if r["correctly_rounded"] else "NO"])
    head = ["p", "n", "algorithm", "time", "× cuBLAS ddot", "× int128 kernel", "exact"]
    return where(f, "moddot-cuda", table(head, body)) + [""] + provenance(f)


def moddot_cpu():
    body = []
    for f in ("moddot_cpu.json", "moddot_cpu_rn.json"):
        for ds, r in rows(f):
            if r["backend"] != "cpu" or ds["n"] != 2**22:
                continue
            if f == "moddot_cpu_rn.json" and r["algo"] not in ("moddot-abgd", "moddot-lambda"):
                continue
            name = f"`{r['algo']}`" + (f" {r['params']['rounding']}" if "rounding" in r["params"] else "")
            row = next((x for x in body if x[0] == name), None)
            if row is None:
                row = [name] + ["–"] * len(PRIMES)
                body.append(row)
            cell = f"{r['throughput']['ns_per_unit']:.2f}"
            if not r["is_baseline"]:
                cell += f" ({r['ratio_to_baseline']:.1f}×)"
            row[1 + list(PRIMES).index(ds["data_params"]["p"])] = cell
    head = ["cpu, n = 2^22: ns per element (× GMP loop)"] + [f"p = {v}" for v in PRIMES.values()]
    return where("moddot_cpu.json", "moddot-cpu", table(head, body)) + [""] + provenance("moddot_cpu.json", "moddot_cpu_rn.json")


FPE_ADD = ("fpe-add-safe", "fpe-add-fast", "fpe-seq-add", "fpe-qd-add")
FPE_MUL = ("fpe-mul", "fpe-seq-mul", "fpe-qd-mul")


def fpe_cuda():
    f = "fpe_tables_cuda.json"
    cells = {}
    for ds, r in rows(f):
        if r["time_s"]["reps"] <= 1 or ds["generator"] != "random" or r["params"].get("renormalize", 0):
            continue
        cells[(r["params"].get("shared", 0), r["R"], r["algo"])] = r["throughput"]["operations_per_s"] / 1e6
    body = []
    for shared in (0, 1):
        for R in sorted({k[1] for k in cells if k[0] == shared}):
            c = lambda a: cells.get((shared, R, a))
            fmt = lambda a: "*" if c(a) is None else num(c(a))
            body.append(["memory-constrained" if shared else "best case", int(R)] + [fmt(a) for a in FPE_ADD + FPE_MUL] +
                        [ratio(c("fpe-add-safe") / c("fpe-seq-add")), ratio(c("fpe-mul") / c("fpe-seq-mul"))])
    head = ["mode (Mop/s)", "R", "add safe", "add fast", "add seq", "QD add", "mul", "mul seq", "QD mul",
            "safe / seq", "mul / seq"]
    return where(f, "fpe-cuda", table(head, body)) + [""] + provenance(f)


def fpe_sum_cuda():
    body = []
    for f in ("fpe_sum_cuda_h100.json", "fpe_dot_cuda_h100.json"):
        for ds, r in rows(f):
            if r["is_baseline"]:
                continue
            p = r["params"]
            name = f"`{r['algo']}` " + (f"R = {p['terms']}" if "terms" in p else f"K = {p['K']} {p.get('variant', '')}")
            body.append([name, rng(ds), f"{ms(median(r))} ms", ratio(r["ratio_to_baseline"]), ulps(r["ulps"]),
                         "yes" if r["correctly_rounded"] else "no"])
    return where("fpe_sum_cuda_h100.json", "fpe-sum-cuda",
                 table(["n = 2^28", "range", "time", "× CUB Sum / cuBLAS ddot", "ulps", "correctly rounded"], body)) + \
        [""] + provenance("fpe_sum_cuda_h100.json", "fpe_dot_cuda_h100.json")


def fpe_cpu():
    cells, Rs = {}, []
    for f in ("fpe_cpu_r2_r4.json", "fpe_cpu_r8_r32.json"):
        for ds, r in rows(f):
            if r["params"].get("renormalize", 0):
                continue
            R = ds["data_params"]["R"]
            Rs += [R] if R not in Rs else []
            cells[(R, r["algo"])] = (ds, r)
    body = []
    for R in Rs:
        body.append([R] + [num(ns_per_unit(*cells[(R, a)])) if (R, a) in cells else "–"
                           for a in FPE_ADD + FPE_MUL] +
                    [log2err(cells[(R, 'fpe-add-safe')][1]['max_rel_err_log2'])])
    head = ["R (cpu, ns per operation)", "add safe", "add fast", "add seq", "QD add", "mul", "mul seq", "QD mul",
            "add safe: worst relative error"]
    return where("fpe_cpu_r2_r4.json", "fpe-cpu", table(head, body)) + [""] + provenance("fpe_cpu_r2_r4.json", "fpe_cpu_r8_r32.json")


def opencl_ratios():
    body = []
    for f, fam, algo, vendor, plain in (("opencl_sum_h200.json", "sum", "superacc", "cub-sum", "naive"),
                                        ("opencl_dot_h200.json", "dot", "superacc-dot", "cublas-dot", "dot")):
        for ds, r in rows(f):
            if r["backend"] != "opencl" or r["algo"] != algo or r["params"].get("fpe") != 0 or r["params"].get("vecs", 0) != 0:
                continue
            _, v = one(f, lambda d2, x: d2 == ds and x["algo"] == vendor)
            _, p = one(f, lambda d2, x: d2 == ds and x["algo"] == plain and x["backend"] == "opencl")
            body.append([fam, rng(ds), f"{ms(median(v))}", f"{ms(median(p))}", ratio(median(v) / median(p)),
                         f"{ms(median(r))}", ratio(median(p) / median(r)), "yes" if r["correctly_rounded"] else "NO"])
    head = ["n = 2^28", "range", "CUDA vendor ms", "OpenCL plain ms", "plain × vendor", "OpenCL superacc ms",
            "superacc × plain", "correctly rounded"]
    return where("opencl_sum_h200.json", "opencl-ratios", table(head, body)) + [""] + provenance("opencl_sum_h200.json", "opencl_dot_h200.json")


SCALING = ("scaling_weak_np1_2xh200.json", "scaling_weak_np2_2xh200.json", "scaling_strong_sum_np1_2xh200.json",
           "scaling_strong_sum_np2_2xh200.json", "scaling_strong_dot_np1_2xh200.json", "scaling_strong_dot_np2_2xh200.json")


def scaling():
    body = []
    for f in SCALING:
        kind = "weak" if "weak" in f else "strong"
        for ds, r in rows(f):
            ranks = len(r.get("placement") or [1])
            body.append([kind, ranks, f"`{r['algo']}`", pow2(ds["n"]), f"{ms(median(r))} ms",
                         f"{ds['n'] / median(r) / 1e9:.0f}", f"{100 * r.get('mpi_combine_share', 0):.1f} %",
                         "yes" if r["correctly_rounded"] else "NO", f"`{r['value_hex']}`"])
    head = ["scaling", "GPUs (ranks)", "algorithm", "n", "time", "G elements/s", "MPI combine share", "correctly rounded", "value"]
    return where(SCALING[0], "scaling", table(head, body)) + [""] + provenance(*SCALING)


def ratios(name):
    """Every non-baseline row of one report: n, range, parameters, ratio to its baseline, verdict."""
    body = []
    for doc in subreports(report(name)):
        for run in doc.get("runs", []):
            ds = run.get("dataset", {})
            for r in run.get("results", []):
                if r.get("is_baseline") or r.get("ratio_to_baseline") is None:
                    continue
                params = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()))
                body.append([run.get("bench", ""), f"`{r['algo']}`", r["backend"], params, pow2(ds["n"]), rng(ds),
                             ratio(r["ratio_to_baseline"]), "yes" if r.get("guarantee_met") else "NO"])
    return where(name, "ratios", table(["bench", "algo", "backend", "params", "n", "range", "× baseline",
                                        "guarantee met"], body)) + [""] + provenance(name)


def ncu_rows(name):
    """The kernels of an ncu --csv --page raw log (results/NAME), each a dict from metric to its text (the
    row of units after the header left out)."""
    import csv
    with open(os.path.join(RESULTS, name), encoding="utf-8") as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("==")]
    head, _units, *data = list(csv.reader(lines))
    return [dict(zip(head, row)) for row in data]


def ncu_get(kernel, metric):
    return float(kernel[metric].replace(",", ""))


def ncu(name, n):
    """An ncu --csv --page raw log (results/NAME) of kernels over n elements: per kernel its time, DRAM
    bytes read per element, DRAM throughput, warps active, and instructions (FP64) per element."""
    n, body = int(n), []
    for k in ncu_rows(name):
        get = lambda c: ncu_get(k, c)
        kernel = re.sub(r"^void |<.*$|\(.*$", "", k["Kernel Name"].replace("<unnamed>::", ""))
        threads = 32  # ncu counts warp instructions
        body.append([f"`{kernel}` ({k['launch__grid_size']} x {k['launch__block_size']})",
                     f"{get('gpu__time_duration.sum') / 1e3:.0f} µs", f"{get('dram__bytes_read.sum') / n:.1f}",
                     f"{get('dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f} %",
                     f"{get('sm__warps_active.avg.pct_of_peak_sustained_active'):.1f} %",
                     f"{get('smsp__inst_executed.sum') * threads / n:.1f} ({get('sm__inst_executed_pipe_fp64.sum') * threads / n:.1f})"])
    return where(name, "ncu", table(["kernel (grid x block)", "time", "bytes read / element", "DRAM throughput",
                                     "warps active", "instructions / element (FP64)"], body)) + [""] + provenance(name)


STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio")
MAX_WARPS_PER_SM = 64  # H100 and H200 (compute capability 9.0): ncu's warps active is a share of these


def gemm_stalls(*names):
    """What limits the tiled SGEMM kernels (scripts/gpu/gemm_stalls.sh): per kernel of each ncu log its time,
    warp instructions, issue utilisation, registers and warps per SM, and the stall reasons that cost at least
    0.1 cycle per issued instruction (selected, the issue itself, and not_selected, another warp issuing,
    left out)."""
    body = []
    for name in names:
        for k in ncu_rows(name):
            get = lambda c: ncu_get(k, c)
            kernel = k["Kernel Name"]
            policy = re.search(r"GemmTilePolicy<([^>]*)>, (\d)", kernel)
            what = (f"`sgemm_blocked` {['plain', 'Kahan', 'DCS'][int(policy.group(2))]} "
                    f"<{policy.group(1).replace(' ', '')}>" if policy else "cuBLAS `" + kernel.split("_execute")[0][:40] + "`")
            stalls = sorted(((get(c), m.group(1)) for c in k if (m := STALL.fullmatch(c))), reverse=True)
            shown = ", ".join(f"{r} {v:.2f}" for v, r in stalls if v >= 0.1 and r not in ("selected", "not_selected"))
            warps = get("sm__warps_active.avg.pct_of_peak_sustained_active") * MAX_WARPS_PER_SM / 100
            body.append([name.removeprefix("gemm_stalls").removesuffix(".csv").strip("_") or "–", what,
                         f"{get('gpu__time_duration.sum') / 1e6:.3f} ms", f"{get('smsp__inst_executed.sum') / 1e9:.2f} G",
                         f"{100 * get('smsp__inst_executed_pipe_fma.sum') / get('smsp__inst_executed.sum'):.0f} %",
                         f"{get('smsp__issue_active.avg.pct_of_peak_sustained_active'):.1f} %",
                         f"{get('smsp__average_warp_latency_per_inst_issued.ratio'):.2f}",
                         k["launch__registers_per_thread"], f"{warps:.0f}", shown or "–"])
    head = ["log", "kernel", "time", "warp instructions", "FMA pipe", "issue active", "cycles / issue (per warp)",
            "registers", "warps / SM", "stalls ≥ 0.1 cycle / issue"]
    return where(" ".join(names), "gemm-stalls", table(head, body)) + [""] + provenance(*names)


def figure(png, *more_sources):
    """A figure with what it shows and how it was drawn: `<!-- generated:figure X.png [more.json ...] -->`."""
    if png not in meta() or not os.path.exists(os.path.join(RESULTS, png)):
        raise SystemExit(f"gen_docs: figure results/{png} is missing or has no entry in results/meta.jsonl")
    what = meta()[png]["what"].removeprefix("figure: ")
    sources = [source_report(png)] + list(more_sources)
    script = re.search(r"scripts/\S+\.py", commands_of(png)[0]).group(0)
    return [f"![{what}](results/{png})", "",
            f"*Figure: {what}.* `make plots` draws it with `{script}`.", ""] + provenance(*sources)


def sources(*names):
    """Provenance of committed files that a page cites as they are: `<!-- generated:sources A B -->`."""
    for n in names:
        if n not in meta():
            raise SystemExit(f"gen_docs: results/{n} has no entry in results/meta.jsonl")
    return [f"- [`results/{n}`](results/{n}): {meta()[n]['what']} — {'; '.join(f'`{c}`' for c in commands_of(n))} "
            f"on {machine_of(n)}, {date_of(n)} (git {git_of(n)})." for n in names]


def ab(name, tolerance="0.01"):
    """An A/B of two builds (scripts/gpu/single_source_ab.sh): runs tagged before-<bench>-<round> and
    after-<bench>-<round>; per algorithm, parameters and n, the median over rounds of each build's
    median time, the change, each build's ratio to its baseline, and whether after is within tolerance."""
    import statistics
    results = [(run["bench"].split("-", 2)[:2], run.get("dataset", {}), r)
             for doc in subreports(report(name)) for run in doc.get("runs", []) for r in run.get("results", [])]
    # A parameter one build lacks (a new option, at its default) is left out of the match.
    names = {}
    for (side, bench), ds, r in results:
        names.setdefault((bench, r["algo"]), {}).setdefault(side, set()).update(r.get("params", {}))
    times, base_ratio = {}, {}
    for (side, bench), ds, r in results:
        common = set.intersection(*names[(bench, r["algo"])].values())
        params = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if k in common)
        key = (bench, r["algo"], params, ds.get("n", ds.get("rows", 0)))
        times.setdefault(key, {}).setdefault(side, []).append(r["time_s"]["median"])
        if not r.get("is_baseline") and r.get("ratio_to_baseline") is not None:
            base_ratio.setdefault(key, {}).setdefault(side, []).append(r["ratio_to_baseline"])
    body, tol = [], float(tolerance)
    for key, sides in times.items():
        if set(sides) != {"before", "after"}:
            raise SystemExit(f"gen_docs: results/{name}: {key} lacks a before or an after run")
        before, after = (statistics.median(sides[s]) for s in ("before", "after"))
        ratios = base_ratio.get(key, {})
        shown = [ratio(statistics.median(ratios[s])) if s in ratios else "baseline" for s in ("before", "after")]
        bench, algo, params, n = key
        body.append([bench, f"`{algo}`", params, pow2(n), f"{ms(before)} ms", f"{ms(after)} ms",
                     f"{100 * (after / before - 1):+.2f} %", *shown, "yes" if after <= before * (1 + tol) else "NO"])
    head = ["bench", "algo", "params", "n", "before", "after", "change", "× baseline before", "× baseline after",
            f"within {100 * tol:g} %"]
    return where(name, "ab", table(head, body)) + [""] + provenance(name)


BLOCKS = {
    "ratios": ratios, "ab": ab, "ncu": ncu, "gemm-stalls": gemm_stalls, "sources": sources, "figure": figure, "headline": headline, "superacc-n": superacc_n, "superacc-ranges": superacc_ranges, "dpsumk-k": dpsumk_k,
    "cpu-algorithms": cpu_algorithms, "cpu-superacc": cpu_superacc, "peers-cpu": peers_cpu,
    "accuracy-digits": accuracy_digits, "gemm-front": gemm_front, "ozaki": ozaki, "gemm-cpu": gemm_cpu, "gemm-speed": gemm_speed, "ozaki-faithful": ozaki_faithful,
    "moddot-cuda": moddot_cuda, "moddot-cpu": moddot_cpu, "fpe-cuda": fpe_cuda, "fpe-sum-cuda": fpe_sum_cuda,
    "fpe-cpu": fpe_cpu, "opencl-ratios": opencl_ratios, "scaling": scaling,
}


def relink(lines, doc_dir):
    """Provenance links are written relative to the repository root; make them relative to the page."""
    rel = os.path.relpath(ROOT, doc_dir)
    if rel == ".":
        return lines
    return [re.sub(r"\]\((results/)", f"]({rel}/\\1", ln) for ln in lines]


def fill_blocks(path):
    """The text of `path` with every generated block rebuilt."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out, pos = [], 0
    for m in OPEN.finditer(text):
        if m.start() < pos:
            continue
        end = text.find(CLOSE, m.end())
        if end < 0:
            raise SystemExit(f"gen_docs: {os.path.relpath(path, ROOT)}: block {m.group(1)} has no {CLOSE}")
        name = m.group(1)
        if name not in BLOCKS:
            raise SystemExit(f"gen_docs: {os.path.relpath(path, ROOT)}: unknown block {name}")
        body = relink(BLOCKS[name](*m.group(2).split()), os.path.dirname(path))
        out += [text[pos:m.end()], "\n", "\n".join(body), "\n"]
        pos = end
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------- docs/cli.md

def run_accsum(accsum, *args):
    env = dict(os.environ, ACCSUM_PROGRESS="0", COLUMNS="100")
    # argv[0] "accsum", so that the usage lines do not carry this build's path
    p = subprocess.run(["accsum", *args], executable=accsum, capture_output=True, text=True, env=env, timeout=60)
    if p.returncode != 0:
        raise SystemExit(f"gen_docs: `accsum {' '.join(args)}` exited {p.returncode}: {p.stderr.strip()[:200]}")
    return p.stdout


def build_config(accsum):
    """What the help text depends on: the backends and optional libraries compiled into the binary."""
    entries = json.loads(run_accsum(accsum, "list", "--format=json"))["algorithms"]
    have = {(e["algo"], b["backend"]) for e in entries for b in e["backends"]}
    algos = {a for a, _ in have}
    backends = sorted({b for _, b in have}, key=["cpu", "cpu-mt", "cuda", "opencl", "mpi"].index)
    extras = [name for name, present in (("QD", ("fpe-qd-add", "cpu") in have),
                                         ("OpenBLAS", "openblas-sgemm" in algos),
                                         ("CCCL >= 3.1", "cub-sum-repro" in algos)) if present]
    return "backends " + ", ".join(backends) + "; " + (", ".join(extras) if extras else "no optional libraries")


CLI_HEAD = """# Command-line reference

Generated by `scripts/gen_docs.py` from `accsum --help` and `accsum <subcommand> --help` of a build with:
{config}. Builds without CUDA, OpenCL or MPI lack the options of those backends' algorithms.
A list value sweeps (`--K=2,3,4`); `accsum list` shows which algorithm takes which parameter on which backend.

Arguments are never dropped or reinterpreted: an empty list element (`--K=2,,3`) or value, a parameter given
twice (`--K=4 --param K=3`), a `--seed` outside [0, 2^64 − 1], and options the mode does not use (`--n`,
`--seed`, `--dist`, `--range`, `--cond` with `--input`) are errors, as are sizes other than a decimal integer
or an integer power (`2^`, `-2^2`, `4^0.5`) and a short option joined to its value by `=` (`-o=x.npy`). `--backend=all` skips the (algorithm,
backend) pairs that do not exist; an explicit backend list refuses them. `bench --input=F --algo=all` runs
every algorithm whose family the file fits. Bad input of any kind is one line on stderr and exit code 2;
`verify` exits 1 when a result breaks its guarantee. What happens to every input and output path is in
[input-output-rules.md](input-output-rules.md).

| environment variable | effect |
| --- | --- |
| `ACCSUM_THREADS` | cpu-mt threads when `--threads=0` (an integer in [1, 1024]) |
| `ACCSUM_CUDA_DEVICE` | the CUDA device when `--device` is not given |
| `ACCSUM_OPENCL_DEVICE` | a name substring choosing the OpenCL device (default: a GPU with fp64 first) |
| `ACCSUM_OPENCL_DUMP` | an existing directory where the built OpenCL programs are written (PTX on NVIDIA) as `program_<k>.bin`, each renamed into place (a link there is replaced, never followed); a file or a missing name is refused |
| `ACCSUM_PROGRESS` | `0` turns the progress bar on stderr off, `1` forces it (default: on when stderr is a terminal) |
"""


def cli_doc(accsum, config):
    top = run_accsum(accsum, "--help")
    subs = re.findall(r"^\s{2}(\w+)\s{2,}", re.split(r"(?i)subcommands:", top, 1)[-1], re.M)
    if not subs:
        raise SystemExit("gen_docs: `accsum --help` lists no subcommands")
    parts = [CLI_HEAD.format(config=config), "## accsum", "", "```", top.rstrip(), "```", ""]
    for s in subs:
        parts += [f"## accsum {s}", "", "```", run_accsum(accsum, s, "--help").rstrip(), "```", ""]
    return "\n".join(parts)


def recorded_config(path):
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(r"of a build with:\n(.*?)\. Builds", f.read(), re.S)
        return m.group(1).replace("\n", " ") if m else None
    except OSError:
        return None


# ---------------------------------------------------------------- results/README.md

INDEX_HEAD = """# results/

Every measurement the documentation cites, with the command, machine, date and git revision that produced
it. Generated by `scripts/gen_docs.py` from the reports themselves (`tool`, `machine`, `command`) and from
`meta.jsonl` (what each file measures, its date, and for files that are not reports the report or command
they come from); `make plots` redraws the figures from the JSON. `archive/` holds measurements that the
pages do not cite.
"""


def index_rows(names):
    body = []
    for n in names:
        if n not in meta():
            raise SystemExit(f"gen_docs: results/{n} has no entry in results/meta.jsonl (say what it measures)")
        cmds = "; ".join(f"`{c}`" for c in commands_of(n)).replace("|", "\\|")
        body.append([f"[`{n}`]({n})", meta()[n]["what"].replace("|", "\\|"), machine_of(n), date_of(n), git_of(n), cmds])
    return body


def results_index():
    current = sorted(f for f in os.listdir(RESULTS) if os.path.isfile(os.path.join(RESULTS, f))
                     and f not in ("README.md", "meta.jsonl"))
    archived = sorted("archive/" + f for f in os.listdir(os.path.join(RESULTS, "archive")))
    stale = sorted(set(meta()) - set(current) - set(archived))
    if stale:
        raise SystemExit(f"gen_docs: results/meta.jsonl names files that do not exist: {', '.join(stale)}")
    head = ["file", "what it measures", "machine", "date", "git", "command"]
    lines = [INDEX_HEAD, "## Cited by the documentation", ""] + table(head, index_rows(current))
    lines += ["", "## archive/", ""] + table(head, index_rows(archived))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main

def pages():
    out = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    out += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md") and f != "cli.md")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accsum", help="the accsum binary whose --help becomes docs/cli.md (omit to leave cli.md alone)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 naming every stale file")
    a = ap.parse_args()

    wanted = {p: fill_blocks(p) for p in pages()}
    wanted[os.path.join(RESULTS, "README.md")] = results_index()
    cli_path = os.path.join(ROOT, "docs", "cli.md")
    cli_skipped = None
    if a.accsum:
        config = build_config(a.accsum)
        recorded = recorded_config(cli_path)
        if a.check and recorded is not None and recorded != config:
            cli_skipped = f"docs/cli.md describes a build with {recorded}; this binary has {config}"
        else:
            wanted[cli_path] = cli_doc(a.accsum, config)

    stale = []
    for path, text in wanted.items():
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = None
        if old == text:
            continue
        stale.append(os.path.relpath(path, ROOT))
        if not a.check:
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
    if a.check and stale:
        for s in stale:
            print(f"stale: {s} (run scripts/gen_docs.py --accsum <build>/bin/accsum)", file=sys.stderr)
        return 1
    if not a.check:
        print("rewrote: " + (", ".join(stale) if stale else "nothing (all current)"))
    if cli_skipped:
        print(f"not checked: {cli_skipped}; every generated table and results/README.md are current", file=sys.stderr)
        return SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
