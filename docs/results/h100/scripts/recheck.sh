#!/bin/bash
# recheck.sh TABLE...: common.sh's re-check (10 fastest and 10 random rows
# of the committed testdata/replay table, measured again, three rounds) of
# each groundtruth.sh TABLE on the H200, into $OUT/out.tgz (r/rc-*.csv):
# for a committed table whose re-check was cut (stencil2d 8192 -fdtd,
# 2026-12-02). Run from the repository root:
#   OUT=/some/dir bash docs/results/h100/scripts/recheck.sh stencil2d8192-fdtd
set -u
export GT_DEV=h200
RET=$OUT; OUT=/tmp/rc-work; rm -rf $OUT; mkdir -p $OUT
PART=rc source docs/results/h100/scripts/common.sh
for p in "$@"; do
  IFS='|' read -r table kernel size < <(GT_LIST=1 bash docs/results/h100/scripts/groundtruth.sh "$p")
  recheck "testdata/replay/$table.csv" "$kernel" "$size" "" -1 "$table"
  tar czf $RET/out.tgz -C $OUT .
done
