#!/bin/bash
# The build pool on PoCL (the 2-core development machine): the runs of
# issue 15 with the binary of commit 6b48ff1 (B, before) and the current one
# (A), each run with an empty PoCL kernel cache (B: a fresh POCL_CACHE_DIR;
# A: a fresh --cache, whose pocl/ its processes use), no records for A.
#   OUT=dir B=path/to/hplopt-before A=path/to/hplopt docs/results/pocl/scripts/pool.sh
# About 11 minutes.
set -u
: "${OUT:?}" "${A:?}" "${B:?}"
mkdir -p "$OUT"
run() { # name, then the command
  local name=$1; shift
  local s=$(date +%s.%N)
  "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  printf 'rc %d, wall %.1f s, load %s\n' $rc "$(echo "$(date +%s.%N) - $s" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/$name.txt"
  echo "$name: $(grep -E '^(evaluations|failures)' "$OUT/$name.txt" | tr '\n' ' ')$(tail -1 "$OUT/$name.txt")"
}
fresh() { rm -rf "$OUT/cache"; mkdir -p "$OUT/cache"; echo "$OUT/cache"; }
# 1. First-launch compiles: the issue's reproducer (correct variants were
# classified timeout), twice each.
for i in 1 2; do
  run conv2d-tiny-before-$i env POCL_KERNEL_CACHE=0 POCL_CACHE_DIR="$(fresh)" $B tune conv2d -d CPU -t 20 --seed 2 -q --json "$OUT/conv2d-tiny-before-$i.json"
  run conv2d-tiny-after-$i env POCL_KERNEL_CACHE=0 $A tune conv2d -d CPU -t 20 --seed 2 -q --no-db --cache "$(fresh)" --json "$OUT/conv2d-tiny-after-$i.json"
done
# 2. Evaluations per minute, 30 s, same seeds.
for spec in matmul:tiny:genetic dcs3d:S:random; do
  IFS=: read k s st <<< "$spec"
  run $k-$s-$st-before env POCL_CACHE_DIR="$(fresh)" $B tune $k -d CPU --size $s -s $st -t 30 -q --json "$OUT/$k-$s-$st-before.json"
  run $k-$s-$st-after $A tune $k -d CPU --size $s -s $st -t 30 -q --no-db --cache "$(fresh)" --json "$OUT/$k-$s-$st-after.json"
done
# 3. The budget: a slow single-point kernel, and one slower than the budget.
run conv2d-S-after $A tune conv2d -d CPU --size S -t 20 -q --no-db --cache "$(fresh)"
run matmul-M-after $A tune matmul -d CPU --size M -t 5 -q --no-db --cache "$(fresh)"
# 4. Order of measurement: proposed against ready, interleaved, twice.
for i in 1 2; do
  for spec in matmul:tiny:genetic dcs3d:S:random; do
    IFS=: read k s st <<< "$spec"
    for o in proposed ready; do
      run order$i-$k-$s-$st-$o $A tune $k -d CPU --size $s -s $st -t 30 -q --no-db --order $o --cache "$(fresh)" --json "$OUT/order$i-$k-$s-$st-$o.json"
    done
  done
done
rm -rf "$OUT/cache"
