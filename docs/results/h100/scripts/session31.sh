#!/bin/bash
# session31.sh: three held-out tables on the NVIDIA H200 (2026-12-04,
# thirty-first session), chosen before anything was measured, held out
# for the default whose opening's model has a length scale per parameter
# (strategies.OpeningSettings.Isotropic false): sizes no table held of
# three kernels whose tables the default missed, each with the pins of its
# kernel's tables: gs-update 3072 (BOXFILTER's, as gs-update 4096), SYRK
# 1536 (SYRK's, as SYRK 2048) and bicg 6144 (MVT's, as bicg 4096); then,
# chosen after those were recorded and before anything of these was
# measured, gs-update 5120 and jacobi2d 6144 with FDTD-EY's pins (as
# gs-update 6144 and 8192 -fdtd, and jacobi2d 4096 and 8192 -fdtd); then,
# held out for the candidate OpeningSettings.PlateauRounds 1 and chosen
# before anything of them was measured, boxfilter 5120 with FDTD-EY's pins
# (the tables Plateau was made for) and fdtd-ey 5120 (a flat kind of
# table, with its own pins); groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=gs-update3072,syrk1536 bash docs/results/h100/scripts/session31.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
