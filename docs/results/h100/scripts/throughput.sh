#!/bin/bash
# Issue 15 on the H100: where MATMUL L's search waits, split (waiting for
# the builders, the measuring worker loading the builders' binaries,
# running variants and of that the kernels, checking outputs, the rest),
# with the outputs checked on the device (--check auto, the default on a
# GPU) and, for comparison, on the host (--check host). Each run has an
# empty compiler cache (a fresh CUDA_CACHE_PATH), an empty cache of built
# programs (--cache) and no records (--no-db).
#
# Run from the repository root with the binary in .gpu/hplopt:
#   CGO_ENABLED=1 go build -o .gpu/hplopt ./cmd/hplopt
#   OUT=... docs/results/h100/scripts/throughput.sh   # about 2.5 minutes
# CHECK="auto" runs the first alone (about 1.2 minutes).
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
mkdir -p "$OUT"
nproc > "$OUT/nproc.txt"
for check in ${CHECK:-auto host}; do
  name=matmul-L-check-$check
  export CUDA_CACHE_PATH=$(mktemp -d "$OUT/cuda.XXXXXX")
  cache=$(mktemp -d "$OUT/cache.XXXXXX")
  $H tune matmul -d GPU --size L -s genetic -t 60 --runs 5 -q --no-db --check $check --cache "$cache" \
    --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
  echo "MATMUL L genetic 60 s, --check $check (rc $?):"
  grep -E '^(evaluations|time|device|builders)' "$OUT/$name.txt" | sed 's/^/  /'
  python3 - "$OUT/$name.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
t, el = r["time"], r["elapsed_s"] or 1
pc = lambda k: 100 * t.get(k, 0) / el
print(f"  {r['evaluations']} evaluations, {r['evals_per_minute']:.1f}/min; search {el:.1f} s after a setup of {r.get('setup_s', 0):.1f} s")
print(f"  split: builds {pc('build_wait_s'):.0f}%, loading {pc('load_wait_s'):.0f}%, running {pc('run_s'):.0f}%"
      f" (kernels {pc('kernel_s'):.0f}%), checking {pc('check_s'):.0f}%, other {pc('other_s'):.0f}%")
b = r.get("builds")
if b:
    print(f"  builders: {b['builders']}, {100 * b['utilization']:.0f}% busy")
cs = [e["cost"] for e in r.get("history", []) if e.get("cost") and e["outcome"] == "ok"]
if cs:
    med = lambda k: statistics.median(c[k] for c in cs)
    print(f"  per verified variant (median of {len(cs)}): build wait {med('build_ms'):.1f} ms, load {med('load_ms'):.1f} ms,"
          f" run {med('run_ms'):.1f} ms (kernels {med('kernel_ms'):.1f} ms), check {med('check_ms'):.1f} ms")
PY
  rm -rf "$CUDA_CACHE_PATH" "$cache"
done
