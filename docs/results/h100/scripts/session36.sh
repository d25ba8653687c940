#!/bin/bash
# session36.sh: held-out tables on the NVIDIA H200 (2026-12-05,
# thirty-sixth session), chosen before anything was measured, held out
# for the default of the thirty-fifth session (an opening given a budget
# of evaluations keeps it: docs/replay.md, "A budget of evaluations is not
# shared"): the subspaces of the paper's kernels that tables hold on the
# H100 and none on the H200, smallest first: nbody 32768 (504 rows), mv
# 8192 (523), conv2d 1024 (885), syrk 1024 (912), matmul 1024 (1295),
# then boxfilter 3072 with FDTD-EY's pins (session32.sh's, never begun)
# and syr2k 1024 (2360); groundtruth.sh has them (PART nbody, mv, conv2d,
# syrk, matmul, boxfilter3072-fdtd, syr2k); then, chosen after those came
# back and before any of these was measured, nbody 32768 wide, mv 8192
# wide, covariance-tri 1024, matmul-guard 2000, covariance 1024 and DCS3D
# 64 (the H100's other subspaces, smallest first but DCS3D last).
# Ran: PART=nbody,mv,conv2d,syrk,matmul with GUARD=236 after
# session35b.sh in one command (the first three), PART=syrk,matmul,
# boxfilter3072-fdtd,syr2k with GUARD=330 (all four), PART=nbody-wide,
# mv-wide,covariance-tri,matmul-guard,covariance,dcs3d with GUARD=390 (the
# first two; the session's device time then spent);
# docs/replay/h100-remeasured/logs/session36-a.txt to -c.txt.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=nbody,mv,conv2d bash docs/results/h100/scripts/session36.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
