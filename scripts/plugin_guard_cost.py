#!/usr/bin/env python3
"""What guarding a cpu plugin's buffers costs (docs/plugins.md, "What the guards cost").

For each n, runs `accsum bench --plugin=PLUGIN --algo=ALGO --backend=cpu` with each given accsum
binary (e.g. one built before the guards and one after) and prints, per binary, the median time of
one call (what bench reports) and the wall time of the whole process (which includes making the
kernel: the read-only copy of the inputs). Usage:
  scripts/plugin_guard_cost.py --plugin build/plugins/kahan_sum.so --algo kahan-plugin OLD_ACCSUM NEW_ACCSUM
"""
import argparse
import json
import subprocess
import time


def run(accsum, plugin, algo, n, reps):
    cmd = [accsum, "bench", f"--plugin={plugin}", f"--algo={algo}", "--backend=cpu", f"--n={n}",
           f"--reps={reps}", "--warmup=2", "--no-repro-check", "--format=json"]
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - t0
    for r in json.loads(out)["runs"][0]["results"]:
        if r["algo"] == algo:
            return r["time_s"]["median"], wall
    raise SystemExit(f"no {algo} row in {cmd}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--algo", required=True)
    ap.add_argument("--sizes", default="1,1000,2^20,2^24")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3, help="each process this many times; the least wall time")
    ap.add_argument("accsum", nargs="+")
    a = ap.parse_args()
    print("| n | " + " | ".join(f"{b}: call median, process wall" for b in a.accsum) + " |")
    print("| --- |" + " --- |" * len(a.accsum))
    for n in a.sizes.split(","):
        cells = []
        for b in a.accsum:
            best = min((run(b, a.plugin, a.algo, n, a.reps) for _ in range(a.rounds)), key=lambda t: t[1])
            cells.append(f"{best[0]:.3e} s, {best[1]:.3f} s")
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
