#!/bin/bash
# session24.sh: eight more held-out tables on the NVIDIA H200 (2026-12-02,
# twenty-second session), recorded before any rule was tried against the
# needle of gs-update4096-h200.csv this session. Kernels held before in
# subspaces of other pins or other sizes, given by the rules of earlier
# tables before anything was measured: gs-update 4096 and 8192, stencil2d,
# boxfilter and jacobi2d with FDTD-EY's pins (bszx=1, lszx=32; bszy, lszy,
# szx and szy free, and lmem where the kernel stages through local memory), fdtd-hz and transpose 8192 with BOXFILTER's
# (bszx, bszy, szx, szy and lmem free), gs-update 6144 with BOXFILTER's;
# groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=gs-update-fdtd,gs-update8192-fdtd,gs-update6144,fdtd-hz-box bash docs/results/h100/scripts/session24.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
