"""gen_docs.py's sources: the committed results (read through report_io.py, the one report reader),
their provenance (command, machine, date, git revision) and the formatting every table shares."""
import json
import os
import re
import subprocess

import report_io

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
    """The JSON document results/NAME (a report, a bundle of reports, or a peers document), read and
    checked by report_io: every accsum report in it has the layout this script reads."""
    if name not in _cache:
        path = os.path.join(RESULTS, name)
        try:
            doc = report_io.load_json(path)
            for sub in subreports(doc):
                if isinstance(sub, dict) and sub.get("schema") == report_io.SCHEMA:
                    report_io.check_report(sub, path)
        except report_io.ScriptError as e:
            raise SystemExit(f"gen_docs: {e}")
        _cache[name] = doc
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


# ---------------------------------------------------------------- the binary

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
