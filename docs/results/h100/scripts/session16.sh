#!/bin/bash
# Three H100 tables of kernels no table held before, recorded after the
# default strategy was chosen (2026-11-28).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=dcs3d, transpose, syr2k: groundtruth.sh TABLE in two passes
#     (twopass: 16 builders, filling the cache of built programs, into
#     $OUT/groundtruth1; then --builders -1, the table, into
#     $OUT/groundtruth2), then its 10 fastest and 10 random rows measured
#     again with no builder (recheck).
# Run from the repository root:  OUT=/some/dir PART=transpose,syr2k bash docs/results/h100/scripts/session16.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-transpose}
source docs/results/h100/scripts/common.sh # $H, recheck, twopass

for part in ${PART//,/ }; do
	case $part in
	dcs3d)
		twopass dcs3d dcs3d
		recheck "$OUT/groundtruth2/dcs3d64-h100.csv" dcs3d "-n 64,64,64 -k 4096" "" -1 dcs3d64-h100
		;;
	transpose)
		twopass transpose transpose
		recheck "$OUT/groundtruth2/transpose4096-h100.csv" transpose "-n 4096,4096" "" -1 transpose4096-h100
		;;
	syr2k)
		twopass syr2k syr2k
		recheck "$OUT/groundtruth2/syr2k1024-h100.csv" syr2k "-n 1024,1024 -k 1024" "" -1 syr2k1024-h100
		;;
	*) echo "session16.sh: unknown PART $part" >&2 ;;
	esac
done
