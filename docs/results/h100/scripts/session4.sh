#!/bin/bash
# The last H100 call of 2026-11-23 (one call of about 8 minutes, a fresh
# machine): what was built after f46e98a's runs.
#
# 1. MATMUL L genetic 60 s, the binary from before the builder pool
#    (.gpu/hplopt-before, commit 5c0b8fa) and this one, each with an empty
#    compiler cache, the same seed, no records (issue 15: the kernels' share
#    of the search; 52.9% at f46e98a).
# 2. pool.sh PART=order: ready against proposed order (MATMUL L genetic 40
#    s, DCS3D M random 20 s).
# 3. MATMUL L hybrid 60 s (issue 14: hybrid live, 148.9 evaluations a
#    minute at f46e98a).
# 4. 2DCONV M and L genetic with the slow limit (--slow-limit 10, the
#    default) and without (0), budgets M=10, L=14 s.
#
# Run from the repository root with the binaries in .gpu/ (see
# session3.sh):  OUT=/some/dir bash docs/results/h100/scripts/session4.sh
# Everything goes to $OUT/c, packed as $OUT/c.tgz after each step.
set -u
: "${OUT:?set OUT to the output directory}"
S=$(dirname "$0")
H=$PWD/.gpu/hplopt
OLD=$PWD/.gpu/hplopt-before
D=$OUT/c
mkdir -p "$D"
T0=$(date +%s)
pack() { echo "$1: $(( $(date +%s) - T0 )) s" >> "$D/times.txt"; tar czf "$OUT/c.tgz" -C "$OUT" c; }
left() { [ $(( $(date +%s) - T0 )) -lt "$1" ]; }
$H version > "$D/version.txt" 2>&1
split() {
  python3 - "$@" <<'PY'
import json, sys
for f in sys.argv[1:]:
    try:
        r = json.load(open(f))
    except Exception as e:
        print(f"{f}: {e}"); continue
    t, el = r.get("time", {}), r.get("elapsed_s") or 1
    pc = lambda k: 100 * t.get(k, 0) / el
    print(f"{f.split('/')[-1]}: {r.get('evaluations')} evaluations, {r.get('evals_per_minute', 0):.1f}/min, best {r.get('best_ms')} ms;"
          f" builds {pc('build_wait_s'):.1f}%, running {pc('run_s'):.1f}% (kernels {pc('kernel_s'):.1f}%), checking {pc('check_s'):.1f}%, other {pc('other_s'):.1f}% of {el:.1f} s")
PY
}

for b in before after; do
  export CUDA_CACHE_PATH=$(mktemp -d "$D/cuda.XXXXXX")
  if [ $b = before ]; then
    timeout -s INT 75 $OLD tune matmul -d GPU --size L -s genetic -t 60 --runs 5 -q --json "$D/matmul-L-$b.json" > "$D/matmul-L-$b.txt" 2>&1
  else
    timeout -s INT 75 $H tune matmul -d GPU --size L -s genetic -t 60 --runs 5 -q --no-db --cache "$(mktemp -d "$D/cache.XXXXXX")" \
      --json "$D/matmul-L-$b.json" > "$D/matmul-L-$b.txt" 2>&1
  fi
  rm -rf "$CUDA_CACHE_PATH"
done
split "$D"/matmul-L-before.json "$D"/matmul-L-after.json | tee "$D/matmul.txt"
pack matmul

left 330 && { OUT=$D/order PART=order timeout 170 bash "$S/pool.sh" > "$D/order.txt" 2>&1; pack order; }

if left 420; then
  export CUDA_CACHE_PATH=$(mktemp -d "$D/cuda.XXXXXX")
  timeout -s INT 75 $H tune matmul -d GPU --size L -s hybrid -t 60 --no-db --cache "$(mktemp -d "$D/cache.XXXXXX")" \
    --json "$D/matmul-L-hybrid.json" > "$D/matmul-L-hybrid.txt" 2>&1
  rm -rf "$CUDA_CACHE_PATH"
  split "$D"/matmul-L-hybrid.json | tee -a "$D/matmul.txt"
  pack hybrid
fi

if left 470; then
  for lim in 10 0; do
    (cd "$D" && timeout -s INT 45 $H bench -d GPU --kernels conv2d --sizes M,L -s genetic -t M=10,L=14 \
      --slow-limit $lim --no-db --out "conv2d-slow$lim" > "conv2d-slow$lim.log" 2>&1)
    echo "2DCONV --slow-limit $lim:"; grep -E "^\| 2DCONV" "$D/conv2d-slow$lim/results.md" | cut -d'|' -f3,6,7,11,13,16 
  done | tee "$D/slowlimit.txt"
  pack slowlimit
fi
rm -rf "$D"/cache.* "$D"/cuda.*
pack done
