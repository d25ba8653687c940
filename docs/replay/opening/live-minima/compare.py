#!/usr/bin/env python3
"""Compares the live searches of best.csv here (session21.sh, extract.py):
per problem and budget, the geometric mean over the seeds of new/old (the
best time found by the new opening, its local points around two measured
local minima, over the old one's, around the two fastest points), and the
seeds where new is better or worse by more than 1%; then each search's
best at the end.

    python3 docs/replay/opening/live-minima/compare.py

Given a directory, compares its best.csv instead (another live check's,
such as live-anchored/, whose new and old are that check's).
"""
import csv
import math
import os
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
BUDGETS = ["20", "41", "81", "162"]
best = {}
for r in csv.DictReader(open(os.path.join(here, "best.csv"))):
    best.setdefault(r["problem"], {}).setdefault(r["build"], {})[int(r["seed"])] = r
print("| problem | searches | " + " | ".join(f"after {b}: new/old, better, worse" for b in BUDGETS) + " |")
print("|---|---|" + "---|" * len(BUDGETS))
every = {b: [] for b in BUDGETS}
for name, by in best.items():
    cells = []
    for b in BUDGETS:
        lr = [math.log(float(by["new"][s][f"best_at_{b}"]) / float(by["old"][s][f"best_at_{b}"])) for s in sorted(by["new"])]
        every[b] += lr
        cells.append(f"{math.exp(sum(lr) / len(lr)):.3f}, {sum(x < -0.01 for x in lr)}, {sum(x > 0.01 for x in lr)}")
    print(f"| {name} | {len(by['new'])} | " + " | ".join(cells) + " |")
cells = [f"{math.exp(sum(lr) / len(lr)):.3f}, {sum(x < -0.01 for x in lr)}, {sum(x > 0.01 for x in lr)}" for lr in every.values()]
print(f"| all | {len(every['20'])} | " + " | ".join(cells) + " |")
print()
print("| problem | seed | new (ms) | old (ms) |")
print("|---|---|---|---|")
for name, by in best.items():
    for s in sorted(by["new"]):
        print(f"| {name} | {s} | {float(by['new'][s]['best_ms']):.4f} | {float(by['old'][s]['best_ms']):.4f} |")
