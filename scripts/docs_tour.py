"""The README's tour and the getting-started excerpts: real output of the binary, recorded in
results/tour_cpu.json by `gen_docs.py --accsum BIN --record-tour` and shown by the `tour` blocks.

`gen_docs.py --accsum BIN --check-tour` runs the commands again and fails when the binary no longer
prints what the README shows (timing cells excepted: they move with the machine's load)."""
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
        with open(os.path.join(work, "r.json")) as f:
            r = json.load(f)
    return outputs, r


def record(accsum):
    """Runs the tour and writes results/tour_cpu.json."""
    outputs, r = _run_tour(accsum)
    doc = {"schema": "accsum-tour/1", "date": time.strftime("%Y-%m-%d", time.gmtime()), "tool": r["tool"],
           "config": build_config(accsum),
           "machine": r["machine"], "command": ["scripts/gen_docs.py", "--record-tour"],
           "runs": [{"key": k, "argv": ["accsum", *a], "stdout": outputs[k]} for k, a in TOUR]}
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


def recorded_config():
    return report(TOUR_FILE).get("config")


def check(accsum):
    """The committed tour against a fresh run: the stale commands' keys (timing cells excepted). `list`
    names the backends compiled in, so it is compared only for a binary built like the recorded one;
    the second value says whether it was."""
    outputs, _ = _run_tour(accsum)
    recorded = {run["key"]: run["stdout"] for run in report(TOUR_FILE)["runs"]}
    same_build = build_config(accsum) == recorded_config()
    keys = [k for k, _ in TOUR if same_build or k != "list"]
    return [k for k in keys if k not in recorded or _untimed(recorded[k]) != _untimed(outputs[k])], same_build


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
