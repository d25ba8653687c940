#!/bin/bash
# The last H100 calls of the session of 2026-11-24, binary .gpu/hplopt
# (make gpu), each a part of at most 10 minutes:
#
# PART=sm  cuBLAS SGEMM 1024/2048/4096 (before), the suite at S and M
#          (`hplopt bench -d GPU --sizes S,M -s genetic -t S=8,M=10`, the
#          budgets of the earlier suites), then the PoCL replay tables'
#          check (RECHECK=1): the 10 fastest rows and 10 rows drawn at random
#          of each *-pocl-xeon.csv table measured again on the host's PoCL,
#          one round each (remeasure.py, every parameter pinned).
# PART=l   cuBLAS SGEMM 4096 (before), the suite at L with 45 s a kernel
#          (`--sizes L -t L=45`: the 14 s of the earlier suites starved
#          SYR2K, 3DCONV, DCS3D and 2DCONV, whose single-point kernels take
#          0.3-5 s), then cuBLAS 1024/2048/4096 (after).
#
# Run from the repository root:  OUT=/some/dir PART=sm bash docs/results/h100/scripts/session5b.sh
# Everything goes to $OUT/b, packed as $OUT/b.tgz after each step.
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
D=$OUT/b
mkdir -p "$D/raw"
T0=$(date +%s)
pack() { echo "$1: $(( $(date +%s) - T0 )) s" >> "$D/raw/times.txt"; tar czf "$OUT/b.tgz" -C "$OUT" b; }
$H version > "$D/raw/version.txt" 2>&1
PART=${PART:-sm}
if [ "$PART" = sm ]; then
  $H devices > "$D/raw/devices.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> "$D/raw/devices.txt" 2>&1
  python3 bench/reference/cublas_sgemm.py 1024 2048 4096 > "$D/raw/cublas-before.txt" 2>&1
  pack cublas-before
  (cd "$D" && timeout -s INT 330 $H bench -d GPU --sizes S,M -s genetic -t S=8,M=10 \
      --reference raw/cublas-before.txt --no-db --out suite-sm > raw/bench-sm.log 2>&1)
  pack bench-sm
  if [ "${RECHECK:-1}" = 1 ]; then
    mkdir -p "$D/recheck"
    for spec in "matmul128|matmul|-n 128,128 -k 128" "conv2d256|conv2d|-n 256,256 -k 5,5" "mv1024|mv|-n 1024 -k 1024"; do
      IFS='|' read -r t k s <<< "$spec"
      HPLOPT=$H NEUTRAL= SAMPLE=10 timeout 100 python3 testdata/replay/remeasure.py \
        "testdata/replay/$t-pocl-xeon.csv" "$k" "$s" "$D/recheck/$t.csv" 10 1 10 > "$D/recheck/$t.log" 2>&1
      pack "recheck $t"
    done
  fi
fi
if [ "$PART" = l ]; then
  python3 bench/reference/cublas_sgemm.py 4096 > "$D/raw/cublas-l-before.txt" 2>&1
  pack cublas-l-before
  (cd "$D" && timeout -s INT 520 $H bench -d GPU --sizes L -s genetic -t L=45 \
      --reference raw/cublas-l-before.txt --no-db --out suite-l > raw/bench-l.log 2>&1) 
  pack bench-l
  python3 bench/reference/cublas_sgemm.py 1024 2048 4096 > "$D/raw/cublas-after.txt" 2>&1
  pack cublas-after
fi
pack done
