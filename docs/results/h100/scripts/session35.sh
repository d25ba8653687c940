#!/bin/bash
# session35.sh: live searches, on the NVIDIA H200, of the problems of the
# tables on which a cold search of the default misses issue 14's target
# in replay (replay/replay_test.go's misses), each searched twice per
# seed: cold (no records, --no-db) and from tuning records that hold one
# earlier search of each of its nearest recorded sizes, the live analogue
# of `hplopt replay --tuned --tuned-found` (docs/replay.md, "Searches
# that start from the records").
# For each CASE TARGET:NEIGHBOUR,... (names of groundtruth.sh's tables):
#   1. each NEIGHBOUR, in turn, is tuned into one database (base.db) by the
#      default strategy, seed 1, -e a tenth of its table, with its table's
#      pins: as a user who tunes those sizes one after another (each
#      search starts from the records of the ones before it);
#   2. for seeds 1..$SEEDS, TARGET is tuned with its table's pins, -e a
#      tenth of its table and --stop "evals>=N", N 2.5% of its table (the
#      budget the target is read at), once from a copy of base.db and once
#      with --no-db; the stop condition's bound is the budget the strategy
#      is told, so each search is planned for N: they compare with
#      `hplopt replay -e N` (TestSearchIsReplay), not with the figures
#      after N of a replay of a tenth (docs/replay.md, "Live, on the
#      H200");
#   3. the table's three fastest rows are measured again (every parameter
#      pinned, -e 1, --no-db), the optimum the fractions are taken of.
# Everything goes to $OUT/out.tgz (packed again after each case), the
# summary lines also to stdout.
#   CASES="gs-update4096-h200:gs-update5120-h200-fdtd,..." (names as
#     the tables' files, without .csv)
#   AT=N: read the target at N evaluations instead of 2.5% of its table
#     (20: the first budget of the target's second half).
#   SEEDS=N (default 5); GUARD=S (default 480): no case is begun once S
#     seconds have passed.
# Binary: .gpu/hplopt.xz (build, then xz). Run from the repository root:
#   OUT=/some/dir CASES=... bash docs/results/h100/scripts/session35.sh
set -u
: "${OUT:?set OUT to the output directory}"
: "${CASES:?set CASES}"
RET=$OUT
OUT=/tmp/session35-work
rm -rf "$OUT" && mkdir -p "$OUT"
PART=session35
source docs/results/h100/scripts/common.sh # $H
pack() { tar czf "$RET/.out.tgz" -C "$OUT" . && mv "$RET/.out.tgz" "$RET/out.tgz"; }
tables=$(GT_TABLES=1 GT_DEV=h200 bash docs/results/h100/scripts/groundtruth.sh)
row() { awk -F'|' -v n="$1" '$2 == n' <<<"$tables"; }
# pinrow TABLE K PINS: PINS with the K-th fastest row of
# testdata/replay/TABLE.csv over them, as NAME=V,... (its time_ms last,
# after a space)
pinrow() {
	python3 - "testdata/replay/$1.csv" "$2" "$3" <<'PY'
import csv, sys
rows = [r for r in open(sys.argv[1]) if not r.startswith('#')]
rd = list(csv.DictReader(rows))
def ms(r):
    try:
        return float(r['time_ms'])
    except ValueError:
        return None
ok = sorted((r for r in rd if ms(r) is not None), key=ms)
r = ok[int(sys.argv[2]) - 1]
pins = dict(kv.split('=') for kv in sys.argv[3].split(','))
pins.update((k, v) for k, v in r.items() if k not in ('time_ms', 'cost_ms'))
print(','.join(f'{k}={v}' for k, v in pins.items()), r['time_ms'])
PY
}
best() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['best_ms'], r['evaluations'], ','.join(r.get('started_from') or []) or '-')" "$1" 2>/dev/null || echo "fail - -"; }
start=$(date +%s)
SEEDS=${SEEDS:-5}
GUARD=${GUARD:-480}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
for spec in $CASES; do
	target=${spec%%:*}
	if [ $(($(date +%s) - start)) -ge "$GUARD" ]; then
		echo "$target not begun: $GUARD s have passed" | tee -a "$OUT/summary.txt"
		continue
	fi
	t0=$(date +%s)
	d=$OUT/$target
	mkdir -p "$d"
	IFS='|' read -r _ _ kernel size pins points <<<"$(row "$target")"
	for nb in $(tr , ' ' <<<"${spec#*:}"); do
		IFS='|' read -r _ _ nkernel nsize npins npoints <<<"$(row "$nb")"
		# shellcheck disable=SC2086
		"$H" tune "$nkernel" $nsize -d GPU -q --seed 1 --params "$npins" -e $(((npoints + 9) / 10)) --db "$d/base.db" --json "$d/nb-$nb.json" > "$d/nb-$nb.txt" 2>&1
		echo "$target: neighbour $nb: $(best "$d/nb-$nb.json")" | tee -a "$OUT/summary.txt"
	done
	e=$(((points + 9) / 10))
	at=${AT:-$(((points * 25 + 999) / 1000))}
	for s in $(seq 1 "$SEEDS"); do
		cp "$d/base.db" "$d/rec-$s.db"
		# shellcheck disable=SC2086
		"$H" tune "$kernel" $size -d GPU -q --seed "$s" --params "$pins" -e "$e" --stop "evals>=$at" --db "$d/rec-$s.db" --json "$d/rec-$s.json" > "$d/rec-$s.txt" 2>&1
		rm -f "$d/rec-$s.db"*
		# shellcheck disable=SC2086
		"$H" tune "$kernel" $size -d GPU -q --seed "$s" --params "$pins" -e "$e" --stop "evals>=$at" --no-db --json "$d/cold-$s.json" > "$d/cold-$s.txt" 2>&1
		echo "$target: seed $s at $at: records $(best "$d/rec-$s.json") cold $(best "$d/cold-$s.json")" | tee -a "$OUT/summary.txt"
	done
	for k in 1 2 3; do
		read -r p tms <<<"$(pinrow "$target" $k "$pins")"
		# shellcheck disable=SC2086
		"$H" tune "$kernel" $size -d GPU -q --params "$p" -e 1 --no-db --json "$d/opt-$k.json" > "$d/opt-$k.txt" 2>&1
		echo "$target: row $k of the table ($tms ms recorded): $(best "$d/opt-$k.json")" | tee -a "$OUT/summary.txt"
	done
	echo "$target: $(($(date +%s) - t0)) s" | tee -a "$OUT/summary.txt"
	pack
done
pack
