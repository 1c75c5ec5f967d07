#!/usr/bin/env python3
"""The CI recipes run as written: docs/compare.md's commands and its GitHub Actions step, and the
example workflow examples/ci/accsum-gate.yml (its Bench and Compare steps).

  test_ci_recipes.py ACCSUM_BINARY SOURCE_DIR

The build and checkout steps are the runner's; here the binary under test stands in for
build/bin/accsum (and for ../base/build/bin/accsum: one build plays base and new). A recipe passes
when every command exits as the docs say (0, or 1 for a regression), the reports it writes are
accsum reports, and accuracy, judged alone, shows no regression: a speed verdict on a loaded
machine is the gate doing its job, not a broken recipe.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


def bash(script, cwd, env=None):
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def stage(work, accsum):
    """work/build/bin/accsum and work/../base/build/bin/accsum: the binary under test."""
    for build in (os.path.join(work, "build", "bin"), os.path.join(work, "..", "base", "build", "bin")):
        os.makedirs(build, exist_ok=True)
        link = os.path.join(build, "accsum")
        if not os.path.exists(link):
            os.symlink(accsum, link)


def accuracy_holds(work, accsum, base, new):
    r = subprocess.run([accsum, "compare", "--accuracy-only", base, new], cwd=work, capture_output=True, text=True)
    check(r.returncode == 0, f"accuracy regressed between {base} and {new}:\n{r.stdout}{r.stderr}")


def fenced_blocks(markdown):
    return re.findall(r"^```(\w*)\n(.*?)^```", markdown, re.S | re.M)


def compare_md(src, accsum, tmp):
    text = open(os.path.join(src, "docs", "compare.md")).read()
    work = os.path.join(tmp, "md", "work")
    os.makedirs(work)
    stage(work, accsum)
    env = {"PATH": os.path.dirname(accsum) + os.pathsep + os.environ["PATH"]}
    ran = 0
    for lang, body in fenced_blocks(text):
        if lang == "yaml":  # the GitHub Actions step: its run script, less the checkout and builds
            step = yaml.safe_load(body)[0]
            lines = [ln for ln in step["run"].splitlines() if not ln.strip().startswith(("git worktree", "cmake "))]
            summary = os.path.join(tmp, "md-summary.md")
            r = bash("set -e\n" + "\n".join(lines), work, dict(env, GITHUB_STEP_SUMMARY=summary))
            check(r.returncode in (0, 1), f"compare.md's CI step exited {r.returncode}:\n{r.stdout}{r.stderr}")
            check(os.path.getsize(summary) > 0, "compare.md's CI step wrote no job summary")
            accuracy_holds(work, accsum, "base.json", "new.json")
            ran += 1
            continue
        for line in body.splitlines():
            cmd = line.split("#")[0].strip()
            if not cmd.startswith("accsum ") or "results/accuracy" in cmd or "--suite" in cmd:
                continue  # output examples; the committed-table check is CommittedAccuracyTablesAreReproduced
            if " compare " in f" {cmd} " and "/ " in cmd + " ":  # directories: the two reports, one each
                for side, report in (("base-reports", "base.json"), ("new-reports", "new.json")):
                    os.makedirs(os.path.join(work, side), exist_ok=True)
                    subprocess.run(["cp", os.path.join(work, report), os.path.join(work, side, "run.json")])
            r = bash(cmd, work, env)
            check(r.returncode in (0, 1), f"compare.md: `{cmd}` exited {r.returncode}:\n{r.stderr}")
            ran += 1
    check(ran >= 5, f"compare.md: only {ran} recipe commands found")


def workflow(src, accsum, tmp):
    path = os.path.join(src, "examples", "ci", "accsum-gate.yml")
    flow = yaml.safe_load(open(path))
    steps = {s.get("name"): s for s in flow["jobs"]["gate"]["steps"]}
    for name in ("Build", "Bench", "Compare", "Upload the report"):
        check(name in steps, f"the example workflow has no '{name}' step")
    work = os.path.join(tmp, "flow", "work")
    os.makedirs(os.path.join(work, "examples", "ci"))
    stage(work, accsum)
    baseline = os.path.join(src, "examples", "ci", "baseline.json")
    subprocess.run(["cp", baseline, os.path.join(work, "examples", "ci", "baseline.json")], check=True)
    summary = os.path.join(tmp, "flow-summary.md")
    r = bash(steps["Bench"]["run"], work)
    check(r.returncode == 0, f"the workflow's Bench step exited {r.returncode}:\n{r.stderr}")
    report = os.path.join(work, steps["Upload the report"]["with"]["path"])
    check(os.path.exists(report), "the Bench step wrote no report where Upload looks for it")
    if os.path.exists(report):
        check(json.load(open(report)).get("schema") == "accsum-report/1", "the uploaded report is no accsum report")
    r = bash("set -e\n" + steps["Compare"]["run"], work, {"GITHUB_STEP_SUMMARY": summary})
    check(r.returncode in (0, 1), f"the workflow's Compare step exited {r.returncode}:\n{r.stdout}{r.stderr}")
    check(os.path.exists(summary) and "speed:" in open(summary).read(), "the Compare step wrote no job summary")
    accuracy_holds(work, accsum, baseline, report)


def main():
    accsum, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        compare_md(src, accsum, tmp)
        workflow(src, accsum, tmp)
    if FAILURES:
        sys.exit(f"{len(FAILURES)} failure(s)")
    print("the CI recipes run as written")


if __name__ == "__main__":
    main()
