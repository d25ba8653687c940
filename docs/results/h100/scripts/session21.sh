#!/bin/bash
# session21.sh: live searches of the default strategy (-s opening), two
# in turn per seed: by .gpu/hplopt (`make gpu`, then xz) as it is ("new"),
# and by the same binary with the environment OLDENV ("old"; the device
# takes a working tree of at most 64 MiB, no room for a second binary).
# On 2026-12-01 the binary was built from the working tree of commit
# 358ce2f with the opening's Minima (costmodel.BayesSettings) on unless
# ZZ_NOMINIMA was set, and OLDENV=ZZ_NOMINIMA=1: old is 358ce2f's search.
# On 2026-12-02 from the working tree of commit 4fed5e8 with the opening's
# anchored moves (costmodel.BayesSettings.Anchored) on unless ZZ_NOANCHOR
# was set, and OLDENV=ZZ_NOANCHOR=1: old is 6bff3a1's search
# (docs/replay/opening/live-anchored/ says which build each call ran).
#   CASES="NAME:KERNEL ARGS;..." the problems (default: 3DCONV 128 with
#     filters of 5x5x5 and 7x7x7, the whole space);
#   SEEDS="1 2 3" the seeds; E (default 162) the evaluations, -t T (default
#     75) the time bound of each search;
#   GUARD=S (default 500): no search is begun once S seconds have passed.
# Each search's output and JSON go to $OUT/live/NAME-BINARY-SEED.*, a line
# a search to $OUT/live/times.txt; everything is packed into $OUT/out.tgz.
# Run from the repository root:
#   OUT=/some/dir SEEDS="1 2 3" bash docs/results/h100/scripts/session21.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=live
source docs/results/h100/scripts/common.sh # $B, the binaries
CASES=${CASES:-"conv3d-k5:conv3d -n 128,128,128 -k 5,5,5;conv3d-k7:conv3d -n 128,128,128 -k 7,7,7"}
SEEDS=${SEEDS:-"1 2 3"}
E=${E:-162}
T=${T:-75}
DEV=${DEV:-GPU}
GUARD=${GUARD:-500}
begin=$(date +%s)
mkdir -p "$OUT/live"
IFS=';' read -ra cases <<< "$CASES"
for c in "${cases[@]}"; do
	name=${c%%:*}
	args=${c#*:}
	for seed in $SEEDS; do
		for b in new old; do
			if [ $(($(date +%s) - begin)) -ge "$GUARD" ]; then
				echo "guard: $name $b seed $seed not begun" | tee -a "$OUT/live/times.txt"
				continue
			fi
			start=$(date +%s)
			env=()
			# shellcheck disable=SC2206
			[ "$b" = old ] && env=(${OLDENV:?set OLDENV})
			# shellcheck disable=SC2086
			timeout 150 env "${env[@]}" "$B/hplopt" $args -d "$DEV" -s opening -e "$E" -t "$T" --seed "$seed" --no-db \
				--json "$OUT/live/$name-$b-$seed.json" > "$OUT/live/$name-$b-$seed.txt" 2>&1
			echo "$name $b seed $seed: $(($(date +%s) - start)) s: $(grep -E '^best' "$OUT/live/$name-$b-$seed.txt" | head -1)" | tee -a "$OUT/live/times.txt"
		done
	done
done
tar czf /tmp/session21-out.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/session21-out.tgz "$OUT/out.tgz"
