#!/bin/bash
# The 17 kernels of the suite of user kernels (kernels.Suite) at size M, one
# 5 s genetic search each, then three kernels written in OpenCL C
# (testdata/clc: a guarded matrix product, a 2D stencil, n-body), one 5 s
# search each, on the H100. About 2.5 minutes (2 m 9 s on 2026-11-23): each command is cut by
# timeout (SIGINT: bench and tune stop and write what they measured).
# Run from the repository root on the GPU machine, with hplopt built at
# ./.gpu/hplopt (no Go there); writes everything under $OUT.
set -u
H=$PWD/.gpu/hplopt
mkdir -p $OUT/raw $OUT/cl
uptime > $OUT/raw/uptime.txt
$H devices > $OUT/raw/devices.txt 2>&1
timeout -s INT 285 $H bench -d GPU --kernels suite --sizes M -s genetic -t 5 --out $OUT/suite --no-db > $OUT/raw/suite.log 2>&1
tail -3 $OUT/raw/suite.log
for r in "matmul --global 2048,2048 --arg m=2048 --arg n=2048 --arg p=2048" \
         "stencil2d --global 4096,4096 --arg nx=4096 --arg ny=4096" \
         "nbody --global 32768 --arg n=32768 --arg eps2=0.01"; do
  k=${r%% *}; flags=${r#* }
  # the kernel.cl part of the txtar archive, as written
  sed -n '/^-- kernel.cl --$/,/^-- /p' testdata/clc/$k.txtar | sed '1d;$d' > $OUT/cl/$k.cl
  timeout -s INT 12 $H tune $OUT/cl/$k.cl $flags -d GPU -s genetic -t 5 --no-db -q --json $OUT/cl/$k.json > $OUT/cl/$k.txt 2>&1
  echo "$k.cl $flags: $(grep -E '^(evaluations|single-point|best)' $OUT/cl/$k.txt | tr -s ' ' | tr '\n' ' ')"
done
