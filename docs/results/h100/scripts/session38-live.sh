#!/bin/bash
# session38-live.sh: the thirty-seventh session's default (Exploit, from the
# opening's third round) against `--opening exploit=none`, live on the GPU,
# in the subspace of gs-update6144-h200-fdtd.csv (the table where replay
# puts the two furthest apart after 2.5%: 1.000 against 0.914 of the
# optimum, 20 seeds). Each search is the first 27 evaluations (2.5% of the
# 1074 points) of a search of 107 (a tenth, as replay's), seeds 1 to
# SEEDS (default 5), no records; the best time of each into
# $OUT/live/RULE-SEED.json, a line per search in $OUT/live/summary.txt.
# Binary: .gpu/hplopt.xz. Run from the repository root:
#   OUT=/some/dir bash docs/results/h100/scripts/session38-live.sh
set -u
: "${OUT:?set OUT to the output directory}"
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/live"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt && chmod +x $B/hplopt; }
pins=fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=1,lszx=32,vec=1,warp=0,gswz=1,coff=0,ftz=0
for seed in $(seq 1 "${SEEDS:-5}"); do
	for rule in default none; do
		op=""
		[ $rule = none ] && op="--opening exploit=none"
		start=$(date +%s)
		$B/hplopt tune gs-update -n 6144,6144 -d GPU --params "$pins" -e 107 --stop "evals>=27" \
			--seed "$seed" --no-db -q $op --json "$OUT/live/$rule-$seed.json" > "$OUT/live/$rule-$seed.txt" 2>&1
		best=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['best_ms'])" "$OUT/live/$rule-$seed.json" 2>/dev/null)
		echo "$rule seed $seed: best $best ms, $(($(date +%s) - start)) s" | tee -a "$OUT/live/summary.txt"
	done
done
