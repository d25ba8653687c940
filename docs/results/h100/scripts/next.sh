#!/bin/bash
# What the session of 2026-11-23 built but could not measure on the H100
# (its device time ran out), in one call of about 7 minutes. Run from the
# repository root with the binary in .gpu/hplopt (make gpu) and $OUT set:
#
#   OUT=/some/dir bash docs/results/h100/scripts/next.sh
#
# 1. throughput.sh: MATMUL L genetic 60 s with the outputs checked on the
#    device (--check auto) and on the host, empty caches (issue 15: the
#    kernels' share of the search, 34% at 0bcee9b with checking at 37%).
# 2. hybrid against genetic, live: MATMUL L, 60 s each, the same seed, no
#    records (issue 14: hybrid met the replay target on both H100 tables;
#    its build overlap was never timed on the GPU).
# 3. 2DCONV M and L genetic with the slow limit (default 10) and without
#    (--slow-limit 0): at 0bcee9b each measured 2 variants and lost 7-10 s
#    of 10-14 s budgets to evaluations that never ended.
# Everything goes to $OUT/next, packed as $OUT/next.tgz after each part (the
# device tool returns few files).
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
D=$OUT/next
mkdir -p "$D"
pack() { tar czf "$OUT/next.tgz" -C "$OUT" next; }
$H version > "$D/version.txt" 2>&1
$H devices >> "$D/version.txt" 2>&1

OUT=$D/throughput timeout 170 bash docs/results/h100/scripts/throughput.sh > "$D/throughput.txt" 2>&1
pack

for s in genetic hybrid; do
  timeout -s INT 75 $H tune matmul -d GPU --size L -s $s -t 60 --seed 1 --no-db \
    --json "$D/matmul-L-$s.json" > "$D/matmul-L-$s.txt" 2>&1
  echo "MATMUL L $s 60 s: $(grep -E '^(evaluations|time|best)' "$D/matmul-L-$s.txt" | tr -s ' ' | tr '\n' ' ')"
done | tee "$D/strategies.txt"
pack

for lim in 10 0; do
  (cd "$D" && timeout -s INT 60 $H bench -d GPU --kernels conv2d --sizes M,L -s genetic -t M=10,L=14 \
    --slow-limit $lim --no-db --out "conv2d-slow$lim" > "conv2d-slow$lim.log" 2>&1)
  echo "2DCONV --slow-limit $lim: $(tail -3 "$D/conv2d-slow$lim.log" | head -1)"
done | tee "$D/slowlimit.txt"
pack
