#!/bin/bash
# MATMUL 1024 on PoCL beside OpenBLAS SGEMM 1024 in the same run, one
# change at a time (docs/results/pocl/matmul-openblas.md). From the
# repository root, after make build reference:
#
#   bash docs/results/pocl/matmul-openblas.sh [SECONDS]   # default 120
#
# Each `hplopt run` line is the best of 10 launches, checked against the CPU
# reference; OpenBLAS prints the median of 10 products. OpenBLAS 0.3.21
# (Debian's) picks its AVX2 kernels (Haswell) on this CPU, which has
# AVX-512: each OpenBLAS line is run as installed and with its AVX-512
# kernels forced (OPENBLAS_CORETYPE=SkylakeX).
set -u
H=./bin/hplopt
T=${1:-120}
openblas() {
  echo "OpenBLAS as installed: $(./bin/openblas_sgemm 1024) | AVX-512 (SkylakeX): $(OPENBLAS_CORETYPE=SkylakeX ./bin/openblas_sgemm 1024)"
}
run() {
  echo "$1: $($H run matmul -d CPU -n 1024 -k 1024 --reps 10 --params "$2" 2>&1 | grep -o '[0-9.]* ms, [0-9.]* GFLOP/s, check [a-zA-Z]*')"
}
uptime
openblas
run "s1 the PoCL suite's best before (random, 45 s)" bszx=16,bszy=4,fullunroll=1,interleave=0,lcopy=1,lmem=1,lszx=32,lszy=4,szx=32,szy=256,tw0=64,uf=2
run "s2 the CPU seed before: runs of 16 in vectors of 4" bszx=16,bszy=2,fullunroll=1,interleave=1,vw=4,lszx=4,lszy=2,uf=8
run "s3 s2 + vec=4: each run of 4 a float4" bszx=16,bszy=2,fullunroll=1,interleave=1,vw=4,lszx=4,lszy=2,uf=8,vec=4
run "s4 16x8 points side by side, vec=16, one item per group" bszx=16,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,uf=4,vec=16
run "s5 s4 with 32x8 points: two float16 per row" bszx=32,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,uf=4,vec=16
run "s6 s5 with 2 work-items per group" bszx=32,bszy=8,fullunroll=1,interleave=0,lszx=2,lszy=1,uf=4,vec=16
run "s7 s5 with szx=2 (16 blocks per work-item along x)" bszx=32,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,szx=2,uf=4,vec=16
run "s8 s5 with uf=2" bszx=32,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,uf=2,vec=16
run "s9 s7 with 64x8 points: four float16 per row (genetic's best)" bszx=64,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,szx=2,uf=4,vec=16
openblas
$H tune matmul -d CPU -n 1024,1024 -k 1024 -s genetic -t $T --no-db 2>&1 | grep -E '^(evaluations|single-point|best|params)'
openblas
# Pairs, back to back: OpenBLAS, then the first CPU seed's shape (s5).
for i in 1 2 3 4 5; do
  echo "pair $i: $(openblas) | $(run s5 bszx=32,bszy=8,fullunroll=1,interleave=0,lszx=1,lszy=1,uf=4,vec=16)"
done
uptime
