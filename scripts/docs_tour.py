"""The README's tour and the getting-started excerpts: real output of the binary, recorded in
results/tour_cpu.json by `gen_docs.py --accsum BIN --record-tour` (the commands' stdout and the report
the tour writes, r.json) and shown by the `tour` blocks.

`gen_docs.py --accsum BIN --check-tour` runs the commands again and fails when the binary no longer
prints or writes what the pages show (timing cells and fields excepted: they move with the machine's
load)."""
import json
import os
import re
import subprocess
import tempfile
import time

import report_io
from docs_sources import RESULTS, build_config, report, short_cpu

TOUR_FILE = "tour_cpu.json"
# (key, arguments after `accsum`), run in this order in one empty directory.
TOUR = (
    ("list", ["list"]),
    ("bench-range", ["bench", "--algo=naive,kahan,sumk,superacc", "--backend=cpu", "--range=1e50", "--n=2^22"]),
    ("gen-illcond", ["gen", "--dist=illcond", "--cond=1e30", "--n=1e5", "-o", "x.npy"]),
    ("bench-file", ["bench", "--input=x.npy", "--algo=naive,sumk,dpsumk,superacc", "--K=2,3", "--json=r.json"]),
    ("verify", ["verify", "--algo=superacc,sumk,kahan,dpsumk", "--backend=cpu"]),
)
TIMING_HEADS = ("median", "ns/unit", "vs base")
TOUR_REPORT = "r.json"  # written by the bench-file command
# The fields of a report row that are measured times (the rest is fixed by the data and the build).
TIMING_FIELDS = ("time_s", "throughput", "ratio_to_baseline", "transfer_s")


def _run_tour(accsum):
    outputs = {}
    env = dict(os.environ, ACCSUM_PROGRESS="0", CI="")
    with tempfile.TemporaryDirectory() as work:
        for key, args in TOUR:
            p = subprocess.run(["accsum", *args], executable=os.path.abspath(accsum), cwd=work, capture_output=True, text=True,
                               env=env, timeout=300)
            if p.returncode != 0:
                raise SystemExit(f"gen_docs: tour `accsum {' '.join(args)}` exited {p.returncode}: {p.stderr[:200]}")
            outputs[key] = p.stdout
        with open(os.path.join(work, TOUR_REPORT)) as f:
            r = json.load(f)
    return outputs, r


def record(accsum):
    """Runs the tour and writes results/tour_cpu.json."""
    outputs, r = _run_tour(accsum)
    doc = {"schema": "accsum-tour/1", "date": time.strftime("%Y-%m-%d", time.gmtime()), "tool": r["tool"],
           "config": build_config(accsum),
           "machine": r["machine"], "command": ["scripts/gen_docs.py", "--record-tour"],
           "runs": [{"key": k, "argv": ["accsum", *a], "stdout": outputs[k]} for k, a in TOUR],
           "report": r}
    report_io.write_text(os.path.join(RESULTS, TOUR_FILE), json.dumps(doc, indent=1) + "\n")


def _untimed(text):
    """The output without its timing cells: in every table whose header names them (the last columns,
    from `median` on), each line is cut where that column begins."""
    out, cut = [], None
    for line in text.splitlines():
        if all(h in line for h in TIMING_HEADS):
            cut = line.index(" median") + 1
        elif not line.strip():
            cut = None
        out.append((line[:cut] if cut else line).rstrip())
    return out


def _untimed_report(r):
    """The report's dataset, reference and rows without their timing fields."""
    run = r["runs"][0]
    rows = [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in run["results"]]
    return {"dataset": run["dataset"], "reference": run["reference"], "results": rows}


def recorded_config():
    return report(TOUR_FILE).get("config")


def check(accsum):
    """The committed tour against a fresh run: the stale commands' keys (timing cells excepted). `list`
    names the backends compiled in, so it is compared only for a binary built like the recorded one;
    the second value says whether it was."""
    outputs, r = _run_tour(accsum)
    recorded = {run["key"]: run["stdout"] for run in report(TOUR_FILE)["runs"]}
    same_build = build_config(accsum) == recorded_config()
    keys = [k for k, _ in TOUR if same_build or k != "list"]
    stale = [k for k in keys if k not in recorded or _untimed(recorded[k]) != _untimed(outputs[k])]
    if "report" not in report(TOUR_FILE) or _untimed_report(report(TOUR_FILE)["report"]) != _untimed_report(r):
        stale.append(TOUR_REPORT)
    return stale, same_build


def _run(key):
    for run in report(TOUR_FILE)["runs"]:
        if run["key"] == key:
            return run
    raise SystemExit(f"gen_docs: results/{TOUR_FILE} has no tour command {key}")


def tour(key, *keep):
    """`$ accsum ...` and its output; with `keep`, only the header and the lines that start with one of
    them, the rest marked `…`."""
    run = _run(key)
    lines = run["stdout"].rstrip("\n").splitlines()
    if keep:
        kept = [lines[0]] + [ln for ln in lines[1:] if ln.split(" ", 1)[0] in keep]
        lines = kept + ["…"] if len(kept) < len(lines) else kept
    return ["```", "$ " + " ".join(run["argv"]), *lines, "```"]


