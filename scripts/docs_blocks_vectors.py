"""gen_docs.py's blocks of the vector families: the headline, sums and dots (cpu, peers, accuracy),
moddot, fpe, OpenCL and MPI scaling, and ratio tables."""
import collections
from docs_sources import *  # noqa: F401,F403 (the shared readers and formatters)


HEADLINE_SUM = "superacc_policy_h100.json"  # the GPU columns of the sum and dot rows
HEADLINE_GEMM = "gemm_speed_uniform_h100.json"


def headline():
    body = []
    # sum and dot: the superaccumulator on the GPU (beside CUB / cuBLAS) and on one core.
    # The GPU columns: the default parameters (bounded=auto) at n = 2^28, worst to best over the data.
    for fam, algo, gdata, gbase, cfile, cbase, cnote in (
            ("sum", "superacc", "ranges 1–1e300, cond 1e8 and 1e30", "cub-sum", "cpu_superacc_n2e26_s6.json",
             "naive", "n = 2^26, ranges 1–1e300"),
            ("dot", "superacc-dot", "ranges 1–1e300", "cublas-dot", "cpu_speed_n2e24.json", "dot",
             "n = 2^24, U[0,1)")):
        at_2e28 = lambda ds, r: ds.get("n") == 2**28 and r["backend"] == "cuda"
        g = find(HEADLINE_SUM, lambda ds, r: at_2e28(ds, r) and r["algo"] == algo and r["params"].get("bounded") == "auto")
        gb = find(HEADLINE_SUM, lambda ds, r: at_2e28(ds, r) and r["algo"] == gbase)
        c = find(cfile, lambda ds, r: r["backend"] == "cpu" and r["algo"] == algo)
        cb = find(cfile, lambda ds, r: r["backend"] == "cpu" and r["algo"] == cbase)
        body.append([fam, f"`{algo}`",
                     f"{span([r['ratio_to_baseline'] for _, r in where(HEADLINE_SUM, 'headline', g)])} "
                     f"{'CUB' if fam == 'sum' else 'cuBLAS ddot'} (H100, n = 2^28, default parameters, {gdata})",
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


def speed_gate(*names):
    """compare's false-alarm and detection rates (scripts/speed_gate_rates.py), per file and condition, on
    each basis."""
    body = []
    for name in names:
        doc = report(name)
        for c in doc["conditions"]:
            rates = c["rates"]
            cells = []
            for basis in ("ratio", "time"):
                for kind in ("same", "slowed 10 %", "slowed 5 %"):
                    r = rates[basis].get(kind)  # absent: not measured
                    cells.append(f"{r['hits']}/{r['pairs']} ({pct(r['rate'])})" if r else "–")
            load = f"{' '.join(c['loadavg_before'])} → {' '.join(c['loadavg_after'])}"
            bench = doc["bench"]
            alpha = meta().get(name, {}).get("alpha", "?")  # compare's significance level in that build
            body.append([f"`{name}`", f"{bench['algo']}@{bench['backend']} n={bench['n']} reps={bench['reps']}",
                         f"{alpha}", "CPU hog beside" if c["hog"] else "no hog", load, *cells])
    head = ["file", "bench", "p <", "condition", "load average before → after",
            "false alarms (ratio)", "caught at 10 % (ratio)", "caught at 5 % (ratio)",
            "false alarms (raw time)", "caught at 10 % (raw time)", "caught at 5 % (raw time)"]
    return where(" ".join(names), "speed-gate", table(head, body)) + [""] + provenance(*names)


def speed_gate_summary(name):
    """One sentence per condition of a speed-gate file: its load and the rates on the ratio basis."""
    doc = report(name)
    out = []
    for c in doc["conditions"]:
        r = c["rates"]["ratio"]

        def of(kind):
            return f"{r[kind]['hits']} of {r[kind]['pairs']}" if kind in r else "none measured of"

        def moved(trials):  # the 5th and 95th percentiles of their median ratio's change, in %
            v = sorted(100 * x["ratio_change"] for x in trials)
            return f"{v[int(0.05 * (len(v) - 1))]:+.1f} to {v[int(0.95 * (len(v) - 1))]:+.1f} %"
        same = [x for x in c["trials"] if x["kind"] == "same"]
        missed = [x for x in c["trials"] if x["kind"] == "slowed 10 %" and not x["ratio"]["caught"]]
        out.append(f"{'with a CPU hog beside the benches' if c['hog'] else 'without a hog'} (load average "
                   f"{c['loadavg_before'][0]} before, {c['loadavg_after'][0]} after): {of('same')} same-build pairs "
                   f"raised a false alarm (their median ratio moved by {moved(same)}, 5th to 95th percentile), "
                   f"{of('slowed 10 %')} 10 % slowdowns were caught"
                   + (f" (the missed ones' median ratio moved by {moved(missed)})" if missed else "")
                   + f" and {of('slowed 5 %')} 5 % ones")
    b = doc["bench"]
    return [f"`{name}` ({b['algo']}@{b['backend']}, n = {b['n']}, {b['reps']} repetitions): " + "; ".join(out) + "."]


def cuda_superacc_rows(name):
    """(data, dataset, row) for every superacc / superacc-dot row on cuda (not a baseline) of a report; data
    names the condition number asked for, else the log-uniform range."""
    for doc in subreports(report(name)):
        for run in doc.get("runs", []):
            ds = run.get("dataset", {})
            data = f"cond {ds['cond_requested']:.0e}" if ds.get("cond_requested") else f"range {rng(ds)}"
            for r in run.get("results", []):
                if not r.get("is_baseline") and r["algo"] in ("superacc", "superacc-dot") and r["backend"] == "cuda":
                    yield data, ds, r


def superacc_policy(name):
    """superacc / superacc-dot with each `bounded` choice (scripts/gpu/superacc_policy.sh): per algorithm and n,
    the worst ratio to the baseline over every dataset (log-uniform ranges, condition numbers) and the best,
    the data of the worst, whether the default ran the bounded pass first, and whether every result was
    correctly rounded."""
    cells = collections.defaultdict(list)  # (algo, n, bounded) -> [(ratio, data, ran bounded pass, cr)]
    for data, ds, r in cuda_superacc_rows(name):
        cells[(r["algo"], ds["n"], str(r["params"]["bounded"]))].append(
            (r["ratio_to_baseline"], data, r.get("bounded_pass"), r.get("correctly_rounded")))
    body = []
    for algo, n in sorted({(a, n) for a, n, _ in cells}):
        def spread(b):
            v = cells.get((algo, n, b))
            return f"{ratio(min(v)[0])} – {ratio(max(v)[0])}" if v else "–"
        auto = cells[(algo, n, "auto")]
        ran = {x[2] for x in auto}
        body.append([f"`{algo}`", pow2(n), spread("auto"), min(auto)[1], "yes" if ran == {1} else "no" if ran == {0} else "?",
                     spread("0"), spread("1"),
                     "yes" if all(x[3] for b in ("auto", "0", "1") for x in cells.get((algo, n, b), [])) else "NO"])
    head = ["algo", "n", "default: worst – best", "worst on", "bounded pass first", "bounded=0", "bounded=1",
            "correctly rounded"]
    return where(name, "superacc-policy", table(head, body)) + [""] + provenance(name)


def superacc_exact(name):
    """The exact kernel's variants (scripts/gpu/superacc_exact.sh): per lanes / fpe and n, the worst and the best
    ratio to CUB over the datasets, the data of the worst, and whether every result was correctly rounded."""
    cells = collections.defaultdict(list)  # (lanes, fpe, n) -> [(ratio, data, cr)]
    for doc in subreports(report(name)):
        for run in doc.get("runs", []):
            ds = run.get("dataset", {})
            data = f"cond {ds['cond_requested']:.0e}" if ds.get("cond_requested") else f"range {rng(ds)}"
            for r in run.get("results", []):
                if r["algo"] == "superacc":
                    p = r["params"]
                    cells[(-p["lanes"], p["fpe"], ds["n"])].append((r["ratio_to_baseline"], data, r["correctly_rounded"]))
    body = [[f"lanes={-k[0]} fpe={k[1]}", pow2(k[2]), f"{ratio(min(v)[0])} – {ratio(max(v)[0])}", min(v)[1],
             "yes" if all(x[2] for x in v) else "NO"] for k, v in sorted(cells.items())]
    head = ["exact kernel", "n", "worst – best × CUB", "worst on", "correctly rounded"]
    return where(name, "superacc-exact", table(head, body)) + [""] + provenance(name)


def superacc_small_n(name):
    """The exact kernel's tail at small n (scripts/gpu/superacc_small_n.sh): per algorithm, n and `bounded`,
    the worst and the best ratio to the baseline with lean_tail=0 and with lean_tail=1 over the datasets, the
    data of lean_tail=1's worst, the time of lean_tail=0 over lean_tail=1 on the same data (the two ends over
    the datasets: above 1, the lean tail is faster), and whether every result was correctly rounded."""
    cells = collections.defaultdict(list)  # (algo, n, bounded, lean_tail) -> [(ratio, data, cr)]
    times = collections.defaultdict(dict)  # (algo, n, bounded, data) -> {lean_tail: median time}
    for data, ds, r in cuda_superacc_rows(name):
        p = r["params"]
        key = (r["algo"], ds["n"], str(p["bounded"]))
        cells[key + (int(p["lean_tail"]),)].append((r["ratio_to_baseline"], data, r.get("correctly_rounded")))
        times[key + (data,)][int(p["lean_tail"])] = r["time_s"]["median"]
    body = []
    for algo, n, bounded in sorted({k[:3] for k in cells}):
        def spread(lean):
            v = cells.get((algo, n, bounded, lean))
            return f"{ratio(min(v)[0])} – {ratio(max(v)[0])}" if v else "–"
        gains = [t[0] / t[1] for k, t in times.items() if k[:3] == (algo, n, bounded) and 0 in t and 1 in t]
        lean = cells.get((algo, n, bounded, 1), [])
        body.append([f"`{algo}`", pow2(n), bounded, spread(0), spread(1), min(lean)[1] if lean else "–",
                     f"{min(gains):.3f} – {max(gains):.3f}" if gains else "–",
                     "yes" if all(x[2] for lt in (0, 1) for x in cells.get((algo, n, bounded, lt), [])) else "NO"])
    head = ["algo", "n", "bounded", "lean_tail=0: worst – best", "lean_tail=1: worst – best", "lean_tail=1 worst on",
            "time lean_tail=0 / lean_tail=1", "correctly rounded"]
    return where(name, "superacc-small-n", table(head, body)) + [""] + provenance(name)
