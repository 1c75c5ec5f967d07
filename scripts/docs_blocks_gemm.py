"""gen_docs.py's blocks of the GEMM families: the cuBLAS front, Ozaki, speed tables, the cpu table,
Nsight Compute figures and stall breakdowns; and the page-level blocks (figures, sources, A/B runs)."""
from docs_sources import *  # noqa: F401,F403 (the shared readers and formatters)


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
