#!/bin/bash
# session28.sh: ten more held-out tables on the NVIDIA H200 (2026-12-03,
# twenty-seventh session), chosen before anything was measured, held out
# for the default with Plateau (strategies.OpeningPlateau). Kernels other
# than the 2D stencils of the last sessions, at sizes no table held, each
# with the pins of its own kernel's table: 3DCONV 256 k=3x3x3 (conv3d128's),
# sepfilter 8192, transpose 8192, stencil3d 512, jacobi2d 8192, SYRK 2048,
# covariance 2048, 1DCONV 65536 and gs-r 16384 (MVT's), and gs-update 6144
# with FDTD-EY's pins; groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=conv3d256-k3,sepfilter8192 bash docs/results/h100/scripts/session28.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
