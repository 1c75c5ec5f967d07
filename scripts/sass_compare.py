#!/usr/bin/env python3
"""Compares the device code of two builds of one CUDA object (a .cu.o or a .cubin), kernel by kernel:
registers, stack, shared memory (cuobjdump -res-usage), SASS instruction count, whether the SASS is
identical, and the FP64 instruction counts. Used to check that a refactoring of backends/cuda keeps
the generated code (docs/cuda-layers.md).

    scripts/sass_compare.py OLD.o NEW.o     # cuobjdump and nvdisasm on PATH (or $CUOBJDUMP)

Kernels are matched by demangled name with template policy wrappers normalized
(superacc_blocks<SuperaccPolicy<F, E, D[, true]>> == superacc_blocks<F, E, D>).
"""
import os
import re
import subprocess
import sys
from collections import Counter

CUOBJDUMP = os.environ.get("CUOBJDUMP", "cuobjdump")


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.split("\n")))


def key(demangled):
    d = demangled.replace("accsum::cuda::", "").replace("(anonymous namespace)::", "")
    m = re.search(r"superacc_blocks<(?:SuperaccPolicy<)?(\d+), (true|false), (true|false)(?:, (true|false))?>", d)
    if m:  # a policy without LANES predates the lane-free kernels: its kernels had private lanes
        lanes = "" if m.group(4) in (None, "true") else ",lanes=false"
        return "superacc_blocks<fpe=%s,ee=%s,dot=%s%s>" % (m.groups()[:3] + (lanes,))
    return re.sub(r"\(.*", "", d)


def per_function(path, flag, header):
    """(function, line) for every line cuobjdump FLAG prints inside a function's section."""
    cur = None
    for line in run(CUOBJDUMP, flag, path).splitlines():
        m = re.match(header, line)
        if m:
            cur = m.group(1)
            yield cur, None
        elif cur:
            yield cur, line


def resources(path):
    res = {}
    for fn, line in per_function(path, "-res-usage", r"\s*Function (\S+):"):
        m = line and re.search(r"REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", line)
        if m:
            res[fn] = tuple(int(g) for g in m.groups())
    return res


def sass(path):
    code = {}
    for fn, line in per_function(path, "-sass", r"\s*Function : (\S+)"):
        code.setdefault(fn, [])
        if line and re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
            ins = re.sub(r"\s*/\*.*", "", re.sub(r"^\s*/\*[0-9a-f]+\*/\s+", "", line)).strip()
            if not ins.startswith("NOP"):
                code[fn].append(ins)
    return code


def fp64(ins):
    ops = Counter(re.sub(r"^@!?U?P\w+\s+", "", i).split()[0].split(".")[0] for i in ins)
    return "%d/%d/%d" % (ops["DADD"], ops["DMUL"], ops["DFMA"])


def load(path):
    res, code = resources(path), sass(path)
    names = demangle(list(res))
    return {key(names[n]): (res[n], code.get(n, [])) for n in res}


def main():
    old, new = load(sys.argv[1]), load(sys.argv[2])
    print("%-44s %9s %11s %11s %13s %9s  %s" % ("kernel", "REG", "STACK", "SHARED", "SASS", "same", "DADD/DMUL/DFMA"))
    for k in sorted(set(old) | set(new)):
        if k not in old or k not in new:
            print("%-44s only in %s" % (k[:44], "new" if k in new else "old"))
            continue
        (ra, ca), (rb, cb) = old[k], new[k]
        print("%-44s %4d/%-4d %5d/%-5d %5d/%-5d %6d/%-6d %9s  %s -> %s" % (
            k[:44], ra[0], rb[0], ra[1], rb[1], ra[2], rb[2], len(ca), len(cb),
            "identical" if ca == cb else "", fp64(ca), fp64(cb)))


if __name__ == "__main__":
    main()
