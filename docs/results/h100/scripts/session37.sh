#!/bin/bash
# session37.sh: held-out tables on the NVIDIA H200 for the default of the
# thirty-seventh session (2026-12-05: from its third round, the opening's
# point anywhere is the model's best guess while it predicts a gain;
# docs/replay.md, "The round's point anywhere by the predicted time"),
# which had no GPU. They are the four that session36.sh chose before
# anything was measured and never began, so none was seen when Exploit
# was chosen: covariance-tri 1024, matmul-guard 2000, covariance 1024 and
# DCS3D 64 (the H100's other subspaces; groundtruth.sh has them as PART
# covariance-tri, matmul-guard, covariance, dcs3d). Replay each with the
# default before anything else, and with `--opening exploit=none` beside
# it.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=covariance-tri,matmul-guard bash docs/results/h100/scripts/session37.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
