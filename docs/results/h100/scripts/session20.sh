#!/bin/bash
# Held-out tables and a live check for the opening's shrinking of rejected
# start points (2026-11-28, costmodel.BayesSettings.Shrink), on an NVIDIA
# H200, the device of session19.sh.
# Binaries: .gpu/hplopt.xz (`make gpu`, then xz), with the shrinking, and
# .gpu/hplopt-old.xz, the same built at the commit before it (2abd59d).
#   PART=TABLE,...: groundtruth.sh TABLE in two passes, then the re-check,
#     as session19.sh (GT_DEV=h200): conv3d-k3 and conv3d-k7, the 3DCONV
#     subspace of conv3d128-h100.csv with filters of 3x3x3 and 7x7x7, which
#     no table held and no setting was chosen on.
#   LIVE="SEED...": the default search (-s opening) of 3DCONV 128 k=5x5x5 on
#     the whole space, -e 162 -t 75, by each binary in turn, per seed, into
#     $OUT/live.
#   GUARD=S (default 400): no table is begun once S seconds have passed.
# A command returns at most 8 files: everything is in $OUT/out.tgz.
# Run from the repository root:
#   OUT=/some/dir PART=conv3d-k7,conv3d-k3 bash docs/results/h100/scripts/session20.sh
#   OUT=/some/dir LIVE="1 2 3" bash docs/results/h100/scripts/session20.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-live}
export GT_DEV=h200
source docs/results/h100/scripts/common.sh # $H, recheck, twopass, recordpart, recordparts
[ "$PART" = live ] || GUARD=${GUARD:-400} recordparts "$PART"
if [ -n "${LIVE:-}" ]; then
	mkdir -p "$OUT/live"
	for seed in $LIVE; do
		for b in hplopt hplopt-old; do
			start=$(date +%s)
			timeout 120 "$B/$b" conv3d -n 128,128,128 -k 5,5,5 -d GPU -s opening -e 162 -t 75 --seed "$seed" --no-db \
				--json "$OUT/live/conv3d-$b-$seed.json" > "$OUT/live/conv3d-$b-$seed.txt" 2>&1
			echo "$b seed $seed: $(($(date +%s) - start)) s: $(grep -E '^best' "$OUT/live/conv3d-$b-$seed.txt" | head -1)" | tee -a "$OUT/live/times.txt"
		done
	done
fi
tar czf /tmp/session20-out.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/session20-out.tgz "$OUT/out.tgz"
