#!/bin/bash
# The host CPU's PoCL tables again, at sizes whose kernels run for
# milliseconds (2026-11-28): the Xeon tables of 2026-11-24 (MATMUL 128,
# 2DCONV 256, MV 1024; kernels of 35-60 µs) do not repeat from one process
# to the next. The three problems and pins are those of the 2-core tables
# recorded the same day (testdata/replay/README.md), so each subspace is
# measured on both CPUs.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=mv, matmul, conv2d: the subspace searched exhaustively on the
#     host's PoCL in two passes: the first fills the cache of built programs
#     and PoCL's kernel cache ($OUT/t/NAME-pass1.json), the second, the
#     table, finds every program there and has no builder process
#     (--builders -1); each times the median of 10 launches. Then the
#     table's 10 fastest and 10 random rows measured again, three rounds,
#     each in its own process (remeasure.py, DEVICE=CPU, --builders -1).
# Run from the repository root:  OUT=/some/dir PART=mv,matmul bash docs/results/h100/scripts/session17.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-mv}
source docs/results/h100/scripts/common.sh # $H
D=$OUT/t
mkdir -p "$D"
{ $H version; $H devices; nproc; lscpu | grep -i 'model name'; } > "$D/devices.txt" 2>&1
N=coff=0,fission=0,ftz=0,split=1,pack=0,ltrans=0,prefetch=0,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0

for part in ${PART//,/ }; do
	case $part in
	mv) name=mv4096-pocl-xeon kernel=mv size="-n 4096 -k 4096" pins=lszx=1,fullunroll=1,$N ;;
	matmul) name=matmul512-pocl-xeon kernel=matmul size="-n 512,512 -k 512" pins=lszx=1,lszy=1,fullunroll=1,warp=0,gswz=1,szy=16,uf=4,$N ;;
	conv2d) name=conv2d2048-pocl-xeon kernel=conv2d size="-n 2048,2048 -k 5,5" pins=lszx=1,lszy=1,warp=0,gswz=1,tw1=0,uf=1,szy=32,fullunroll=1,$N ;;
	*)
		echo "session17.sh: unknown PART $part" >&2
		continue
		;;
	esac
	for pass in 1 2; do
		builders=16
		[ $pass = 2 ] && builders=-1
		rm -f "$D/$name.db"*
		start=$(date +%s)
		# shellcheck disable=SC2086
		$H tune $kernel -d CPU $size -s exhaustive -t 280 -q --seed 1 --runs 10 --builders $builders \
			--params "$pins" --cache "$D/cache-$name" --db "$D/$name.db" --json "$D/$name-pass$pass.json" \
			> "$D/$name-pass$pass.txt" 2>&1
		echo "$name pass $pass: $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$D/times.txt"
	done
	$H replay --db "$D/$name.db" --export-table "$D/$name.csv" >> "$D/$name-pass2.txt" 2>&1
	start=$(date +%s)
	DEVICE=CPU BUILDERS=-1 HPLOPT=$H NEUTRAL= SAMPLE=10 python3 testdata/replay/remeasure.py \
		"$D/$name.csv" $kernel "$size" "$D/rc-$name.csv" 10 3 10 2> "$D/rc-$name.log"
	echo "$name recheck: $(($(date +%s) - start)) s" | tee -a "$D/times.txt"
	rm -rf "$D/cache-$name" "$D/$name.db"*
	tar czf "$OUT/t.tgz" -C "$OUT" t
done
