#!/usr/bin/env python3
"""The first N evaluations of each live search in a directory of
session20.sh's outputs (conv3d-BINARY-SEED.json, kept out of the tree),
with the best time so far: python3 first.py DIR [N] > first.txt"""
import glob, json, os, sys

d = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
for f in sorted(glob.glob(os.path.join(d, "conv3d-*.json"))):
    rep = json.load(open(f))
    print("#", os.path.basename(f), "best", rep["best_ms"], "ms, measured", rep["measured"], "rejected", rep["failures"]["illegal"])
    best = float("inf")
    for i, e in enumerate(rep["history"][:n]):
        p, ms = e["params"], e.get("ms")
        if e["outcome"] == "ok":
            best = min(best, ms)
        shape = ",".join(f"{k}={p[k]}" for k in ("bszx", "bszy", "lszx", "lszy", "szx", "szy", "lmem", "vw", "uf", "warp") if k in p)
        t = f"{ms:.4f}" if e["outcome"] == "ok" else e["outcome"]
        print(f"{i:3d} {t:>8} best {best:.4f} {shape}")
    print()
