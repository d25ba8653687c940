#!/usr/bin/env python3
"""Tables of docs/replay.md from the outputs of `hplopt replay` in docs/replay/.

    python3 docs/replay/summary.py > docs/replay/summary.md

Reads docs/replay/TABLE.txt (the output of the command on its first line,
--at 20,2.5%,5%) for the tables of TABLES, and docs/replay/opening/TABLE.txt
(the same command with -s opening, the default since 2026-11-27) where it
is there, and prints, in Markdown: one results
table per table (median fraction of the optimum [quartiles] and score at 20
evaluations, 2.5%, 5% and the full budget, and beats-random-from-20), the
issue's target per strategy and table (0.95 of the optimum at 2.5% of the
space, median of 20 seeds; beats random at every budget from 20), and the
mean scores over the tables at each budget.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = [
    ("matmul128-pocl", "MATMUL 128 PoCL", "pocl"),
    ("conv2d256-pocl", "2DCONV 256 PoCL", "pocl"),
    ("mv1024-pocl", "MV 1024 PoCL", "pocl"),
    ("matmul1024-h100", "MATMUL 1024 H100", "h100"),
    ("conv2d1024-h100", "2DCONV 1024 H100", "h100"),
    ("matmul128-pocl-xeon", "MATMUL 128 PoCL Xeon", "xeon"),
    ("conv2d256-pocl-xeon", "2DCONV 256 PoCL Xeon", "xeon"),
    ("mv1024-pocl-xeon", "MV 1024 PoCL Xeon", "xeon"),
    ("conv2d1024-h100-quiet", "2DCONV 1024 H100 quiet", "h100"),
    ("syrk1024-h100", "SYRK 1024 H100", "h100"),
    ("nbody32768-h100", "NBODY 32768 H100", "h100"),
    ("mv8192-h100", "MV 8192 H100", "h100"),
    ("nbody32768-h100-wide", "NBODY 32768 H100 wide", "h100"),
    ("mv8192-h100-wide", "MV 8192 H100 wide", "h100"),
    ("conv2d1024-h100-wide", "2DCONV 1024 H100 wide", "h100"),
    ("matmul1024-h100-wide", "MATMUL 1024 H100 wide", "h100"),
    ("transpose4096-h100", "TRANSPOSE 4096 H100", "h100"),
    ("syr2k1024-h100", "SYR2K 1024 H100", "h100"),
    ("dcs3d64-h100", "DCS3D 64 H100", "h100"),
    ("matmul512-pocl", "MATMUL 512 PoCL", "pocl"),
    ("mv4096-pocl", "MV 4096 PoCL", "pocl"),
    ("conv2d2048-pocl", "2DCONV 2048 PoCL", "pocl"),
    ("conv3d128-h100", "3DCONV 128 H100", "h100"),
    ("jacobi2d4096-h100", "jacobi2d 4096 H100", "h100"),
    ("covariance1024-h100", "COVARIANCE 1024 H100", "h100"),
    ("sepfilter4096-h100", "SEPFILTER 4096 H100", "h100"),
    ("stencil3d256-h100", "STENCIL3D 256 H100", "h100"),
    ("conv1d32768-h100", "1DCONV 32768 H100", "h100"),
    ("matmul-guard2000-h100", "MATMUL-GUARD 2000 H100", "h100"),
    ("mvt8192-h100", "MVT 8192 H100", "h100"),
    ("boxfilter4096-h100", "BOXFILTER 4096 H100", "h100"),
    ("fdtd-ey4096-h100", "FDTD-EY 4096 H100", "h100"),
    ("conv3d128-h200", "3DCONV 128 H200", "h200"),
    ("boxfilter4096-h200", "BOXFILTER 4096 H200", "h200"),
    ("transpose4096-h200", "TRANSPOSE 4096 H200", "h200"),
    ("mvt8192-h200", "MVT 8192 H200", "h200"),
    ("sepfilter4096-h200", "SEPFILTER 4096 H200", "h200"),
    ("conv3d128k3-h200", "3DCONV 128 k=3 H200", "h200"),
    ("conv3d128k7-h200", "3DCONV 128 k=7 H200", "h200"),
    ("bicg8192-h200", "BICG 8192 H200", "h200"),
    ("gs-r4096-h200", "GS-R 4096 H200", "h200"),
    ("stencil2d4096-h200", "STENCIL2D 4096 H200", "h200"),
    ("gs-update4096-h200", "GS-UPDATE 4096 H200", "h200"),
    ("fdtd-hz4096-h200", "FDTD-HZ 4096 H200", "h200"),
    ("gs-update8192-h200", "GS-UPDATE 8192 H200", "h200"),
    ("gs-update2048-h200", "GS-UPDATE 2048 H200", "h200"),
    ("jacobi2d4096-h200-box", "jacobi2d 4096 H200 box", "h200"),
    ("transpose4096-h200-box", "TRANSPOSE 4096 H200 box", "h200"),
    ("fdtd-ey4096-h200-box", "FDTD-EY 4096 H200 box", "h200"),
    ("gs-r8192-h200", "GS-R 8192 H200", "h200"),
    ("gs-update4096-h200-fdtd", "GS-UPDATE 4096 H200 fdtd", "h200"),
    ("gs-update8192-h200-fdtd", "GS-UPDATE 8192 H200 fdtd", "h200"),
    ("gs-update6144-h200", "GS-UPDATE 6144 H200", "h200"),
    ("fdtd-hz4096-h200-box", "FDTD-HZ 4096 H200 box", "h200"),
    ("transpose8192-h200-box", "TRANSPOSE 8192 H200 box", "h200"),
    ("stencil2d4096-h200-fdtd", "STENCIL2D 4096 H200 fdtd", "h200"),
    ("boxfilter4096-h200-fdtd", "BOXFILTER 4096 H200 fdtd", "h200"),
    ("jacobi2d4096-h200-fdtd", "jacobi2d 4096 H200 fdtd", "h200"),
    ("transpose4096-h200-fdtd", "TRANSPOSE 4096 H200 fdtd", "h200"),
    ("mv8192-h200-mvt", "MV 8192 H200 mvt", "h200"),
    ("bicg4096-h200", "BICG 4096 H200", "h200"),
    ("mvt4096-h200", "MVT 4096 H200", "h200"),
    ("stencil2d8192-h200", "STENCIL2D 8192 H200", "h200"),
    ("jacobi2d8192-h200-fdtd", "jacobi2d 8192 H200 fdtd", "h200"),
    ("boxfilter8192-h200", "BOXFILTER 8192 H200", "h200"),
    ("fdtd-ey8192-h200", "FDTD-EY 8192 H200", "h200"),
    ("stencil2d8192-h200-fdtd", "STENCIL2D 8192 H200 fdtd", "h200"),
    ("fdtd-hz8192-h200", "FDTD-HZ 8192 H200", "h200"),
    ("boxfilter8192-h200-fdtd", "BOXFILTER 8192 H200 fdtd", "h200"),
    ("jacobi2d8192-h200-box", "jacobi2d 8192 H200 box", "h200"),
    ("transpose8192-h200-fdtd", "TRANSPOSE 8192 H200 fdtd", "h200"),
    ("fdtd-ey8192-h200-box", "FDTD-EY 8192 H200 box", "h200"),
    ("mvt16384-h200", "MVT 16384 H200", "h200"),
    ("bicg16384-h200", "BICG 16384 H200", "h200"),
    ("conv2d2048-h200", "2DCONV 2048 H200", "h200"),
    ("stencil2d6144-h200-fdtd", "STENCIL2D 6144 H200 fdtd", "h200"),
    ("jacobi2d6144-h200-box", "jacobi2d 6144 H200 box", "h200"),
    ("boxfilter6144-h200-fdtd", "BOXFILTER 6144 H200 fdtd", "h200"),
    ("fdtd-hz6144-h200-box", "FDTD-HZ 6144 H200 box", "h200"),
    ("transpose6144-h200-fdtd", "TRANSPOSE 6144 H200 fdtd", "h200"),
    ("fdtd-ey6144-h200", "FDTD-EY 6144 H200", "h200"),
    ("conv3d256k3-h200", "3DCONV 256 k=3 H200", "h200"),
    ("sepfilter8192-h200", "SEPFILTER 8192 H200", "h200"),
    ("gs-update6144-h200-fdtd", "GS-UPDATE 6144 H200 fdtd", "h200"),
    ("transpose8192-h200", "TRANSPOSE 8192 H200", "h200"),
    ("jacobi2d8192-h200", "jacobi2d 8192 H200", "h200"),
    ("syrk2048-h200", "SYRK 2048 H200", "h200"),
    ("gs-r16384-h200", "GS-R 16384 H200", "h200"),
    ("conv1d65536-h200", "1DCONV 65536 H200", "h200"),
    ("covariance2048-h200", "COVARIANCE 2048 H200", "h200"),
    ("stencil3d512-h200", "STENCIL3D 512 H200", "h200"),
    ("gs-update3072-h200", "GS-UPDATE 3072 H200", "h200"),
    ("syrk1536-h200", "SYRK 1536 H200", "h200"),
    ("bicg6144-h200", "BICG 6144 H200", "h200"),
    ("gs-update5120-h200-fdtd", "GS-UPDATE 5120 H200 fdtd", "h200"),
    ("jacobi2d6144-h200-fdtd", "jacobi2d 6144 H200 fdtd", "h200"),
    ("boxfilter5120-h200-fdtd", "BOXFILTER 5120 H200 fdtd", "h200"),
    ("fdtd-ey5120-h200", "FDTD-EY 5120 H200", "h200"),
    ("bicg5120-h200", "BICG 5120 H200", "h200"),
    ("fdtd-ey7168-h200", "FDTD-EY 7168 H200", "h200"),
    ("boxfilter7168-h200-fdtd", "BOXFILTER 7168 H200 fdtd", "h200"),
    ("jacobi2d5120-h200-fdtd", "jacobi2d 5120 H200 fdtd", "h200"),
    ("gs-update7168-h200-fdtd", "GS-UPDATE 7168 H200 fdtd", "h200"),
    ("nbody32768-h200", "NBODY 32768 H200", "h200"),
    ("mv8192-h200", "MV 8192 H200", "h200"),
    ("conv2d1024-h200", "2DCONV 1024 H200", "h200"),
    ("syrk1024-h200", "SYRK 1024 H200", "h200"),
    ("matmul1024-h200", "MATMUL 1024 H200", "h200"),
    ("boxfilter3072-h200-fdtd", "BOXFILTER 3072 H200 fdtd", "h200"),
    ("syr2k1024-h200", "SYR2K 1024 H200", "h200"),
    ("nbody32768-h200-wide", "NBODY 32768 H200 wide", "h200"),
    ("mv8192-h200-wide", "MV 8192 H200 wide", "h200"),
    ("bicg8192-h100", "BICG 8192 H100", "h100"),
]
# The tables whose rows repeat within the target's 5% when measured again,
# as testdata/replay/repeating.txt lists them (TestDefaultOnRepeatingTables
# reads the same list).
with open(os.path.join(HERE, "..", "..", "testdata", "replay", "repeating.txt")) as f:
    REPEAT = {l.strip()[:-len(".csv")] for l in f if l.strip() and not l.startswith("#")}
import json
import lzma

ROW = re.compile(r"^(\w+)(?:@(\d+))? fraction=([\d.]+) q1=([\d.]+) q3=([\d.]+) score=(-?[\d.]+)(?: beats-random-from-20=(\w+))?")
HEAD = re.compile(r"^# .*: (\d+) points .* (\d+) evaluations \(([\d.]+)%\)")
AFTER = re.compile(r"^# after (\d+) evaluations \(([\d.]+)%\)")


def load(name):
    """Returns (points, {evals: pct}, {strategy: {evals: (frac, q1, q3, score)}}, {strategy: beats}, order)."""
    budgets, res, beats, order = {}, {}, {}, []
    points = full = None
    files = [os.path.join(HERE, name + ".txt"), os.path.join(HERE, "opening", name + ".txt")]
    for path in files:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            lines = f.readlines()
        for line in lines:
            m = HEAD.match(line)
            if m and points is None:
                points, full = int(m.group(1)), int(m.group(2))
                budgets[full] = float(m.group(3))
                continue
            m = AFTER.match(line)
            if m:
                budgets[int(m.group(1))] = float(m.group(2))
                continue
            m = ROW.match(line)
            if m:
                s = m.group(1)
                n = int(m.group(2)) if m.group(2) else full
                if s not in res:
                    res[s] = {}
                    order.append(s)
                res[s][n] = tuple(float(m.group(i)) for i in (3, 4, 5, 6))
                if m.group(7):
                    beats[s] = m.group(7)
    return points, full, budgets, res, beats, order


def at25(points, budgets):
    """The --at 2.5% budget: the smallest count at or above 2.5% of the points."""
    return min(n for n in budgets if n * 1000 >= 25 * points)


def named(points, full, budgets):
    """Budgets by name: 20, 2.5%, 5%, 10% (the full -e)."""
    b25 = at25(points, budgets)
    b5 = min(n for n in budgets if n * 100 >= 5 * points)
    return {"20": 20, "2.5%": b25, "5%": b5, "10%": full}


def best_start(name):
    """The best start point's fraction of the optimum: genetic's curve after
    the start points (the header's count), the same in every seed."""
    path = os.path.join(HERE, name + ".json.xz")
    if not os.path.exists(path):
        return None
    with open(os.path.join(HERE, name + ".txt")) as f:
        m = re.search(r"(\d+) start points", f.read())
    n = int(m.group(1))
    with lzma.open(path) as f:
        res = json.load(f)
    curve = [r for r in res if r["strategy"] == "genetic"][0]["curve"]
    # Illegal start points take no place in the curve (they do not count
    # as evaluations): the start points that count are the first m, the
    # same in every seed.
    m = max(k for k in range(1, n + 1) if curve[k - 1]["q1_fraction"] == curve[k - 1]["q3_fraction"])
    c = curve[m - 1]
    if m == n:
        return "%.3f of the optimum (genetic after its %d start points, every seed)" % (c["median_fraction"], n)
    return "%.3f of the optimum (genetic after its %d start points, %d of them illegal, every seed)" % (c["median_fraction"], n, n - m)


def main():
    data = {t: load(t) for t, _, _ in TABLES}
    out = sys.stdout
    out.write("<!-- made by python3 docs/replay/summary.py from docs/replay/*.txt -->\n")
    for t, title, _ in TABLES:
        points, full, budgets, res, beats, order = data[t]
        nb = named(points, full, budgets)
        cols = sorted(set(nb.values()))
        out.write("\n### %s (%d points)\n\n" % (title, points))
        bs = best_start(t)
        if bs is None:
            out.write("Only `opening` replayed (replay/opening/%s.txt)\n\n" % t)
        else:
            out.write("Best start point: %s\n\n" % bs)
        out.write("| strategy | " + " | ".join("%d (%.1f%%)" % (n, budgets[n]) for n in cols) + " | beats random 20..%d |\n" % full)
        out.write("|---" * (len(cols) + 2) + "|\n")
        for s in order:
            cells = []
            for n in cols:
                fr, q1, q3, sc = res[s][n]
                cells.append("%.3f [%.2f, %.2f] %+.2f" % (fr, q1, q3, sc))
            out.write("| %s | %s | %s |\n" % (s, " | ".join(cells), beats[s]))
    order = data[TABLES[0][0]][5]
    out.write("\n### The issue's target\n\n")
    out.write("| strategy | " + " | ".join(title for _, title, _ in TABLES) + " | tables at 0.95 | tables beating random | of the %d that repeat: at 0.95 | beating random |\n" % len(REPEAT))
    out.write("|---" * (len(TABLES) + 5) + "|\n")
    for s in order:
        cells, hit, beat, rhit, rbeat = [], 0, 0, 0, 0
        for t, _, _ in TABLES:
            points, full, budgets, res, beats, _ = data[t]
            if s not in res:
                cells.append("-")
                continue
            fr = res[s][at25(points, budgets)][0]
            ok = fr >= 0.95
            hit += ok
            beat += beats[s] == "yes"
            if t in REPEAT:
                rhit += ok
                rbeat += beats[s] == "yes"
            cells.append("%s%.3f%s, %s" % ("**" if ok else "", fr, "**" if ok else "", beats[s]))
        out.write("| %s | %s | %d | %d | %d | %d |\n" % (s, " | ".join(cells), hit, beat, rhit, rbeat))
    out.write("\n### Mean scores\n\n")
    # Over the tables every strategy was replayed on.
    complete = [t for t, _, _ in TABLES if all(s in data[t][3] for s in order)]
    left = [title for t, title, _ in TABLES if t not in complete]
    if left:
        out.write("Over the tables every strategy was replayed on (not %s).\n\n" % ", ".join(left))
    groups = [("all", None), ("PoCL", "pocl"), ("H100", "h100"), ("H200", "h200"), ("Xeon", "xeon"), ("repeating", "repeat")]
    hdr = []
    for g, _ in groups:
        for b in ("20", "2.5%", "5%", "10%"):
            hdr.append("%s %s" % (g, b))
    out.write("| strategy | " + " | ".join(hdr) + " |\n")
    out.write("|---" * (len(hdr) + 1) + "|\n")
    for s in order:
        cells = []
        for _, kind in groups:
            for b in ("20", "2.5%", "5%", "10%"):
                v = []
                for t, _, k in TABLES:
                    if t not in complete:
                        continue
                    if kind == "repeat":
                        if t not in REPEAT:
                            continue
                    elif kind and k != kind:
                        continue
                    points, full, budgets, res, _, _ = data[t]
                    v.append(res[s][named(points, full, budgets)[b]][3])
                cells.append("%+.3f" % (sum(v) / len(v)))
        out.write("| %s | %s |\n" % (s, " | ".join(cells)))


if __name__ == "__main__":
    main()
