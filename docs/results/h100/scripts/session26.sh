#!/bin/bash
# session26.sh: nine more held-out tables on the NVIDIA H200 (2026-12-02,
# twenty-fourth session), recorded before anything was judged on them.
# Kernels held before, in a subspace of other pins or at other sizes,
# chosen by the rules of earlier tables before anything was measured:
# fdtd-ey, fdtd-hz, stencil2d, boxfilter and transpose 8192 with FDTD-EY's
# pins (bszx=1, lszx=32; bszy, lszy, szx, szy and lmem free), jacobi2d and
# fdtd-ey 8192 with BOXFILTER's (bszx, bszy, szx, szy and lmem free), bicg
# and mvt 16384 with MVT's (bszx, lszx, szx, uf and lmem free);
# groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz.
# Run from the repository root (PART, OUT and GUARD pass through):
#   OUT=/some/dir PART=fdtd-ey8192,fdtd-hz8192 bash docs/results/h100/scripts/session26.sh
# The steps are session22.sh's (its body is the same for any PART).
exec bash "$(dirname "$0")/session22.sh"
