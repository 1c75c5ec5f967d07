#!/usr/bin/env python3
"""Every report accsum writes against docs/accsum-report-1.schema.json, and its text outputs
against standard parsers.

  test_reports.py ACCSUM_BINARY SOURCE_DIR outputs|committed

outputs:

- a bench report of every family on every backend present (cpu, cpu-mt, opencl, mpi), a verify
  report, a table report and compare's --format=json validate against the schema (jsonschema,
  draft 2020-12); fresh reports store one time sample per repetition;
- bench --format=csv of every family parses with Python's csv module (RFC 4180): one header, the
  same number of fields on every row; --format=md has the same number of cells on every line.
committed:
- every JSON file committed under results/ validates (accsum-report/1 documents, and each report
  of a bundle under "reports"); only scripts/peers.py's accsum-peers/1 files,
  scripts/speed_gate_rates.py's accsum-speed-gate/1, gen_docs.py's accsum-tour/1 and
  scripts/python_speed.py's accsum-python-speed/1 files are not reports.
Exit 0 when all hold; the failures are printed otherwise.
"""
import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import jsonschema

BIN, SRC, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
SCHEMA = json.load(open(os.path.join(SRC, "docs", "accsum-report-1.schema.json")))
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
TMP = tempfile.mkdtemp(prefix="accsum-reports-")
failures = []
checked = {"reports": 0, "committed": 0, "csv": 0}

FAMILIES = ["sum", "dot", "gemm", "moddot", "fpe"]
# Every family of a backend in one process (one OpenCL start-up, one MPI start-up), small data:
# --n for the vector families and fpe, --shape for gemm, --R for fpe.
QUICK = ["--algo=all", "--n=1000", "--reps=2", "--warmup=0", "--no-repro-check"]
FAMILY_OPTIONS = {"gemm": ["--shape=16,16,16"], "fpe": ["--R=2"]}


def run(args, want=(0,)):
    env = dict(os.environ)
    if "ASAN_OPTIONS" in env and "--backend=mpi" in args:
        # As the Makefile's sanitizer run does for MPI tests: full malloc stacks, so that the
        # OpenMPI leak suppressions (tests/sanitizers/lsan.supp) match.
        env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    started = time.monotonic()
    p = subprocess.run([BIN] + args, capture_output=True, timeout=120, env=env)  # bytes: CRLF kept as written
    if os.environ.get("ACCSUM_TEST_TIMES"):
        print(f"{time.monotonic() - started:6.2f} s  accsum {' '.join(args)}")
    if p.returncode not in want:
        failures.append(f"accsum {' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace').strip()[:300]}")
        return None
    return p.stdout.decode()


