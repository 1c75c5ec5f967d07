#!/usr/bin/env python3
"""Every report accsum writes against docs/accsum-report-1.schema.json, and its text outputs
against standard parsers.

  test_reports.py ACCSUM_BINARY SOURCE_DIR

- a bench report of every family on every backend present (cpu, cpu-mt, opencl, mpi), a verify
  report, a table report and compare's --format=json validate against the schema (jsonschema,
  draft 2020-12); fresh reports store one time sample per repetition;
- every JSON file committed under results/ validates (accsum-report/1 documents, and each report
  of a bundle under "reports"); only scripts/peers.py's own accsum-peers/1 files are not reports;
- bench --format=csv of every family parses with Python's csv module (RFC 4180): one header, the
  same number of fields on every row; --format=md has the same number of cells on every line.
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

import jsonschema

BIN, SRC = sys.argv[1], sys.argv[2]
SCHEMA = json.load(open(os.path.join(SRC, "docs", "accsum-report-1.schema.json")))
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
TMP = tempfile.mkdtemp(prefix="accsum-reports-")
failures = []
checked = {"reports": 0, "committed": 0, "csv": 0}

# Small data for each family: a bench of it takes well under a second.
FAMILY_DATA = {
    "sum": ["--n=1000"],
    "dot": ["--n=1000"],
    "gemm": ["--shape=16,16,16"],
    "moddot": ["--n=1000"],
    "fpe": ["--n=64", "--R=2"],
}
QUICK = ["--reps=2", "--warmup=0", "--no-repro-check"]


def run(args, want=(0,)):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if p.returncode not in want:
        failures.append(f"accsum {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    return p.stdout


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


def algos_by_family_and_backend():
    listed = json.loads(run(["list", "--format", "json"]))
    table = {}
    for a in listed["algorithms"]:
        for b in a["backends"]:
            if b["present"]:
                table.setdefault((a["family"], b["backend"]), []).append(a["algo"])
    return table


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
    for block in re.split(r"\n\s*\n", text):
        lines = [l for l in block.splitlines() if l.startswith("|")]
        cells = {len(re.findall(r"(?<!\\)\|", l)) for l in lines}
        if len(cells) > 1:
            failures.append(f"{what}: Markdown table lines with different cell counts {sorted(cells)}")


# ---- bench: every family on every backend present ----
table = algos_by_family_and_backend()
families_seen = set()
for (family, backend), algos in sorted(table.items()):
    if family not in FAMILY_DATA or backend == "cuda":
        continue  # CUDA: the GPU machine's test run covers it
    path = os.path.join(TMP, f"bench_{family}_{backend}.json")
    args = ["bench", "--algo=" + ",".join(algos), "--backend=" + backend] + FAMILY_DATA[family] + QUICK
    if run(args + ["--json=" + path, "--format=csv"], want=(0, 1)) is None:
        continue
    doc = check_fresh_report(path, f"bench {family} on {backend}")
    families_seen.add(family)
    if backend == "mpi" and doc:
        mpi = doc["machine"]["backends"].get("mpi", "")
        if "not started" in mpi or "rank" not in mpi:
            failures.append(f"mpi report's machine says {mpi!r}")
missing = set(FAMILY_DATA) - families_seen
if missing:
    failures.append(f"no bench report of the families {sorted(missing)}")

# ---- text formats of every family (cpu) ----
for family, data in FAMILY_DATA.items():
    algos = table.get((family, "cpu"))
    if not algos:
        failures.append(f"no cpu algorithm of {family}")
        continue
    base = ["bench", "--algo=" + ",".join(algos), "--backend=cpu"] + data + QUICK
    out = run(base + ["--format=csv"], want=(0, 1))
    if out is not None:
        check_csv(out, f"bench {family} --format=csv")
    out = run(base + ["--format=md"], want=(0, 1))
    if out is not None:
        check_markdown(out, f"bench {family} --format=md")

# ---- verify, table, compare ----
verify = os.path.join(TMP, "verify.json")
run(["verify", "--backend=cpu", "--algo=naive,superacc-dot,moddot-lambda", "--seeds=1", "--json=" + verify])
check_fresh_report(verify, "verify")
tab = os.path.join(TMP, "table.json")
run(["table", "--suite=kfold", "--n=1000", "--json=" + tab, "--out=" + os.path.join(TMP, "table.md")])
check_fresh_report(tab, "table")
sum_cpu = os.path.join(TMP, "bench_sum_cpu.json")
if os.path.exists(sum_cpu):  # a copy with one claim flipped: one changed row
    edited = json.load(open(sum_cpu))
    row = edited["runs"][0]["results"][0]
    row["correctly_rounded"] = not row["correctly_rounded"]
    edited_path = os.path.join(TMP, "edited.json")
    json.dump(edited, open(edited_path, "w"))
    for fmt in ("json", "csv"):
        out = run(["compare", sum_cpu, edited_path, "--format=" + fmt], want=(0, 1))
        if out is None:
            continue
        if fmt == "json":
            checked["reports"] += 1
            validate(json.loads(out), "compare --format=json")
        else:
            check_csv(out, "compare --format=csv")

# ---- every JSON file committed under results/ ----
for path in sorted(glob.glob(os.path.join(SRC, "results", "**", "*.json"), recursive=True)):
    name = os.path.relpath(path, SRC)
    try:
        doc = json.load(open(path))
    except ValueError as e:
        failures.append(f"{name}: not JSON: {e}")
        continue
    if isinstance(doc, dict) and doc.get("schema") == "accsum-peers/1":
        continue  # scripts/peers.py's comparison with other libraries, not an accsum report
    bundle = doc.get("reports") if isinstance(doc, dict) and "schema" not in doc else None
    for i, rep in enumerate(bundle if isinstance(bundle, list) else [doc]):
        validate(rep, name if bundle is None else f"{name} reports[{i}]")
        checked["committed"] += 1

shutil.rmtree(TMP, ignore_errors=True)
print(f"checked {checked['reports']} fresh reports, {checked['committed']} committed reports, "
      f"{checked['csv']} CSV outputs")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures or checked["committed"] == 0 or checked["reports"] == 0 else 0)
