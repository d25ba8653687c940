#!/bin/bash
# session38.sh: held-out tables for the default of the thirty-seventh
# session (2026-12-05: from its third round, the opening's point anywhere is
# the model's best guess while it predicts a gain; docs/replay.md, "The
# round's point anywhere by the predicted time"), chosen before anything
# was measured, on whichever GPU the device tool lends:
# - on an H200 (GT_DEV=h200), session37.sh's four: covariance-tri 1024,
#   matmul-guard 2000, covariance 1024 and DCS3D 64, the H100's other
#   subspaces, never recorded on an H200;
# - on an H100 (GT_DEV=h100), covariance-tri 1024 (no table on either GPU)
#   and then, in groundtruth.sh's order, the first subspaces recorded on
#   the H200 only: bicg 8192, gs-r 4096, stencil2d 4096 (the same pins;
#   the H100's tables of them never made).
# The GPU is read from nvidia-smi; PART=... overrides the list.
# Run on 2026-12-05 on an H100: covariance-tri 1024 does not fit one
# command (kernels of 13.65 ms and more: the first pass measured 1540 of
# 1950 points in groundtruth.sh's 540 s); PART=bicg,gs-r GUARD=150 then
# recorded bicg 8192 (298 s) and did not begin gs-r.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz). GUARD=S as session22.sh
# (default 400). Everything is in $OUT/out.tgz, packed after each table.
# Run from the repository root:
#   OUT=/some/dir bash docs/results/h100/scripts/session38.sh
set -u
: "${OUT:?set OUT to the output directory}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$gpu" in
*H200*) export GT_DEV=h200 ; part=covariance-tri,matmul-guard,covariance,dcs3d ;;
*H100*) export GT_DEV=h100 ; part=covariance-tri,bicg,gs-r,stencil2d ;;
*) echo "session38.sh: no H100 or H200 found (nvidia-smi: '$gpu')" >&2; exit 1 ;;
esac
export PART=${PART:-$part}
echo "session38.sh: $gpu, GT_DEV=$GT_DEV, PART=$PART"
exec bash "$(dirname "$0")/session22.sh"
