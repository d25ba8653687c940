#!/bin/bash
# Three H100 tables of kernels no table held before, recorded after the
# default strategy was chosen (2026-11-28).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=dcs3d, transpose, syr2k (and conv3d, jacobi2d, two more kernels
#     recorded later that day): groundtruth.sh TABLE in two passes
#     (twopass: 16 builders, filling the cache of built programs, into
#     $OUT/groundtruth1; then --builders -1, the table, into
#     $OUT/groundtruth2), then its 10 fastest and 10 random rows measured
#     again with no builder (recheck).
# Run from the repository root:  OUT=/some/dir PART=transpose,syr2k bash docs/results/h100/scripts/session16.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-transpose}
source docs/results/h100/scripts/common.sh # $H, recheck, twopass, recordpart, recordparts

recordparts "$PART"
