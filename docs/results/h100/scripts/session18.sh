#!/bin/bash
# Four H100 tables of kernels no table held before (2026-11-28): held-out
# tables, recorded before a change to the default strategy was judged on
# them. The subspaces were chosen from the structure of the space alone
# (groundtruth.sh gives the pins and counts; TestGroundTruthSpaces checks
# the counts), none of these kernels having been timed on the H100.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=covariance, sepfilter, stencil3d, conv1d: groundtruth.sh TABLE in
#     two passes (twopass: 16 builders, filling the cache of built
#     programs, into $OUT/groundtruth1; then --builders -1, the table, into
#     $OUT/groundtruth2), then its 10 fastest and 10 random rows measured
#     again with no builder (recheck).
#   PART=matmul-guard, mvt, boxfilter, fdtd-ey: the same, four more
#     kernels no table held, added later the same day and chosen the same
#     way; they too are recorded before any change to the default strategy
#     is judged on them (matmul-guard 2000 with k=2000, sizes that are not
#     powers of two, so that guards matter; mvt 8192; boxfilter and fdtd-ey
#     4096).
# Measured on 2026-11-28 (first pass, second pass, recheck): covariance
# 51, 26, 42 s; sepfilter 37, 11, 65 s; stencil3d 49, 9, 68 s; conv1d 50,
# 42, 48 s; mvt 60, 48, 95 s; boxfilter 58, 5, 74 s; fdtd-ey 22, 6, 76 s;
# matmul-guard 176, 154, 63 s (kernels of 2.3 ms and more: run it alone in
# one command). Each pass stops at -t 540 anyway.
# Run from the repository root:  OUT=/some/dir PART=covariance,sepfilter bash docs/results/h100/scripts/session18.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-covariance}
source docs/results/h100/scripts/common.sh # $H, recheck, twopass, recordpart, recordparts

recordparts "$PART"
