#!/bin/bash
# Issue 15 on the H100: the build pool, the order of measurement and the
# budget, before (.gpu/hplopt-before, built from commit 6b48ff1) and after
# (.gpu/hplopt), in one session, same seeds, every run with an empty
# compiler cache: a fresh CUDA_CACHE_PATH (NVIDIA's cache of machine code)
# per run, and for the new binary a fresh cache of built programs (--cache)
# and no records (--no-db: the records would let a later run reuse an
# earlier one's result instead of searching).
#
# Run from the repository root with the two binaries in .gpu/:
#   CGO_ENABLED=1 go build -o .gpu/hplopt ./cmd/hplopt
#   git worktree add /tmp/before 6b48ff1 && (cd /tmp/before && CGO_ENABLED=1 go build -o $OLDPWD/.gpu/hplopt-before ./cmd/hplopt)
#   OUT=... docs/results/h100/scripts/pool.sh            # about 7.5 minutes
#   OUT=... PART=order docs/results/h100/scripts/pool.sh # 2 more: ready against proposed
#
# Budgets: MATMUL L genetic 60 s (the issue's runs were 100 s; per-minute
# rates and time fractions are what is compared, and 60 s keeps the session
# within its device time), the suite's 24 kernel-size pairs with genetic
# search at S=4, M=5, L=6 s. The old binary's budget counts the search
# only; the new one's counts the worker's start and the single-point
# kernel's timing too, so the new runs have less search time for the same
# -t. Each run prints: evaluations, evaluations per minute of search, the
# fraction of the search the kernels ran (kernel_s / elapsed_s), waiting for
# builds, and for the new binary the setup and the builders' utilization.
set -u
: "${OUT:?set OUT to the output directory}"
NEW=$PWD/.gpu/hplopt
OLD=$PWD/.gpu/hplopt-before
PART=${PART:-main}
mkdir -p "$OUT"
nproc > "$OUT/nproc.txt"
$NEW devices > "$OUT/devices.txt" 2>&1

# fresh makes an empty directory for a cache and prints its path.
fresh() { mktemp -d "$OUT/cache.XXXXXX"; }

# summary prints one line per JSON report given (a tune --json file, or a
# bench run record holding one under "report").
summary() {
  python3 - "$@" <<'PY'
import json, sys
for f in sys.argv[1:]:
    j = json.load(open(f))
    r = j.get("report", j)
    if not r or "evaluations" not in r:
        print(f"{f}: no report ({j.get('error', '')})"); continue
    t, el = r.get("time", {}), r.get("elapsed_s", 0) or 0
    frac = lambda x: 100 * x / el if el else 0
    line = (f"{r['kernel']:7s} {j.get('class', ''):2s} {r['evaluations']:4d} evals, {r['evals_per_minute']:7.1f}/min,"
            f" kernels {frac(t.get('kernel_s', 0)):4.1f}%, waiting for builds {frac(t.get('build_wait_s', 0)):4.1f}% of {el:5.1f} s")
    if "setup_s" in r:
        line += f", setup {r['setup_s']:.1f} s"
    b = r.get("builds")
    if b:
        line += f", {b['builders']} builders {100 * b['utilization']:.0f}% busy ({b['built']} built, {b['failed']} failed)"
    best = "best %.4f ms" % r["best_ms"] if r.get("best_ms") else "no variant"
    print(f"{line}, {best}")
PY
}

# suite sums a bench directory's runs: evaluations per minute over all of
# them, the kernels' fraction of all the search time, runs with a result.
suite() {
  python3 - "$1"/runs/*.json <<'PY'
import json, sys
ev = el = k = 0; ok = n = 0
for f in sys.argv[1:]:
    j = json.load(open(f)); r = j.get("report") or {}
    n += 1; ok += 1 if not j.get("error") else 0
    ev += r.get("evaluations", 0); el += r.get("elapsed_s", 0); k += r.get("time", {}).get("kernel_s", 0)
print(f"suite: {n} runs, {ok} with a verified variant; {ev} evaluations in {el:.0f} s of search: {60 * ev / max(el, 1e-9):.1f}/min; kernels {100 * k / max(el, 1e-9):.1f}% of the search")
PY
}

if [ "$PART" = main ]; then
  # 1. MATMUL L, genetic, 60 s.
  for b in before after; do
    export CUDA_CACHE_PATH=$(fresh)
    if [ $b = before ]; then
      $OLD tune matmul -d GPU --size L -s genetic -t 60 --runs 5 -q --json "$OUT/matmul-L-$b.json" > "$OUT/matmul-L-$b.txt" 2>&1
    else
      $NEW tune matmul -d GPU --size L -s genetic -t 60 --runs 5 -q --no-db --cache "$(fresh)" --json "$OUT/matmul-L-$b.json" > "$OUT/matmul-L-$b.txt" 2>&1
    fi
    echo "MATMUL L genetic 60 s, $b:"; summary "$OUT/matmul-L-$b.json"
    rm -rf "$CUDA_CACHE_PATH"
  done

  # 2. The suite: 8 kernels x S, M, L, genetic, short budgets; an empty
  # compiler cache for each binary's whole suite (one bench call each).
  for b in before after; do
    export CUDA_CACHE_PATH=$(fresh)
    if [ $b = before ]; then
      $OLD bench -d GPU --sizes S,M,L -s genetic -t S=4,M=5,L=6 --runs 3 -q --out "$OUT/suite-$b" > "$OUT/suite-$b.log" 2>&1
    else
      $NEW bench -d GPU --sizes S,M,L -s genetic -t S=4,M=5,L=6 --runs 3 -q --no-db --cache "$(fresh)" --out "$OUT/suite-$b" > "$OUT/suite-$b.log" 2>&1
    fi
    echo "suite, $b:"; summary "$OUT/suite-$b"/runs/*.json; suite "$OUT/suite-$b"
    rm -rf "$CUDA_CACHE_PATH"
  done
fi

if [ "$PART" = order ]; then
  # 3. The order of measurement with the new binary: MATMUL L and DCS3D M
  # (slow builds behind fast ones), ready against proposed.
  for spec in matmul:L:genetic:40 dcs3d:M:random:20; do
    IFS=: read k s st t <<< "$spec"
    for o in ready proposed; do
      export CUDA_CACHE_PATH=$(fresh)
      $NEW tune $k -d GPU --size $s -s $st -t $t --runs 3 -q --no-db --order $o --cache "$(fresh)" --json "$OUT/order-$k-$s-$o.json" > "$OUT/order-$k-$s-$o.txt" 2>&1
      echo "$k $s $st ${t}s, order $o:"; summary "$OUT/order-$k-$s-$o.json"
      rm -rf "$CUDA_CACHE_PATH"
    done
  done
fi
rm -rf "$OUT"/cache.*
