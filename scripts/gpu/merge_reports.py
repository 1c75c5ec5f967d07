"""One accsum-report/1 document of several bench reports: their runs in order, each run tagged with
its bench (the report's file name without .json), and merged_from listing each bench's command.
Usage: merge_reports.py DIR NAME  (reads DIR/*.json except NAME, writes DIR/NAME)."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_io import ScriptError, load_report, run_main, write_text  # noqa: E402


def main(out_dir, name):
    doc, merged = None, []
    for path in sorted(glob.glob(os.path.join(out_dir, "*.json"))):
        if os.path.basename(path) == name:
            continue
        d = load_report(path)
        bench = os.path.basename(path)[:-5]
        if doc is None:
            doc = {k: v for k, v in d.items() if k != "runs"}
            doc["runs"] = []
        doc["all_guarantees_met"] = doc["all_guarantees_met"] and d.get("all_guarantees_met", False)
        merged.append({"bench": bench, "command": d.get("command")})
        for run in d["runs"]:
            run["bench"] = bench
            doc["runs"].append(run)
    if doc is None:
        raise ScriptError(f"no report under {out_dir}")
    doc["merged_from"] = merged
    write_text(os.path.join(out_dir, name), json.dumps(doc, indent=1))
    print("merged", len(doc["runs"]), "runs from", len(merged), "reports")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run_main(main, sys.argv[1], sys.argv[2])
