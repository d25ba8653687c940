#!/bin/bash
# NBODY with rsqrt against native_rsqrt (2026-11-24), binary .gpu/hplopt:
# the user-kernel form of NBODY (testdata/clc/nbody.txtar's kernel.cl,
# docs/results/h100/cf9e9d7/native/nbody.cl) and the same with
# native_rsqrt (nbody-native.cl), each tuned for 40 s on the GPU at
# n=65536 with the same seed, no records. Each search checks its variants
# against its own single-point kernel.
# Run from the repository root:  OUT=/some/dir bash docs/results/h100/scripts/session5d.sh
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
N=docs/results/h100/cf9e9d7/native
D=$OUT/d
mkdir -p "$D"
for f in nbody nbody-native; do
  $H tune "$N/$f.cl" -d GPU --global 65536 --arg n=65536 --arg eps2=0.01 -s genetic -t 40 --seed 1 --no-db \
    --json "$D/$f.json" > "$D/$f.log" 2>&1
done
tar czf "$OUT/d.tgz" -C "$OUT" d
