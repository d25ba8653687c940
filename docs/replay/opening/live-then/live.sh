#!/bin/bash
# Live check of the opening's continuation (--then model) against the default's (genetic).
# CONV_SEEDS (default 1 2) and MATMUL_SEEDS (default 1) name the seeds of each kernel's searches.
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
[ -x .gpu/hplopt ] || xz -dkf .gpu/hplopt.xz
mkdir -p $OUT/live
nvidia-smi --query-gpu=name,clocks.current.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/live/gpu.txt 2>&1
./.gpu/hplopt devices > $OUT/live/devices.txt 2>&1
for seed in ${CONV_SEEDS:-1 2}; do
  for then in genetic model; do
    timeout 120 ./.gpu/hplopt conv3d -n 128,128,128 -k 5,5,5 -d GPU -s opening --then $then -e 162 -t 75 --seed $seed --no-db --json $OUT/live/conv3d-$then-$seed.json > $OUT/live/conv3d-$then-$seed.txt 2>&1
  done
done
for seed in ${MATMUL_SEEDS:-1}; do
  for then in genetic model; do
    timeout 100 ./.gpu/hplopt matmul -n 4096,4096 -k 4096 -d GPU -s opening --then $then -t 60 --seed $seed --no-db --json $OUT/live/matmul-$then-$seed.json > $OUT/live/matmul-$then-$seed.txt 2>&1
  done
done
cd $OUT && tar czf live.tgz live && rm -rf live
