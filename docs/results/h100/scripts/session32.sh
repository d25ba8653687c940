#!/bin/bash
# session32.sh: six held-out tables on the NVIDIA H200 (2026-12-04,
# thirty-second session), chosen before anything was measured, held out
# for the candidate whose opening chooses every point of a round among the
# local points after its first two rounds (strategies.OpeningSettings.
# GlobalRounds 2): sizes no table held of the kernels whose tables the
# candidate changed, each with the pins of its kernel's tables: bicg 5120
# (MVT's, as bicg 4096 and 6144), boxfilter 7168 and 3072, jacobi2d 5120
# and gs-update 7168 with FDTD-EY's pins (as boxfilter 4096 and 5120,
# jacobi2d 4096 and 6144, gs-update 5120 and 6144 -fdtd), and fdtd-ey 7168
# (a flat kind of table, with its own pins); groundtruth.sh has them.
# Five were recorded (PART=bicg5120,fdtd-ey7168,boxfilter7168-fdtd with
# GUARD=200: the first two, 365 s; PART=boxfilter7168-fdtd,
# jacobi2d5120-fdtd,gs-update7168-fdtd,boxfilter3072-fdtd with GUARD=300:
# the first three, 473 s; docs/replay/h100-remeasured/logs/session32-a.txt
# and -b.txt); boxfilter 3072 -fdtd was not begun, the session's device
# time spent (two earlier calls lost to the machine taken back).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=bicg5120,fdtd-ey7168 bash docs/results/h100/scripts/session32.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
