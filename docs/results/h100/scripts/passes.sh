#!/bin/bash
# The techniques of issue 17 on the H100, one change at a time (about 4
# minutes). Run from the repository root with the binary in .gpu/hplopt
# (make gpu) and $OUT set:
#
#   OUT=/some/dir bash docs/results/h100/scripts/passes.sh
#
# SEARCH=0 leaves out the two short searches at the end (about 2 minutes).
#
# Every line of $OUT/passes/summary.txt is one `hplopt run` (10 launches,
# the best time, checked against the CPU reference on sampled points) of a
# setting that differs from the line it names in one parameter, or a short
# genetic search; cuBLAS SGEMM 4096 (TF32 off) is timed before and after
# when PyTorch is there. The logs of each run are beside it.
set -u
H=$PWD/.gpu/hplopt
D=$OUT/passes
mkdir -p $D
S=$D/summary.txt
: > $S

# run LABEL KERNEL PARAMS WHAT: one setting at size L.
run() {
  local label=$1 kernel=$2 params=$3 what=$4
  timeout 60 $H run $kernel -d GPU --size L --reps 10 --params "$params" > $D/$label.log 2>&1
  local line
  line=$(grep -E ' ms, .* check' $D/$label.log | tail -1 | sed -E 's/.*: ([0-9.]+ ms, [0-9.]+ [GT]FLOP\/s, check [a-zA-Z]+).*/\1/')
  [ -n "$line" ] || line="failed: $(tail -1 $D/$label.log)"
  printf '%-4s %-7s %-60s | %s\n' "$label" "$kernel" "$what" "$line" | tee -a $S
}

cublas() {
  if python3 -c 'import torch' 2>/dev/null; then
    python3 bench/reference/cublas_sgemm.py 4096 2>&1 | tail -1 | sed "s/^/cuBLAS $1: /" | tee -a $S
  else
    echo "cuBLAS $1: no PyTorch" | tee -a $S
  fi
}

$H devices > $D/devices.txt 2>&1
cublas before

# MATMUL 4096. B is the best setting of the earlier 100 s searches (128x128
# tiles, 16x16 work-items of 8x8 points, 16-deep tiles, unrolled 16 times).
B=bszx=8,bszy=8,fullunroll=1,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,szx=512,szy=512,tw0=16,uf=16
run m01 matmul "$B,vw=1" "B: the earlier best (3.79-3.81 ms)"
run m02 matmul "$B,vw=2" "m01 + runs of 2 points (vw=2)"
run m03 matmul "$B,vw=2,pack=1" "m02 + float2 local reads (b's rows)"
run m04 matmul "$B,vw=2,ltrans=1" "m02 + a's tile transposed"
run m05 matmul "$B,vw=2,ltrans=1,pack=1" "m04 + float2 reads of both tiles"
run m06 matmul "$B,vw=4,ltrans=1,pack=1" "m05 with runs of 4: float4 reads"
run m07 matmul "$B,vw=2,prefetch=1" "m02 + register prefetch of the next tile"
run m08 matmul "$B,vw=2,prefetch=2" "m02 + double-buffered tiles"
run m09 matmul "$B,vw=2,ltrans=1,pack=1,prefetch=2" "m05 + double-buffered tiles"
run m10 matmul "$B,vw=2,warp=4" "m02 + warps of 4x8 work-items"
run m11 matmul "$B,vw=2,warp=8" "m02 + warps of 8x4 work-items"
run m12 matmul "$B,vw=2,gswz=8" "m02 + work-groups in bands of 8 rows"
run m13 matmul "$B,vw=2,vec=2" "m02 + float2 arithmetic, vector stores"
W=bszx=16,bszy=8,fullunroll=1,interleave=1,lcopy=0,lmem=1,lszx=8,lszy=16,szx=256,szy=512,tw0=16,uf=16
run m14 matmul "$W,vw=2" "wider blocks: 16x8 points, 8x16 items"
run m15 matmul "$W,vw=4,ltrans=1,pack=1" "m14 + float4 reads of both tiles"
run m16 matmul "$B,vw=2,ltrans=1,pack=1,prefetch=2,warp=4,gswz=8" "m09 + warp=4 + gswz=8"

# NBODY 65536: the bench's best (one body per work-item, 32-body tiles).
N=fullunroll=0,interleave=0,lcopy=0,lmem=1,lszx=256,uf=4
run n01 nbody "bszx=1,szx=65536,$N,tw0=32" "the bench's best (3.94 ms)"
run n02 nbody "bszx=1,szx=65536,$N,tw0=32,pack=1" "n01 + float4 reads of the staged bodies"
run n03 nbody "bszx=1,szx=65536,$N,tw0=256,pack=1" "n02 with 256-body tiles"
run n04 nbody "bszx=2,szx=32768,$N,tw0=256,pack=1" "n03 with 2 bodies per work-item"

# DCS3D 128^3, 8192 atoms: the bench's best.
C=fullunroll=1,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=8,lszz=2,szy=64,szz=64,bszy=2,bszz=2,uf=4,vw=1
run d01 dcs3d "bszx=1,szx=128,$C,tw0=32" "the bench's best (5.98 ms)"
run d02 dcs3d "bszx=1,szx=128,$C,tw0=32,pack=1" "d01 + float4 reads of the staged atoms"
run d03 dcs3d "bszx=1,szx=128,$C,tw0=256,pack=1" "d02 with 256-atom tiles"
run d04 dcs3d "bszx=2,szx=64,$C,tw0=256,pack=1" "d03 with 2 points along x per work-item"

# 2DCONV 2048^2, 256^2 filter: the bench's best (interleaved points).
V=bszx=4,bszy=4,fullunroll=1,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,szx=512,szy=512,tw0=32,tw1=32,uf=4
run c01 conv2d "$V,vw=1" "the bench's best (70.4 ms)"
run c02 conv2d "$V,vw=4" "c01 with runs of 4 points along x"
run c03 conv2d "$V,vw=4,pack=1" "c02 + the overlapping windows in registers"
run c04 conv2d "$V,vw=4,pack=1,prefetch=1" "c03 + register prefetch of the next tile"

# Short searches of the new space: everything free, then the new
# parameters on B's layout.
if [ "${SEARCH:-1}" = 0 ]; then
  cublas after
  exit 0
fi
timeout 75 $H tune matmul -d GPU --size L -s genetic -t 60 --runs 3 --db $D/records.db --reuse ignore \
  --json $D/t1.json --emit $D/t1.cl > $D/t1.log 2>&1
echo "t1   matmul  genetic 60 s, all parameters free: $(grep -E '^(best|params)' $D/t1.log | tr '\n' ' ')" | tee -a $S
timeout 60 $H tune matmul -d GPU --size L -s genetic -t 45 --runs 3 --db $D/records.db --reuse ignore \
  --params bszx=8,bszy=8,lszx=16,lszy=16,szx=512,szy=512,interleave=1,fullunroll=1,lmem=1 \
  --json $D/t2.json --emit $D/t2.cl > $D/t2.log 2>&1
echo "t2   matmul  genetic 45 s on B's layout: $(grep -E '^(best|params)' $D/t2.log | tr '\n' ' ')" | tee -a $S

cublas after
