#!/usr/bin/env python3
"""update.py writes remeasure.py's new times into a replay table.

usage: testdata/replay/update.py TABLE.csv REMEASURED.csv

Each row of REMEASURED.csv (remeasure.py's output) names a row of TABLE.csv
by its parameters; that row's time_ms becomes the re-measured median_ms
(its cost_ms is kept). A # line saying so, with REMEASURED.csv's own #
line, is added after the table's # lines. The table's old times stay in
REMEASURED.csv (table_ms).
"""
import csv, io, os, sys


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    table, rem = sys.argv[1:]
    with open(rem) as f:
        rlines = f.readlines()
    note = [l for l in rlines if l.startswith("#")]
    rr = list(csv.DictReader([l for l in rlines if not l.startswith("#")]))
    with open(table) as f:
        lines = f.readlines()
    head = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    rd = csv.DictReader(body)
    params = [c for c in rd.fieldnames if c not in ("time_ms", "cost_ms")]
    new = {tuple(r[p] for p in params): r["median_ms"] for r in rr}
    rows = list(rd)
    done = 0
    for row in rows:
        k = tuple(row[p] for p in params)
        if k in new:
            row["time_ms"] = new.pop(k)
            done += 1
    if new:
        raise SystemExit("update: %d re-measured rows are not in %s" % (len(new), table))
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=rd.fieldnames, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    head.append("# The %d fastest rows were measured again (testdata/replay/remeasure.py, docs/replay/%s): their time_ms is the new median\n" % (done, os.path.basename(rem)))
    head += [l if l.startswith("# ") else "# " + l[1:] for l in note]
    with open(table, "w") as f:
        f.writelines(head)
        f.write(out.getvalue())
    print("%s: %d rows updated" % (table, done))


if __name__ == "__main__":
    main()
