#!/usr/bin/env python3
"""scripts/speed_gate_rates.py runs as the GPU driver (scripts/gpu/speed_gate.sh) and the docs call it:
one triplet per condition on tiny data, then the document's shape: every condition has one trial of
each kind judged on both bases, rates that count those trials, the load average, and the kept samples.
Usage: ACCSUM_BIN PLUGIN_DIR"""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "speed_gate_rates.py")
KINDS = ("same", "slowed 10 %", "slowed 5 %")


def main():
    accsum, plugins = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out, kept = os.path.join(tmp, "gate.json"), os.path.join(tmp, "samples.json")
        r = subprocess.run([sys.executable, SCRIPT, "--accsum", accsum, "--plugins", plugins, "--pairs", "1",
                            "--reps", "5", "--n", "2^10", "--keep-samples", kept, "--out", out],
                           capture_output=True, text=True, timeout=240, env=dict(os.environ, CI="", ACCSUM_PROGRESS="0"))
        if r.returncode != 0:
            sys.exit(f"speed_gate_rates.py exited {r.returncode}: {r.stderr[-2000:]}")
        doc = json.load(open(out))
        if doc.get("schema") != "accsum-speed-gate/1" or doc["bench"]["reps"] != 5:
            failures.append(f"schema or bench: {doc.get('schema')} {doc.get('bench')}")
        if [c["hog"] for c in doc["conditions"]] != [False, True]:
            failures.append("conditions are not quiet then hog")
        for c in doc["conditions"]:
            if sorted(t["kind"] for t in c["trials"]) != sorted(KINDS):
                failures.append(f"hog={c['hog']}: trials {[t['kind'] for t in c['trials']]}")
            for basis in ("ratio", "time"):
                for kind in KINDS:
                    rate = c["rates"][basis][kind]
                    key = "alarm" if kind == "same" else "caught"
                    hits = sum(t[basis][key] for t in c["trials"] if t["kind"] == kind)
                    if rate["pairs"] != 1 or rate["hits"] != hits:
                        failures.append(f"hog={c['hog']} {basis} {kind}: {rate} against {hits} hit(s)")
            if len(c["loadavg_before"]) != 3 or c["hog_processes"] != (1 if c["hog"] else 0):
                failures.append(f"hog={c['hog']}: load average or hog processes {c}")
        samples = json.load(open(kept))
        if len(samples) != 6 or any(len(s["base"]["ratio_samples"]) != 5 for s in samples):
            failures.append(f"kept samples: {len(samples)} trials")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
