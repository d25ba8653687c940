#!/bin/bash
# The genetic search's neighbours of the start points, live (2026-11-24):
# .gpu/hplopt-cf9e9d7 (before: random first generations) against
# .gpu/hplopt (after, ef137e3 or later), MATMUL L for 45 s and 2DCONV M for
# 30 s each, the same seed, no records, each binary with an empty NVIDIA
# compiler cache.
# Run from the repository root:  OUT=/some/dir bash docs/results/h100/scripts/session5e.sh
set -u
: "${OUT:?set OUT to the output directory}"
D=$OUT/e
mkdir -p "$D"
for b in hplopt-cf9e9d7 hplopt; do
  rm -rf ~/.nv/ComputeCache
  ./.gpu/$b version > "$D/$b-version.txt" 2>&1
  ./.gpu/$b tune matmul -d GPU --size L -s genetic -t 45 --seed 1 --no-db --json "$D/$b-matmul-L.json" > "$D/$b-matmul-L.log" 2>&1
  ./.gpu/$b tune conv2d -d GPU --size M -s genetic -t 30 --seed 1 --no-db --json "$D/$b-conv2d-M.json" > "$D/$b-conv2d-M.log" 2>&1
done
tar czf "$OUT/e.tgz" -C "$OUT" e
