#!/bin/bash
# session22.sh: held-out tables for the default strategy with the anchored
# moves (2026-12-02), on an NVIDIA H200, the device of session19.sh.
# Kernels no table held before, in subspaces given by the rules of earlier
# tables before anything was measured: bicg, gs-r and covariance-tri with
# the pins of mvt8192-h100.csv (bszx, lszx, szx, uf and lmem free),
# stencil2d with those of boxfilter4096-h100.csv (bszx, bszy, szx, szy and
# lmem free); groundtruth.sh has them.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200).
#   GUARD=S (default 400): no table is begun once S seconds have passed.
#   ONEPASS=1: only the second pass and the re-check (common.sh's
#     twopass), for a table whose two passes do not fit one command.
# A command returns at most 8 files: everything is in $OUT/out.tgz, packed
# again after each table, so that a command cut short (its time limit, or
# the session's device time running out) still returns the tables it
# finished; the work is done in /tmp/session22-work.
# Run from the repository root:
#   OUT=/some/dir PART=bicg,gs-r,stencil2d bash docs/results/h100/scripts/session22.sh
set -u
: "${OUT:?set OUT to the output directory}"
: "${PART:?set PART to the tables}"
export GT_DEV=${GT_DEV:-h200}
RET=$OUT
OUT=/tmp/session22-work
rm -rf "$OUT" && mkdir -p "$OUT"
source docs/results/h100/scripts/common.sh # $H, recheck, twopass, recordpart, recordparts
pack() { tar czf "$RET/.out.tgz" -C "$OUT" . && mv "$RET/.out.tgz" "$RET/out.tgz"; }
pack
GUARD=${GUARD:-400} AFTER_PART=pack recordparts "$PART"
