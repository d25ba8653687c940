#!/bin/bash
# Session 30: the paper's eight kernels at L with the default strategy on the lent GPU.
cd "$(dirname "$0")/.."
xz -d -f -k .gpu/hplopt.xz && chmod +x .gpu/hplopt
H=./.gpu/hplopt
S=$OUT/suite
mkdir -p $S
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu --format=csv > $S/gpu.txt 2>&1
$H devices > $S/devices.txt 2>&1
python3 bench/reference/cublas_sgemm.py 4096 8192 > $S/cublas-before.txt 2>&1
( time timeout -s INT 520 $H bench -d GPU --kernels paper --sizes L -s opening -t 45 --db /tmp/r.db --out $S -q ) > $S/bench.log 2>&1
python3 bench/reference/cublas_sgemm.py 4096 8192 > $S/cublas-after.txt 2>&1
$H bench --report $S --out $S --reference $S/cublas-before.txt >> $S/bench.log 2>&1
$H db --db /tmp/r.db list > $S/dblist.txt 2>&1
cd $OUT && tar cJf suite.tar.xz suite && ls -la suite && rm -rf suite
