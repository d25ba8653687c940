#!/bin/bash
# More GPU ground truth for replay, and whether the H100 tables repeat
# (2026-11-27, seventh session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=gt: three more tables, groundtruth.sh syrk nbody mv (SYRK n=1024
#     k=1024, 912 points; NBODY n=32768, 504; MV n=8192, 523), each
#     searched exhaustively with 16 builders; tables, outputs and records
#     databases under $OUT/groundtruth.
#   PART=rc: each H100 table's 10 fastest rows and 10 more drawn at random
#     (seed 1) measured again, each in its own process, in three rounds in
#     turn (testdata/replay/remeasure.py with DEVICE=GPU: hplopt tune -s
#     exhaustive --runs 10, every parameter pinned, the median of 10
#     launches); the tables of space table2-2 (MATMUL, 2DCONV) with the later
#     passes at their neutral values. $TABLES (default: the five) names
#     the tables, as testdata/replay/NAME.csv or a path; $BUILDERS, when
#     set, is each process's --builders (-1: none, which starts faster
#     than 15 builder processes for one variant).
#   PART=gt2: 2DCONV n=1024 k=7x7 (885 points) recorded again in two
#     passes: groundtruth.sh conv2d with 16 builders (fills the cache of
#     built programs), then with BUILDERS=-1 (every program from the cache,
#     no builder process beside the measurements; GT_DIR=groundtruth2, the
#     table), then PART=rc's re-measurement of that table with BUILDERS=-1.
#   PART=gt3: NBODY n=32768 with bszx free (2480 points) and MV n=8192
#     with vw=1 and tw0 free (2200 points), groundtruth.sh nbody-wide mv-wide,
#     in two passes as PART=gt2 (the second, with BUILDERS=-1, the tables,
#     under $OUT/groundtruth2), then PART=rc's re-measurement of each.
#   PART=live: $KERNEL (default matmul) at size $SIZE (default L)
#     searched $T s (default 60) with -s genetic and with -s $S (default
#     hybrid), one after the other, then again in the other order (hplopt
#     tune KERNEL --size SIZE -d GPU -s STRATEGY -t $T --no-db --json);
#     outputs under $OUT/r/live-*.
# Run from the repository root:  OUT=/some/dir PART=gt bash docs/results/h100/scripts/session13.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-gt}
source docs/results/h100/scripts/common.sh # $H, recheck, twopass

for part in ${PART//,/ }; do
	case $part in
	gt)
		HPLOPT=$H OUT=$OUT bash docs/results/h100/scripts/groundtruth.sh syrk nbody mv 2>&1 | tee "$OUT/r/gt.txt"
		;;
	gt2)
		twopass gt2 conv2d
		recheck "$OUT/groundtruth2/conv2d1024-h100.csv" conv2d "-n 1024,1024 -k 7,7" "" -1 gt2-conv2d1024-h100
		;;
	rc)
		for t in ${TABLES:-matmul1024-h100 conv2d1024-h100 syrk1024-h100 nbody32768-h100 mv8192-h100}; do
			case $t in
			*/*) f=$t ;;
			*) f=testdata/replay/$t.csv ;;
			esac
			[ -f "$f" ] || f=$OUT/groundtruth/$(basename "$t" .csv).csv
			[ -f "$f" ] || { echo "session13.sh: no table $t" >&2; continue; }
			kernel=$(sed -n 's/^# kernel: //p' "$f")
			[ "$kernel" = mxm ] && kernel=matmul # the table's kernel under its old name
			case $(basename "$f") in
			matmul1024-h100.csv) size="-n 1024,1024 -k 1024" neutral=vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1 ;;
			conv2d1024-h100.csv) size="-n 1024,1024 -k 7,7" neutral=vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1 ;;
			syrk1024-h100.csv) size="-n 1024,1024 -k 1024" neutral= ;;
			nbody32768-h100.csv) size="-n 32768 -k 32768" neutral= ;;
			mv8192-h100.csv) size="-n 8192 -k 8192" neutral= ;;
			*) echo "session13.sh: no size for $f" >&2; continue ;;
			esac
			recheck "$f" "$kernel" "$size" "$neutral" "${BUILDERS:-}" "$(basename "$f" .csv)"
		done
		;;
	gt3)
		twopass gt3 nbody-wide mv-wide
		recheck "$OUT/groundtruth2/nbody32768-h100-wide.csv" nbody "-n 32768 -k 32768" "" -1 nbody32768-h100-wide
		recheck "$OUT/groundtruth2/mv8192-h100-wide.csv" mv "-n 8192 -k 8192" "" -1 mv8192-h100-wide
		;;
	live)
		k=${KERNEL:-matmul}
		for s in genetic "${S:-hybrid}" "${S:-hybrid}" genetic; do
			n=$(ls "$OUT/r" | grep -c "^live-$k-$s-.*txt" || true)
			"$H" tune "$k" --size "${SIZE:-L}" -d GPU -s "$s" -t "${T:-60}" --no-db --json "$OUT/r/live-$k-$s-$n.json" > "$OUT/r/live-$k-$s-$n.txt" 2>&1
			grep -E '^(evaluations|time|device|best)' "$OUT/r/live-$k-$s-$n.txt" | sed "s/^/$k $s $n: /"
		done
		;;
	*)
		echo "session13.sh: unknown PART $part" >&2
		;;
	esac
done
