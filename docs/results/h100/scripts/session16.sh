#!/bin/bash
# Three H100 tables of kernels no table held before, recorded after the
# default strategy was chosen (2026-11-28).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=dcs3d, transpose, syr2k (and conv3d, jacobi2d, two more kernels
#     recorded later that day): groundtruth.sh TABLE in two passes
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
	dcs3d) table=dcs3d64-h100 size="-n 64,64,64 -k 4096" ;;
	transpose) table=transpose4096-h100 size="-n 4096,4096" ;;
	syr2k) table=syr2k1024-h100 size="-n 1024,1024 -k 1024" ;;
	conv3d) table=conv3d128-h100 size="-n 128,128,128 -k 5,5,5" ;;
	jacobi2d) table=jacobi2d4096-h100 size="-n 4096,4096" ;;
	*)
		echo "session16.sh: unknown PART $part" >&2
		continue
		;;
	esac
	twopass "$part" "$part"
	recheck "$OUT/groundtruth2/$table.csv" "$part" "$size" "" -1 "$table"
done
