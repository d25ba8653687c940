#!/usr/bin/env python3
"""kin.py TABLE.csv ...: how far the optima of other kernels' tables on the
same device (the H200's, testdata/replay/*h200*.csv) are from each TABLE's
optimum: each other kernel's fastest row, its values of the parameters
TABLE varies taken and TABLE's pins kept, looked up among TABLE's rows.
Prints per TABLE how many other tables carry to a row of it, how many of
those rows are within 0.95 of its optimum, and the four best (fraction of
the optimum, table). A table of the same kernel (its name's prefix) is
left out: that is the records' nearest shapes (replay --tuned).
Run from the repository root."""
import csv
import glob
import os
import sys


def load(f):
    with open(f) as fh:
        return list(csv.DictReader(l for l in fh if not l.startswith('#')))


def ms(r):
    try:
        return float(r['time_ms'])
    except ValueError:
        return None


tabs = {f: load(f) for f in glob.glob('testdata/replay/*h200*.csv')}
for tgt in sys.argv[1:]:
    rows = tabs[tgt] if tgt in tabs else load(tgt)
    params = [k for k in rows[0] if k not in ('time_ms', 'cost_ms')]
    varied = [k for k in params if len({r[k] for r in rows}) > 1]
    index = {tuple(r[k] for k in varied): r for r in rows}
    opt = min(ms(r) for r in rows if ms(r))
    kernel = os.path.basename(tgt).split('-h')[0].rstrip('0123456789k')
    found = []
    for f, other in tabs.items():
        if f == tgt or os.path.basename(f).startswith(kernel):
            continue
        if not all(k in other[0] for k in varied):
            continue
        ok = [r for r in other if ms(r)]
        if not ok:
            continue
        best = min(ok, key=ms)
        r = index.get(tuple(best[k] for k in varied))
        if r and ms(r):
            found.append((opt / ms(r), os.path.basename(f)))
    found.sort(reverse=True)
    top = ', '.join('%s %.3f' % (n, x) for x, n in found[:4])
    print('%s (varies %s): %d tables carried, %d within 0.95: %s' % (
        os.path.basename(tgt), ','.join(varied), len(found), sum(x >= 0.95 for x, _ in found), top))
