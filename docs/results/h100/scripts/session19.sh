#!/bin/bash
# Held-out tables of a second GPU (2026-11-28): subspaces of the H100
# tables recorded again on an NVIDIA H200, a device no table held before
# and no setting of the default strategy was chosen on, before the
# default is replayed on them. Same pins and counts as the H100 tables
# (groundtruth.sh with GT_DEV=h200: conv3d128-h200.csv and so on; the
# H200's work-group and local-memory limits are the H100's).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes (twopass: 16
#     builders, filling the cache of built programs, into $OUT/groundtruth1;
#     then --builders -1, the table, into $OUT/groundtruth2), then its 10
#     fastest and 10 random rows measured again with no builder (recheck).
#   GUARD=S (default 400): no table is begun once S seconds have passed, so
#     that a table is never cut short by the 10 minutes of one command.
# Measured on 2026-11-28 (first pass, second pass, recheck): conv3d 95,
# 273, 44 s (its second pass waited 269 s for builds in its own process;
# in a first call, whose outputs were lost when the three tables of
# PART=conv3d,transpose,nbody-wide ran past the 10 minutes, the same pass
# took 3 s); boxfilter 61, 6, 65 s; transpose 10, 6, 65 s (over the cache of
# that first call); mvt 57, 48, 84 s; sepfilter 29, 11, 65 s. A command
# returns at most 8 files: tar $OUT at the end.
# Run from the repository root:
#   OUT=/some/dir PART=conv3d,transpose,nbody-wide bash docs/results/h100/scripts/session19.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-conv3d}
export GT_DEV=h200
source docs/results/h100/scripts/common.sh # $H, recheck, twopass, recordpart, recordparts
GUARD=${GUARD:-400} recordparts "$PART"
