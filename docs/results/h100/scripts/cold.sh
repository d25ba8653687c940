#!/bin/bash
# 2 against 8 parallel builds with a cold NVIDIA compute cache for every run.
set -u
H=./.gpu/hplopt
for spec in dcs3d:M:10 nbody:L:14 conv2d:S:8 matmul:L:14; do
  IFS=: read k s t <<< "$spec"
  for st in random genetic; do
    for b in 2 8; do
      export CUDA_CACHE_PATH=$(mktemp -d)
      $H tune $k -d GPU --size $s -s $st -t $t --runs 3 --builds $b -q > $OUT/$k-$st-$b.txt 2>&1
      echo "$k $s $st builds=$b: $(grep -E '^(evaluations|time|best)' $OUT/$k-$st-$b.txt | tr '\n' ' ')"
      rm -rf $CUDA_CACHE_PATH
    done
  done
done
