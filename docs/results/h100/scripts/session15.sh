#!/bin/bash
# The default strategy live with a longer opening bounded by the budget
# (2026-11-27, ninth session).
# Binaries: .gpu/hplopt.xz (A: `make gpu`, then xz), and two other builds
# of the same source (`go build -ldflags "-s -w" -o .gpu/hplopt-X
# ./cmd/hplopt`, then xz) with strategies.OpeningEvaluations 64 and
# OpeningNeighbours 1: .gpu/hplopt-b.xz (B) with OpeningShare 1/2 and
# .gpu/hplopt-c.xz (C) with OpeningShare 1/3.
# Then, for the builds guessed ahead (autotune.Foresight): .gpu/hplopt.xz
# the binary of 7a3705e (A, that default without guesses) and
# .gpu/hplopt-s.xz (S) the source with them, RUNS="a s a s a s" COLD=2.
#   PART=live: $KERNEL (default matmul) at size $SIZE (default L) searched
#     $T s (default 60) with the default strategy by the binaries of
#     $RUNS in turn (default "a b c c b a": A B C C B A; hplopt tune
#     KERNEL --size SIZE -d GPU -t $T --no-db --json, then $EXTRA, other
#     flags); outputs under $OUT/r/live-KERNEL-{a,b,c}-N. With COLD=1 every
#     search builds every variant: --cache off, and CUDA_CACHE_DISABLE=1
#     (the driver's cache of built programs off); with COLD=2 too, but with
#     a cache of built programs that starts empty (--cache NEWDIR), where
#     guesses are kept.
# Run from the repository root:  OUT=/some/dir PART=live KERNEL=conv2d SIZE=M T=30 bash docs/results/h100/scripts/session15.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-live}
source docs/results/h100/scripts/common.sh # $H, $B

for part in ${PART//,/ }; do
	case $part in
	live)
		k=${KERNEL:-matmul}
		for v in ${RUNS:-a b c c b a}; do
			bin=$H
			[ $v = a ] || bin=$B/hplopt-$v
			n=$(ls "$OUT/r" | grep -c "^live-$k-$v-.*txt" || true)
			env=() cache=() # COLD: the driver's cache off, and ours off (1) or new (2)
			case ${COLD:-0} in
			1) env=(CUDA_CACHE_DISABLE=1) cache=(--cache off) ;;
			2) env=(CUDA_CACHE_DISABLE=1) cache=(--cache "$(mktemp -d)") ;;
			esac
			# shellcheck disable=SC2086 # EXTRA holds several flags
			env "${env[@]}" "$bin" tune "$k" --size "${SIZE:-L}" -d GPU -t "${T:-60}" --no-db --json "$OUT/r/live-$k-$v-$n.json" "${cache[@]}" ${EXTRA:-} > "$OUT/r/live-$k-$v-$n.txt" 2>&1
			grep -E '^(strategy|evaluations|time|best)' "$OUT/r/live-$k-$v-$n.txt" | sed "s/^/$k $v $n: /"
		done
		;;
	*) echo "session15.sh: unknown PART $part" >&2 ;;
	esac
done