def validate(doc, what):
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: len(list(e.absolute_path)))
    for e in errors[:3]:
        failures.append(f"{what}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
    return not errors


def check_fresh_report(path, what):
    if not os.path.exists(path):
        return None
    doc = json.load(open(path))
    checked["reports"] += 1
    validate(doc, what)
    for run_ in doc.get("runs", []):
        for row in run_["results"]:
            if "error" in row:
                continue
            t = row["time_s"]
            if len(t.get("samples", [])) != t["reps"]:
                failures.append(f"{what}: {row['algo']}@{row['backend']}: {t['reps']} reps but samples {t.get('samples')}")
    return doc


def families_by_backend():
    listed = json.loads(run(["list", "--format", "json"]))
    present = {}
    for a in listed["algorithms"]:
        for b in a["backends"]:
            if b["present"]:
                present.setdefault(b["backend"], set()).add(a["family"])
    return present


def small(families):
    return QUICK + [o for f in sorted(families) for o in FAMILY_OPTIONS.get(f, [])]


def check_csv(text, what):
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    if len(rows) < 2:
        failures.append(f"{what}: CSV has no data row")
        return
    header = rows[0]
    for i, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            failures.append(f"{what}: CSV record {i} has {len(r)} fields, the header {len(header)}")
    if not text.endswith("\r\n") or "\n" in text.replace("\r\n", ""):
        failures.append(f"{what}: CSV records are not CRLF-terminated")
    checked["csv"] += 1


def check_markdown(text, what):
    if not any(l.startswith("|") for l in text.splitlines()):
        failures.append(f"{what}: no Markdown table")
    for block in re.split(r"\n\s*\n", text):
        lines = [l for l in block.splitlines() if l.startswith("|")]
        cells = {len(re.findall(r"(?<!\\)\|", l)) for l in lines}
        if len(cells) > 1:
            failures.append(f"{what}: Markdown table lines with different cell counts {sorted(cells)}")


def check_outputs():
    # bench: every backend present (CUDA: the GPU machine's test run), every family
    by_backend = families_by_backend()
    for backend, present in sorted(by_backend.items()):
        if backend == "cuda":
            continue
        path = os.path.join(TMP, f"bench_{backend}.json")
        out = run(["bench", "--backend=" + backend, "--json=" + path, "--format=csv"] + small(present), want=(0, 1))
        if out is None:
            continue
        doc = check_fresh_report(path, f"bench on {backend}")
        if not doc:
            continue
        families = {r["dataset"]["family"] for r in doc["runs"]}
        if families != present:
            failures.append(f"bench on {backend}: families {sorted(families)}, expected {sorted(present)}")
        if backend == "cpu":  # every family, and its CSV: one header, every family's rows
            check_csv(out, "bench --format=csv")
            missing = set(FAMILIES) - families
            if missing:
                failures.append(f"bench on cpu: no report of the families {sorted(missing)}")
            md = run(["bench", "--backend=cpu", "--format=md"] + small(present), want=(0, 1))
            if md is not None:
                check_markdown(md, "bench --format=md")
        if backend == "opencl" and not doc["machine"].get("devices"):
            failures.append(f"opencl report's machine names no device: {doc['machine']}")
        if backend == "mpi":
            mpi = doc["machine"]["backends"].get("mpi", "")
            if "not started" in mpi or "rank" not in mpi:
                failures.append(f"mpi report's machine says {mpi!r}")

    # MPI ranks summing on an accelerator: the machine section names it (here PoCL's device)
    if {"mpi", "opencl"} <= set(by_backend):
        path = os.path.join(TMP, "bench_mpi_opencl.json")
        run(["bench", "--backend=mpi", "--algo=superacc", "--inner=opencl", "--json=" + path] + QUICK[1:])
        doc = check_fresh_report(path, "bench on mpi, inner opencl")
        if doc and (not doc["machine"].get("devices") or "rank" not in doc["machine"]["backends"]["mpi"]):
            failures.append(f"mpi (inner opencl) report's machine names no device or no ranks: {doc['machine']}")

    # a sweep stopped part way: the completed rows, marked incomplete
    data = os.path.join(TMP, "sum.npy")
    run(["gen", "--n=100", "-o", data])
    inc = os.path.join(TMP, "incomplete.json")
    run(["bench", "--input=" + data, "--algo=naive,dot", "--backend=cpu", "--json=" + inc], want=(2,))
    doc = check_fresh_report(inc, "bench stopped part way")
    if doc and not doc.get("incomplete"):
        failures.append("a report of a run stopped part way does not say it is incomplete")

    # verify, table, compare
    verify = os.path.join(TMP, "verify.json")
    run(["verify", "--backend=cpu", "--algo=naive,superacc-dot,moddot-lambda", "--seeds=1", "--json=" + verify])
    check_fresh_report(verify, "verify")
    tab = os.path.join(TMP, "table.json")
    run(["table", "--suite=kfold", "--n=1000", "--json=" + tab, "--out=" + os.path.join(TMP, "table.md")])
    check_fresh_report(tab, "table")
    cpu_report = os.path.join(TMP, "bench_cpu.json")
    if os.path.exists(cpu_report):  # a copy with one claim flipped: one changed row
        edited = json.load(open(cpu_report))
        row = edited["runs"][0]["results"][0]
        row["guarantee_met"] = not row["guarantee_met"]
        edited_path = os.path.join(TMP, "edited.json")
        json.dump(edited, open(edited_path, "w"))
        for fmt in ("json", "csv"):
            out = run(["compare", cpu_report, edited_path, "--format=" + fmt], want=(0, 1))
            if out is None:
                continue
            if fmt == "json":
                checked["reports"] += 1
                validate(json.loads(out), "compare --format=json")
            else:
                check_csv(out, "compare --format=csv")
        # Directories: a report replaced by another document, and a file that is a report on neither side.
        base_dir, new_dir = os.path.join(TMP, "cmp_base"), os.path.join(TMP, "cmp_new")
        for d in (base_dir, new_dir):
            os.makedirs(d, exist_ok=True)
        shutil.copy(cpu_report, os.path.join(base_dir, "a.json"))
        for path, text in (("cmp_new/a.json", "{}"), ("cmp_base/b.json", "null"), ("cmp_new/b.json", "null")):
            with open(os.path.join(TMP, path), "w") as f:
                f.write(text)
        out = run(["compare", base_dir, new_dir, "--format=json"], want=(1,))
        if out is not None:
            checked["reports"] += 1
            validate(json.loads(out), "compare --format=json of two directories")


def check_committed():
    for path in sorted(glob.glob(os.path.join(SRC, "results", "**", "*.json"), recursive=True)):
        name = os.path.relpath(path, SRC)
        try:
            doc = json.load(open(path))
        except ValueError as e:
            failures.append(f"{name}: not JSON: {e}")
            continue
        if isinstance(doc, dict) and doc.get("schema") in ("accsum-peers/1", "accsum-speed-gate/1", "accsum-tour/1",
                                                            "accsum-python-speed/1"):
            continue  # comparisons and records of scripts/, not accsum reports
        bundle = doc.get("reports") if isinstance(doc, dict) and "schema" not in doc else None
        for i, rep in enumerate(bundle if isinstance(bundle, list) else [doc]):
            validate(rep, name if bundle is None else f"{name} reports[{i}]")
            checked["committed"] += 1


if MODE == "outputs":
    check_outputs()
elif MODE == "committed":
    check_committed()
else:
    sys.exit(f"unknown mode {MODE!r}: outputs or committed")
shutil.rmtree(TMP, ignore_errors=True)
print(f"checked {checked['reports']} fresh reports, {checked['committed']} committed reports, "
      f"{checked['csv']} CSV outputs")
for f in failures:
    print("FAIL:", f)
nothing = checked["committed"] == 0 if MODE == "committed" else checked["reports"] == 0 or checked["csv"] == 0
sys.exit(1 if failures or nothing else 0)
