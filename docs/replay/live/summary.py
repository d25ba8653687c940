#!/usr/bin/env python3
"""summary.py FILE...: the table of docs/replay.md's "Live searches from
the records" from the summary lines of session35.sh's runs (its stdout, or
summary.txt in its out.tgz): per target, the fraction of the optimum each
search found, the optimum being the fastest of the table's three fastest
rows measured again in the same run; the median over the seeds, cold and
from the records."""
import re
import statistics
import sys

cases = {}
order = []
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r'(\S+): seed (\d+) at (\d+): records (\S+) \d+ \S+ cold (\S+) ', line)
        if m:
            t = m.group(1)
            if t not in cases:
                cases[t] = {'at': int(m.group(3)), 'rec': [], 'cold': [], 'opt': []}
                order.append(t)
            c = cases[t]
            # a later run of the same target replaces an earlier one's seeds
            c['rec'].append((int(m.group(2)), float(m.group(4))))
            c['cold'].append((int(m.group(2)), float(m.group(5))))
            continue
        m = re.match(r'(\S+): row \d of the table \((\S+) ms recorded\): (\S+) ', line)
        if m:
            cases[m.group(1)]['opt'].append(float(m.group(3)))


def seeds(pairs):
    last = {}
    for s, v in pairs:
        last[s] = v
    return [last[s] for s in sorted(last)]


print('| table | evaluations | optimum (ms, measured again) | seeds | from the records: median (met 0.95) | cold: median (met 0.95) |')
print('|---|---|---|---|---|---|')
for t in order:
    c = cases[t]
    opt = min(c['opt'][-3:])
    rec = [opt / v for v in seeds(c['rec'])]
    cold = [opt / v for v in seeds(c['cold'])]
    print(f"| {t} | {c['at']} | {opt:.4f} | {len(rec)} | {statistics.median(rec):.3f} ({sum(f >= 0.95 for f in rec)}) | {statistics.median(cold):.3f} ({sum(f >= 0.95 for f in cold)}) |")
