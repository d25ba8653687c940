#!/bin/bash
# Two wide H100 tables for replay, MATMUL and 2DCONV with thousands of
# points (2026-11-27, eighth session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=cw: 2DCONV n=1024 k=7x7 with bszy free and lcopy=0 (2890 points),
#     groundtruth.sh conv2d-wide in two passes (16 builders, filling the
#     cache of built programs, into $OUT/groundtruth1; then --builders -1,
#     the table, into $OUT/groundtruth2), then its 10 fastest and 10
#     random rows measured again with no builder (recheck).
#   PART=mw: MATMUL n=1024 k=1024 with tw0 free and vw=2 (4608 points),
#     groundtruth.sh matmul-wide in two passes as PART=cw (the second,
#     with --builders -1, the table), then its rows measured again as
#     PART=cw's.
#   PART=live: $KERNEL (default matmul) at size $SIZE (default L) searched
#     $T s (default 60) with the default strategy by .gpu/hplopt.xz (A)
#     and by .gpu/hplopt-b.xz (B, another build of the binary: here the
#     source of A with strategies.OpeningEvaluations 64 and
#     OpeningNeighbours 1, `go build -o .gpu/hplopt-b ./cmd/hplopt`, then
#     xz), A, B, B, A
#     in turn (hplopt tune KERNEL --size SIZE -d GPU -t $T --no-db --json);
#     outputs under $OUT/r/live-KERNEL-{a,b}-N.
# Run from the repository root:  OUT=/some/dir PART=cw bash docs/results/h100/scripts/session14.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-cw}
source docs/results/h100/scripts/common.sh # $H, recheck, twopass

for part in ${PART//,/ }; do
	case $part in
	cw)
		twopass cw conv2d-wide
		recheck "$OUT/groundtruth2/conv2d1024-h100-wide.csv" conv2d "-n 1024,1024 -k 7,7" "" -1 conv2d1024-h100-wide
		;;
	mw)
		twopass mw matmul-wide
		recheck "$OUT/groundtruth2/matmul1024-h100-wide.csv" matmul "-n 1024,1024 -k 1024" "" -1 matmul1024-h100-wide
		;;
	live)
		k=${KERNEL:-matmul}
		for v in a b b a; do
			bin=$H
			[ $v = b ] && bin=$B/hplopt-b
			n=$(ls "$OUT/r" | grep -c "^live-$k-$v-.*txt" || true)
			"$bin" tune "$k" --size "${SIZE:-L}" -d GPU -t "${T:-60}" --no-db --json "$OUT/r/live-$k-$v-$n.json" > "$OUT/r/live-$k-$v-$n.txt" 2>&1
			grep -E '^(strategy|evaluations|time|best)' "$OUT/r/live-$k-$v-$n.txt" | sed "s/^/$k $v $n: /"
		done
		;;
	*) echo "session14.sh: unknown PART $part" >&2 ;;
	esac
done
