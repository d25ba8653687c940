#!/bin/bash
# firstpass.sh TABLE...: the first pass only (16 builders beside the
# measurements, every program built; common.sh's twopass without the
# second) of each groundtruth.sh TABLE on the H200, into $OUT/out.tgz
# (groundtruth1/, r/), packed again after each table: for tables whose two
# passes and re-check do not fit the device time left (mvt and bicg 16384,
# 2026-12-02). Run from the repository root with the binary of common.sh:
#   PART=first OUT=/some/dir bash docs/results/h100/scripts/firstpass.sh mvt16384 bicg16384
set -u
export GT_DEV=h200
RET=$OUT
OUT=/tmp/first-work
rm -rf "$OUT" && mkdir -p "$OUT"
source docs/results/h100/scripts/common.sh
pack() { tar czf "$RET/.out.tgz" -C "$OUT" . && mv "$RET/.out.tgz" "$RET/out.tgz"; }
for t in "$@"; do
  s=$(date +%s)
  HPLOPT=$H OUT=$OUT GT_DIR=groundtruth1 bash docs/results/h100/scripts/groundtruth.sh "$t" 2>&1 | tee -a "$OUT/r/$t.txt"
  echo "$t: $(( $(date +%s) - s )) s" | tee -a "$OUT/r/times.txt"
  pack
done
