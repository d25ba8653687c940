#!/usr/bin/env python3
"""remeasure.py measures a replay table's fastest rows again.

usage: testdata/replay/remeasure.py TABLE.csv KERNEL "SIZE FLAGS" OUT.csv [TOP [ROUNDS [RUNS]]]

It takes the TOP (20) fastest successful rows of TABLE.csv and measures each
ROUNDS (3) times, round-robin (each round visits every row, in an order
rotated from round to round, so that a spell of load on the shared machine
falls on different rows), with `hplopt tune KERNEL SIZE -d $DEVICE -s exhaustive
--runs RUNS --params ROW` (RUNS 10), every parameter pinned: the row's
columns, and the extensions of the space that the tables predate at their
neutral values ($NEUTRAL, default vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1;
a 1-D kernel has no warp nor gswz; empty for a table of the current
space). $SAMPLE (default 0) more rows, drawn at random (seed 1) from the
rest of the successful rows, are measured the same way beside the TOP. Each
measurement is the median of RUNS timed launches (as the table's times are
the medians of 5); the row's new time is the median of its ROUNDS
measurements. OUT.csv gets one line per row: its parameters, the table's
time, each round's time, the new time, and the load average (uptime) before
each round. The table itself is not changed (update.py does that).
$HPLOPT names the binary (default: hplopt on PATH), $DEVICE the device
(default CPU; GPU for the H100 tables), $BUILDERS, when set, tune's
--builders (-1: no builder processes, the measuring process builds).
"""
import csv, json, os, random, statistics, subprocess, sys, tempfile

NEUTRAL = "vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1"


def is_time(v):
    """Whether a time_ms cell holds a time (not fail, illegal, timeout, ...)."""
    try:
        float(v)
        return True
    except ValueError:
        return False


def rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    r = csv.DictReader(lines)
    params = [c for c in r.fieldnames if c not in ("time_ms", "cost_ms")]
    out = [row for row in r if is_time(row["time_ms"])]
    out.sort(key=lambda row: float(row["time_ms"]))
    return params, out


def measure(binary, kernel, size, pins, runs):
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "r.json")
        cmd = [binary, "tune", kernel] + size.split() + [
            "-d", os.environ.get("DEVICE", "CPU"), "-s", "exhaustive", "-e", "1", "-q", "--no-db",
            "--runs", str(runs), "--params", pins, "--json", js] + (
            ["--builders", os.environ["BUILDERS"]] if os.environ.get("BUILDERS") else [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(js) as f:
            rep = json.load(f)
    if rep.get("evaluations") != 1 or not rep.get("best_ms"):
        raise SystemExit("remeasure: %s: no time: %s" % (pins, rep.get("failures")))
    return rep["best_ms"]


def main():
    a = sys.argv[1:]
    if len(a) < 4:
        raise SystemExit(__doc__)
    table, kernel, size, out = a[:4]
    top = int(a[4]) if len(a) > 4 else 20
    rounds = int(a[5]) if len(a) > 5 else 3
    runs = int(a[6]) if len(a) > 6 else 10
    binary = os.environ.get("HPLOPT", "hplopt")
    neutral = os.environ.get("NEUTRAL", NEUTRAL)
    params, rs = rows(table)
    sample = int(os.environ.get("SAMPLE", "0"))
    rest = rs[top:]
    rs = rs[:top] + (random.Random(1).sample(rest, min(sample, len(rest))) if sample else [])
    pins = [",".join(["%s=%s" % (p, row[p]) for p in params] + ([neutral] if neutral else [])) for row in rs]
    times = [[] for _ in rs]
    loads = []
    for k in range(rounds):
        loads.append(os.getloadavg()[0])
        order = list(range(len(rs)))
        order = order[k * len(rs) // rounds:] + order[:k * len(rs) // rounds]
        for i in order:
            times[i].append(measure(binary, kernel, size, pins[i], runs))
            print("round %d row %d: %.4f ms (table %s)" % (k + 1, i + 1, times[i][-1], rs[i]["time_ms"]), file=sys.stderr, flush=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        f.write("# %s, %s %s, %d rounds of the median of %d launches; load average (1 min) before each round: %s\n"
                % (os.path.basename(table), kernel, size, rounds, runs, " ".join("%.2f" % l for l in loads)))
        w.writerow(params + ["table_ms"] + ["round%d_ms" % (k + 1) for k in range(rounds)] + ["median_ms"])
        for row, t in zip(rs, times):
            w.writerow([row[p] for p in params] + [row["time_ms"]] + ["%.6g" % x for x in t] + ["%.6g" % statistics.median(t)])


if __name__ == "__main__":
    main()
