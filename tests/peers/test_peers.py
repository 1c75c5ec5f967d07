#!/usr/bin/env python3
"""scripts/peers.py on small generated .npy files: every correctly rounded peer must give RN(exact) (0 ulps
from it, the same bits), accsum's superacc must give math.fsum's bits, and the judge must see the error of a
sum that is not correctly rounded (numpy.sum on ill-conditioned data). Usage: test_peers.py ACCSUM_BIN"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from failures import finish  # noqa: E402
PEERS = os.path.join(HERE, "..", "..", "scripts", "peers.py")
# (generator options, n): n above superacc's small-input cutoff, so its fast paths run
DATASETS = [(["--dist=illcond", "--cond=1e30"], 5000), (["--dist=loguniform", "--range=1e300"], 6000),
            (["--dist=subnormal"], 4100), (["--dist=ties"], 4500), (["--dist=uniform-sym"], 1)]


def bits(v):
    return float(v).hex(), math.copysign(1.0, v)


def main():
    accsum = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for k, (opts, n) in enumerate(DATASETS):
            path = os.path.join(tmp, f"d{k}.npy")
            subprocess.run([accsum, "gen", *opts, f"--n={n}", "--seed=7", "-o", path], check=True)
            files.append(path)
        out = os.path.join(tmp, "peers.json")
        subprocess.run([sys.executable, PEERS, "--accsum", accsum, "--algo=naive,superacc", "--backend=cpu",
                        "--reps=2", "--json", out, "--md", os.path.join(tmp, "peers.md"), "--input", *files],
                       check=True)
        with open(out) as f:
            doc = json.load(f)
    assert len(doc["runs"]) == len(DATASETS), "one run per input"
    for run in doc["runs"]:
        rows = {r["name"].split(" (")[0]: r for r in run["rows"]}
        name = os.path.basename(run["input"])
        for r in run["rows"]:
            if r["guarantee"] == "correctly-rounded" and (r["ulps_from_rn"] != 0 or not r["correctly_rounded"]):
                failures.append(f"{name}: {r['name']} is not correctly rounded ({r['value_hex']}, "
                                f"{r['ulps_from_rn']} ulps from RN {run['reference']['rounded_hex']})")
        sa, fs = rows.get("accsum superacc"), rows.get("math.fsum")
        if sa is None or fs is None or bits(sa["value"]) != bits(fs["value"]):
            failures.append(f"{name}: accsum superacc and math.fsum differ: {sa and sa['value_hex']} {fs and fs['value_hex']}")
        if "xsum" in doc["versions"] and doc["versions"]["xsum"] and "xsum-large" not in rows:
            failures.append(f"{name}: xsum is installed but has no row")
    illcond = {r["name"]: r for r in doc["runs"][0]["rows"]}
    if illcond["numpy.sum"]["correctly_rounded"] or not illcond["numpy.sum"]["ulps"] > 1:
        failures.append("numpy.sum on cond 1e30 data judged correctly rounded: the error judge is broken")
    return finish(failures, f"peers: {len(doc['runs'])} inputs, {len(failures)} failures")


if __name__ == "__main__":
    sys.exit(main())
