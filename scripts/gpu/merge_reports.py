"""One accsum-report/1 document of several bench reports: their runs in order, each run tagged with
its bench (the report's file name without .json), and merged_from listing each bench's command.
Usage: merge_reports.py DIR NAME  (reads DIR/*.json except NAME, writes DIR/NAME)."""
import glob
import json
import os
import sys

out_dir, name = sys.argv[1], sys.argv[2]
doc, merged = None, []
for path in sorted(glob.glob(os.path.join(out_dir, "*.json"))):
    if os.path.basename(path) == name:
        continue
    d = json.load(open(path))
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
    sys.exit(f"merge_reports: no report under {out_dir}")
doc["merged_from"] = merged
json.dump(doc, open(os.path.join(out_dir, name), "w"), indent=1)
print("merged", len(doc["runs"]), "runs from", len(merged), "reports")
