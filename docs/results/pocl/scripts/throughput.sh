#!/bin/bash
# Where the search waits, on PoCL (the 2-core development machine): MATMUL
# at SIZE (default S; M's single-point kernel takes 40 s here), genetic,
# 60 s, with main's binary (B) and this branch's (A) with the outputs
# checked on the host (--check host, the default on a CPU device) and on
# the device (--check device), interleaved, ROUNDS times (default 2), each
# run with an empty cache of built programs and no records.
#   OUT=dir B=path/to/hplopt-main A=path/to/hplopt docs/results/pocl/scripts/throughput.sh
# About 4 minutes a round.
set -u
: "${OUT:?}" "${A:?}" "${B:?}"
ROUNDS=${ROUNDS:-2}
SIZE=${SIZE:-S}
mkdir -p "$OUT"
fresh() { rm -rf "$OUT/cache"; mkdir -p "$OUT/cache"; echo "$OUT/cache"; }
# split prints a tune --json report's evaluations and time split.
split() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t, el = r["time"], r["elapsed_s"]
pc = lambda k: "%4.1f%%" % (100 * t.get(k, 0) / el)
print(f"{r['evaluations']:4d} evals, {r['evals_per_minute']:6.1f}/min, search {el:5.1f} s, setup {r.get('setup_s', 0):4.1f} s:"
      f" builds {pc('build_wait_s')}, loading {pc('load_wait_s')}, running {pc('run_s')} (kernels {pc('kernel_s')}),"
      f" checking {pc('check_s')} ({t['check_s']:.2f} s, {1000 * t['check_s'] / max(1, r['evaluations']):.1f} ms/eval), other {pc('other_s')}")
PY
}
for i in $(seq "$ROUNDS"); do
  for how in main host device; do
    name=matmul-$SIZE-$how-$i
    l0=$(cut -d' ' -f1 /proc/loadavg)
    case $how in
      main) $B tune matmul -d CPU --size $SIZE -s genetic -t 60 -q --no-db --cache "$(fresh)" --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1 ;;
      *) $A tune matmul -d CPU --size $SIZE -s genetic -t 60 -q --no-db --check $how --cache "$(fresh)" --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1 ;;
    esac
    echo "$name (load $l0 to $(cut -d' ' -f1 /proc/loadavg)): $(split "$OUT/$name.json")"
  done
done
rm -rf "$OUT/cache"