def tour_line(key, index):
    """One line of a tour command's output (e.g. a bench block's dataset line)."""
    return ["```", _run(key)["stdout"].splitlines()[int(index)], "```"]


def tour_source():
    doc = report(TOUR_FILE)
    m = doc["machine"]
    return [f"Real output (`…` marks cut lines), from `build/bin/accsum` (git {doc['tool']['git']}) on "
            f"{short_cpu(m.get('cpu'))}, {m.get('hardware_threads')} threads, {doc['date']}, recorded in "
            f"[`results/{TOUR_FILE}`](results/{TOUR_FILE}) by `scripts/gen_docs.py --record-tour`; the times move "
            f"with the machine's load."]


# ---------------------------------------------------------------- the report excerpt

EXCERPT_INDENT = 13  # the width of the widest label, `"reference": `
EXCERPT_WIDTH = 112


def _tokens(value):
    """A JSON value as the pieces a line may break between: a list longer than three shows its first
    two members, `...` and its last; an object breaks between its members."""
    if isinstance(value, list) and len(value) > 3:
        value = [*value[:2], ..., value[-1]]
    if isinstance(value, (dict, list)):
        items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
        out = []
        for i, (k, v) in enumerate(items):
            inner = ["..."] if v is ... else _tokens(v)
            if k is not None:
                inner[0] = f"{json.dumps(k)}: {inner[0]}"
            if i < len(items) - 1:
                inner[-1] += ","
            out += inner
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        out = out or [""]
        out[0] = opening + out[0]
        out[-1] += closing
        return out
    return [json.dumps(value)]


def _object_lines(label, obj, keys, more):
    """`label {"k": v, ...}` wrapped at EXCERPT_WIDTH, the continuation lines under the first key;
    `more` adds `...` for the keys left out."""
    shown = {k: obj[k] for k in keys if k in obj}
    if more:
        shown[...] = ...
    pieces = []
    for i, (k, v) in enumerate(shown.items()):
        inner = ["..."] if k is ... else _tokens(v)
        if k is not ...:
            inner[0] = f"{json.dumps(k)}: {inner[0]}"
        if i < len(shown) - 1:
            inner[-1] += ","
        pieces += inner
    pieces[0] = "{" + pieces[0]
    pieces[-1] += "}"
    lines, line = [], label.ljust(EXCERPT_INDENT) + pieces[0]
    for piece in pieces[1:]:
        if len(line) + 1 + len(piece) > EXCERPT_WIDTH:
            lines.append(line)
            line = " " * (EXCERPT_INDENT + 1) + piece
        else:
            line += " " + piece
    return lines + [line]


DATASET_KEYS = ("family", "generator", "source", "n", "seed", "cond", "cond_method", "dynamic_range")
REFERENCE_KEYS = ("method", "exact_decimal", "rounded_hex", "rounded", "special")
RESULT_KEYS = ("algo", "backend", "params", "guarantee", "promises_reproducible", "guarantee_met", "value_hex",
               "abs_err", "ulps", "digits", "correctly_rounded", "faithful", "bound", "within_bound", "reproducible",
               "reproducible_checks", "time_s", "timer", "transfer_s", "throughput", "baseline", "ratio_to_baseline")
TIME_KEYS = ("median", "min", "max", "reps", "interleaving", "paired_with")


def tour_json(algo):
    """The tour's report, r.json: its dataset, reference and the row of `algo`, as recorded."""
    run = report(TOUR_FILE)["report"]["runs"][0]
    row = next((x for x in run["results"] if x["algo"] == algo), None)
    if row is None:
        raise SystemExit(f"gen_docs: the tour's {TOUR_REPORT} has no row of {algo}")
    row = dict(row, time_s={k: row["time_s"][k] for k in TIME_KEYS if k in row["time_s"]})
    lines = _object_lines('"dataset":', run["dataset"], DATASET_KEYS, set(run["dataset"]) - set(DATASET_KEYS))
    lines += _object_lines('"reference":', run["reference"], REFERENCE_KEYS, set(run["reference"]) - set(REFERENCE_KEYS))
    lines += _object_lines("a result:", row, RESULT_KEYS, set(row) - set(RESULT_KEYS))
    return ["```", *lines, "```"]


def _row_name(row):
    k = row["params"].get("K")
    return f"`{row['algo']}`" + (f" K = {k}" if k is not None else "") + f" ({row['backend']})"


def tour_digits():
    """What the tour's report says of each row: its correct digits, correct rounding and bound."""
    rows = report(TOUR_FILE)["report"]["runs"][0]["results"]
    parts = [f"{_row_name(r)} {r['digits']:.1f}" + (", correctly rounded" if r["correctly_rounded"] else "")
             for r in rows]
    held = [r for r in rows if r.get("within_bound") is not None]
    within = "all within" if all(r["within_bound"] for r in held) else "not all within"
    return [f"In the tour's ill-conditioned sum (the README's step 4) the rows have these correct digits: "
            f"{'; '.join(parts)}. The {len(held)} rows held to a bound are {within} it: a K-fold algorithm may "
            f"lose every digit at cond 1e30 with K = 2 and keep its promise."]
