#!/bin/bash
# session27.sh: seven more held-out tables on the NVIDIA H200 (2026-12-03,
# twenty-sixth session), chosen before anything was measured, the first
# held-out tables of the default with Plateau (strategies.OpeningPlateau):
# 2DCONV at 2048x2048 with the pins of conv2d1024-h100.csv, and 2D stencils
# held before at a size no table held (6144x6144), each with the pins of
# another kernel: stencil2d, boxfilter and transpose with FDTD-EY's,
# jacobi2d and fdtd-hz with BOXFILTER's, fdtd-ey with its own;
# groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=conv2d2048,stencil2d6144-fdtd bash docs/results/h100/scripts/session27.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
