#!/bin/bash
# session25.sh: seven more held-out tables on the NVIDIA H200 (2026-12-02,
# twenty-third session), recorded before any rule of this session was
# judged on them. Kernels held before, in a subspace of other pins or at
# other sizes, given by the rules of earlier tables before anything was
# measured: transpose 4096 and jacobi2d 8192 with FDTD-EY's pins (bszx=1,
# lszx=32; bszy, lszy, szx, szy and lmem free), mv 8192, bicg 4096 and
# mvt 4096 with MVT's (bszx, lszx, szx, uf and lmem free), stencil2d 8192
# and boxfilter 8192 with BOXFILTER's (bszx, bszy, szx, szy and lmem
# free); groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=transpose-fdtd,mv-mvt,bicg4096 bash docs/results/h100/scripts/session25.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
