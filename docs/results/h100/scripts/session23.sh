#!/bin/bash
# session23.sh: six more held-out tables on the NVIDIA H200 (2026-12-02,
# twenty-first session), recorded before any rule was tried against the
# needle of gs-update4096-h200.csv and replayed with the default of commit
# 50313b6 before anything else was done with them. Other sizes of a
# kernel held before (gs-update 8192 and 2048, gs-r 8192) and kernels
# held before in a subspace of other pins (jacobi2d, transpose and
# fdtd-ey with BOXFILTER's pins: bszx, bszy, szx, szy and lmem free), all
# given by the rules of earlier tables before anything was measured;
# groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
#   ONEPASS=1: only the second pass and the re-check (common.sh's twopass).
# A command returns at most 8 files: everything is in $OUT/out.tgz.
# Run from the repository root (PART, OUT, GUARD and ONEPASS pass through):
#   OUT=/some/dir PART=gs-update8192,gs-update2048,jacobi2d-box bash docs/results/h100/scripts/session23.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
