#!/usr/bin/env python3
"""Writes best.csv here from the JSON outputs of session21.sh (not kept:
10 MB): per search, the best time after 20, 41, 81 and 162 evaluations
(rejected settings not counted, as -e counts them) and at its end.

    python3 docs/replay/opening/live-minima/extract.py DIR/live/*.json

With --into OUTDIR first, writes OUTDIR/best.csv instead (another live
check's, such as live-anchored/).
"""
import csv
import json
import math
import os
import sys

BUDGETS = [20, 41, 81, 162]
here = os.path.dirname(os.path.abspath(__file__))
files = sys.argv[1:]
if files[:1] == ["--into"]:
    here, files = files[1], files[2:]
rows = []
for f in sorted(files):
    name, build, seed = os.path.basename(f)[:-len(".json")].rsplit("-", 2)
    d = json.load(open(f))
    best, n, at = math.inf, 0, {}
    for h in d["history"]:
        if h["outcome"] == "illegal":
            continue
        n += 1
        if h["outcome"] == "ok" and h["ms"] < best:
            best = h["ms"]
        if n in BUDGETS:
            at[n] = best
    rows.append([name, build, int(seed)] + [f"{at.get(b, best):.6f}" for b in BUDGETS] + [f"{d['best_ms']:.6f}"])
rows.sort(key=lambda r: (r[0], r[2], r[1]))
with open(os.path.join(here, "best.csv"), "w", newline="") as out:
    w = csv.writer(out)
    w.writerow(["problem", "build", "seed"] + [f"best_at_{b}" for b in BUDGETS] + ["best_ms"])
    w.writerows(rows)
