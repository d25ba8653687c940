#!/bin/bash
set -u
H=./.gpu/hplopt
for spec in matmul:L:genetic:14 syr2k:L:genetic:14 nbody:L:genetic:14 conv2d:M:genetic:10 dcs3d:M:random:10 conv1d:L:genetic:14; do
  IFS=: read k s st t <<< "$spec"
  $H tune $k -d GPU --size $s -s $st -t $t --runs 3 -q > $OUT/$k.txt 2>&1
  echo "$k $s $st: $(grep -E '^(evaluations|time|best)' $OUT/$k.txt | tr '\n' ' ')"
done
$H tune conv1d -d GPU --size L -s genetic -t 14 --runs 3 --builds 14 -q > $OUT/conv1d-b14.txt 2>&1
echo "conv1d L genetic builds 14: $(grep -E '^(evaluations|time|best)' $OUT/conv1d-b14.txt | tr '\n' ' ')"
