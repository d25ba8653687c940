#!/bin/bash
# Evaluations per budget with 2 vs the default (half the cores) parallel builds.
set -u
H=./.gpu/hplopt
mkdir -p $OUT/builds
nproc > $OUT/builds/nproc.txt
for spec in conv2d:S conv3d:S conv3d:M dcs3d:M nbody:L matmul:L; do
  k=${spec%%:*}; s=${spec##*:}
  for b in 2 0; do
    for st in random genetic; do
      $H tune $k -d GPU --size $s -s $st -t 10 --runs 3 --builds $b -q --json $OUT/builds/$k-$s-$st-b$b.json > $OUT/builds/$k-$s-$st-b$b.txt 2>&1
      echo "$k $s $st builds=$b: $(grep -E '^(evaluations|best)' $OUT/builds/$k-$s-$st-b$b.txt | tr '\n' ' ')"
    done
  done
done
