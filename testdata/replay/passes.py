#!/usr/bin/env python3
"""passes.py merges several recordings of one subspace into one replay table.

usage: testdata/replay/passes.py OUT.csv PASS1.csv PASS2.csv ...

Each PASS is a replay table of the same subspace, recorded by record.sh
in its own process with FLAGS="--builders -1 --runs 10 --cache EMPTYDIR":
every program compiled in the measuring process, between the
measurements, as in the first recording. OUT.csv gets the first pass's
# lines, one more saying how the table was made, and each row with time_ms
the median of its times over the passes (cost_ms is the first pass's). A
row illegal in the first pass stays illegal; a row that failed (any cell
not a time: fail, timeout, ...) in more than half of the passes is
`fail`; otherwise the failed passes are left out of its median.

Why: on PoCL a row's time changes from one process to the next by more
than 5%, so one pass cannot tell 0.95 of its optimum from the optimum; the
median over passes made minutes apart does better (testdata/replay/README.md
says how much, measured again with remeasure.py). Passes over a warm cache
(every program loaded, the kernels run back to back) are not used: on the
2-core machine they timed the same rows 16-38% slower than the first pass
and spread them more (docs/replay/pocl-ms/README.md).
"""
import csv
import statistics
import sys

from remeasure import is_time


def read(path):
    head, lines = [], []
    with open(path) as f:
        for line in f:
            (head if line.startswith("#") else lines).append(line)
    r = csv.reader(lines)
    cols = next(r)
    return head, cols, [row for row in r if row]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, paths = sys.argv[1], sys.argv[2:]
    head, cols, first = read(paths[0])
    t, c = cols.index("time_ms"), cols.index("cost_ms")
    key = lambda row: tuple(v for i, v in enumerate(row) if i not in (t, c))
    times = {key(row): [row[t]] for row in first}
    for p in paths[1:]:
        _, pcols, rows = read(p)
        if pcols != cols:
            sys.exit(f"passes.py: {p}: columns {pcols} differ from {paths[0]}'s {cols}")
        if len(rows) != len(first):
            sys.exit(f"passes.py: {p}: {len(rows)} rows, {paths[0]} has {len(first)}")
        for row in rows:
            k = key(row)
            if k not in times:
                sys.exit(f"passes.py: {p}: row {','.join(row)} is not in {paths[0]}")
            times[k].append(row[t])
    with open(out, "w") as f:
        f.writelines(head)
        f.write(f"# time_ms: the median over {len(paths)} passes, each a process over every row "
                f"(testdata/replay/passes.py {' '.join(p.rsplit('/', 1)[-1] for p in paths)})\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for row in first:
            ts = times[key(row)]
            ok = [float(x) for x in ts if is_time(x)]
            if ts[0] == "illegal":
                v = "illegal"
            elif len(ok) * 2 < len(ts):
                v = "fail"
            else:
                v = repr(statistics.median(ok))
            row = list(row)
            row[t] = v
            w.writerow(row)


if __name__ == "__main__":
    main()
