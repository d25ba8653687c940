#!/bin/bash
# session35b.sh: searches given 2.5% of a table as -e, on the NVIDIA H200,
# by the binary of this commit (.gpu/hplopt.xz: the opening spends a given
# budget) and by that of fe074dc (.gpu/hplopt-old.xz: the opening a third
# of any budget), seeds 1 to $SEEDS (default 3), cold (--no-db), on the
# problems of bicg5120-h200 and conv3d256k3-h200, which replay moves from
# 0.791 to 1.000 (docs/replay.md, "A budget of evaluations is not
# shared"). Each line: the table, binary, seed, best time found, the
# table's recorded optimum. Everything also in $OUT/out.tgz.
# Written in the thirty-fifth session after its device time was spent;
# run in the thirty-sixth with SEEDS=3 (docs/replay/live/session36b.txt,
# and every search's output in session36b.tar.xz).
# Run from the repository root: OUT=/some/dir bash docs/results/h100/scripts/session35b.sh
set -u
: "${OUT:?set OUT to the output directory}"
RET=$OUT
OUT=/tmp/session35b-work
rm -rf "$OUT" && mkdir -p "$OUT"
PART=session35b
source docs/results/h100/scripts/common.sh # $H, and /tmp/hplopt-bin/hplopt-old
tables=$(GT_TABLES=1 GT_DEV=h200 bash docs/results/h100/scripts/groundtruth.sh)
for name in ${CASES:-bicg5120-h200 conv3d256k3-h200}; do
	IFS='|' read -r _ _ kernel size pins points <<<"$(awk -F'|' -v n="$name" '$2 == n' <<<"$tables")"
	n=$((points * 25 / 1000))
	[ "$n" -ge 20 ] || n=20
	opt=$(grep -v '^#' "testdata/replay/$name.csv" | python3 -c "
import csv, sys
best = min(float(r['time_ms']) for r in csv.DictReader(sys.stdin) if r['time_ms'].replace('.', '', 1).isdigit())
print(best)")
	for s in $(seq 1 "${SEEDS:-3}"); do
		for b in hplopt hplopt-old; do
			# shellcheck disable=SC2086
			/tmp/hplopt-bin/$b tune "$kernel" $size -d GPU -q --seed "$s" --params "$pins" -e "$n" --no-db --json "$OUT/$name-$b-$s.json" > "$OUT/$name-$b-$s.txt" 2>&1
			best=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['best_ms'])" "$OUT/$name-$b-$s.json" 2>/dev/null || echo fail)
			echo "$name -e $n: $b seed $s best $best ms, table optimum $opt ms" | tee -a "$OUT/summary.txt"
		done
	done
	tar czf "$RET/out.tgz" -C "$OUT" .
done
