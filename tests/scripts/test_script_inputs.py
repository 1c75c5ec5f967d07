#!/usr/bin/env python3
"""The scripts' input and output rules (docs/input-output-rules.md, scripts/report_io.py): every
plot script and peers.py, given an empty, truncated, non-JSON or wrong-schema report, prints one line
on stderr and exits non-zero, without a traceback and without touching its output; peers.py refuses
a report of another dataset; a script refuses to write over its own input. Usage: ACCSUM_BIN"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from failures import finish  # noqa: E402
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
PLOTS = ["plot_dpsumk.py", "plot_fpe.py", "plot_gemm.py", "plot_moddot.py", "plot_ratio_n.py", "plot_superacc.py"]
failures = []


def script(name, *args):
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *args], capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def expect_refusal(what, rc, err, fragment=""):
    lines = [l for l in err.splitlines() if l.strip()]
    if rc == 0 or "Traceback" in err or len(lines) != 1 or fragment not in err:
        failures.append(f"{what}: exit {rc}, stderr {err!r} (expected one line with {fragment!r}, non-zero exit)")


def main():
    accsum = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        def path(name):
            return os.path.join(tmp, name)

        bad = {
            "empty": b"",
            "truncated": b'{"schema": "accsum-report/1", "runs": [{"results": [',
            "binary": b"\x00\xff\xfe garbage",
            "wrong-schema": json.dumps({"schema": "something-else/2", "runs": []}).encode(),
            "list": b"[1, 2, 3]",
            "no-results": json.dumps({"schema": "accsum-report/1", "runs": [{"dataset": {}}]}).encode(),
        }
        for name, content in bad.items():
            with open(path(name + ".json"), "wb") as f:
                f.write(content)
        # One bad report per plot script (the reading is shared: scripts/report_io.py), so every
        # kind is seen once and the test stays short; the old output must survive.
        old = b"old figure"
        for plot, name in zip(PLOTS, bad):
            out = path(f"{plot}.png")
            with open(out, "wb") as f:
                f.write(old)
            outargs = ["--out", path(plot)] if plot == "plot_superacc.py" else ["-o", out]
            rc, _, err = script(plot, path(name + ".json"), *outargs)
            expect_refusal(f"{plot} on {name} JSON", rc, err)
            if plot == "plot_superacc.py":
                out = path(plot + "_vs_n.png")
            if os.path.exists(out) and open(out, "rb").read() != old:
                failures.append(f"{plot} on {name} JSON changed its output file")
        rc, _, err = script("plot_gemm.py", path("empty.json"), "-o", path("empty.json"))
        expect_refusal("plot_gemm.py writing over its input", rc, err, "also an input")

        # peers.py: a report of another dataset (same n, other content) is refused.
        a, b, report = path("a.npy"), path("b.npy"), path("a.json")
        for p, seed in ((a, "1"), (b, "2")):
            subprocess.run([accsum, "gen", "--n=1000", f"--seed={seed}", "-o", p], check=True, capture_output=True)
        subprocess.run([accsum, "bench", f"--input={a}", "--algo=naive", "--backend=cpu", "--reps=1",
                        "--no-repro-check", "--format=json", "--out=/dev/null", f"--json={report}"], check=True)
        base = ["--accsum", accsum, "--algo=naive", "--backend=cpu", "--reps=1", "--md", path("p.md")]
        rc, _, err = script("peers.py", *base, "--accsum-json", report, "--input", b)
        expect_refusal("peers.py with the report of another dataset", rc, err, "another dataset")
        # the same numbers in reverse order: the same n and exact sum, another content hash
        r = path("r.npy")
        import numpy
        numpy.save(r, numpy.load(a)[::-1].copy())
        rc, _, err = script("peers.py", *base, "--accsum-json", report, "--input", r)
        expect_refusal("peers.py with the report of a permuted dataset", rc, err, "content hash")
        c = path("c.npy")
        subprocess.run([accsum, "gen", "--n=999", "-o", c], check=True, capture_output=True)
        rc, _, err = script("peers.py", *base, "--accsum-json", report, "--input", c)
        expect_refusal("peers.py with the report of another n", rc, err, "n = 1000")
        rc, _, err = script("peers.py", *base, "--accsum-json", report, "--input", a)
        if rc != 0:
            failures.append(f"peers.py with its own report failed: {err}")
        for name in ("truncated", "wrong-schema"):
            rc, _, err = script("peers.py", *base, "--accsum-json", path(name + ".json"), "--input", a)
            expect_refusal(f"peers.py on {name} JSON", rc, err)
        rc, _, err = script("peers.py", "--accsum", accsum, "--reps=1", "--input", a, "--md", a)
        expect_refusal("peers.py writing over its input", rc, err, "also an input")
    return finish(failures, f"script inputs: {len(failures)} failures")


if __name__ == "__main__":
    sys.exit(main())
