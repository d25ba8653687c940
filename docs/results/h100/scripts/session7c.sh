#!/bin/bash
# The suite after the split pass, ftz, tiles of 1 and the convolutions'
# new start points (2026-11-27). Binary: .gpu/hplopt.xz (`make gpu`, then
# xz); .gpu/cublas_sgemm.py is the cuBLAS SGEMM timer (PyTorch, TF32 off).
#   PART=ab: NBODY's and DCS3D's best variants of earlier benches with
#     ftz=0 and ftz=1, twice, interleaved; 1DCONV L settings with split
#     (`hplopt run --reps 20`, each checked).
#   PART=c1: 1DCONV L with points side by side, fully unrolled, and split.
#   PART=l1: cuBLAS 4096 before; the bench at L, 45 s a kernel, on MATMUL,
#     SYRK, SYR2K and 1DCONV; cuBLAS after.
#   PART=l2: the same on NBODY, DCS3D, 2DCONV and 3DCONV.
#   PART=sm: cuBLAS 1024 and 2048 before; the bench at S and M (8 and 10 s
#     a kernel) on all eight; cuBLAS after.
# Run from the repository root:  OUT=/some/dir PART=ab,l1 bash docs/results/h100/scripts/session7c.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-ab,l1}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
{ $H version; nvidia-smi -L; nvidia-smi --query-gpu=clocks.max.sm,clocks.max.mem,power.limit --format=csv; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
if [[ $PART == *ab* ]]; then
  NBODY='bszx=1,fullunroll=0,interleave=0,lcopy=0,lmem=1,lszx=512,ltrans=0,pack=1,prefetch=2,szx=65536,tw0=256,uf=16,vec=1,vw=1'
  DCS3D='bszx=8,bszy=2,bszz=4,fullunroll=0,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=16,lszy=16,lszz=1,ltrans=0,pack=0,prefetch=0,szx=16,szy=64,szz=32,tw0=16,uf=16,vec=1,vw=1,warp=0'
  for round in 1 2; do
    for f in 0 1; do
      $H run nbody --size L -d GPU --reps 20 --params "$NBODY,ftz=$f" >> "$OUT/r/ab-nbody.txt" 2>&1
      $H run dcs3d --size L -d GPU --reps 20 --params "$DCS3D,ftz=$f" >> "$OUT/r/ab-dcs3d.txt" 2>&1
    done
  done
  C1='bszx=4,fullunroll=0,interleave=0,lcopy=1,lmem=1,lszx=64,ltrans=0,pack=0,prefetch=1,szx=16384,tw0=256,uf=1,vec=1,vw=1'
  for p in "$C1" "$C1,split=8" "$C1,split=16" "$C1,split=4" "$C1,fullunroll=1,interleave=1,uf=8,split=8" \
      'bszx=4,fullunroll=1,interleave=1,lszx=32,tw0=128,uf=8,lmem=1,lcopy=1,prefetch=1,split=16' \
      'bszx=8,fullunroll=1,interleave=1,lszx=32,tw0=256,uf=8,lmem=1,lcopy=1,prefetch=1,split=8' \
      'bszx=2,fullunroll=1,interleave=1,lszx=64,tw0=256,uf=8,lmem=1,lcopy=1,prefetch=1,split=8'; do
    $H run conv1d --size L -d GPU --reps 20 --params "$p" >> "$OUT/r/conv1d-split.txt" 2>&1
  done
fi
if [[ $PART == *c1* ]]; then
  # 1DCONV L: points side by side (interleave=0) and fully unrolled with
  # the loop unrolled by 16, so that neighbouring points' reads of in[]
  # coincide in the unrolled code.
  for p in \
      'bszx=16,interleave=0,fullunroll=1,lszx=32,tw0=256,uf=16,lmem=1,lcopy=1,split=8' \
      'bszx=8,interleave=0,fullunroll=1,lszx=64,tw0=256,uf=16,lmem=1,lcopy=1,split=8' \
      'bszx=16,interleave=0,fullunroll=1,lszx=32,tw0=256,uf=16,lmem=1,lcopy=1,prefetch=1,split=4' \
      'bszx=16,interleave=0,fullunroll=1,lszx=32,tw0=128,uf=16,lmem=1,lcopy=1,split=8' \
      'bszx=32,interleave=0,fullunroll=1,lszx=16,tw0=128,uf=16,lmem=1,lcopy=1,split=8' \
      'bszx=16,interleave=0,fullunroll=1,lszx=32,tw0=256,uf=16,lmem=1,lcopy=1,split=4' \
      'bszx=16,interleave=0,fullunroll=1,lszx=64,tw0=128,uf=16,lmem=1,lcopy=1,prefetch=1,split=4'; do
    $H run conv1d --size L -d GPU --reps 20 --params "$p" >> "$OUT/r/conv1d-side.txt" 2>&1
  done
fi
bench() { # name sizes budget kernels [extra]
  (cd "$OUT/r" && $H bench -d GPU --sizes $2 -s genetic -t $3 --kernels $4 --reference cublas-$1-before.txt --no-db --out suite-$1 > bench-$1.log 2>&1)
}
if [[ $PART == *l1* ]]; then
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l1-before.txt" 2>&1
  bench l1 L L=45 matmul,syrk,syr2k,conv1d
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l1-after.txt" 2>&1
fi
if [[ $PART == *l2* ]]; then
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l2-before.txt" 2>&1
  bench l2 L L=45 nbody,dcs3d,conv2d,conv3d
fi
if [[ $PART == *sm* ]]; then
  python3 .gpu/cublas_sgemm.py 1024 2048 > "$OUT/r/cublas-sm-before.txt" 2>&1
  bench sm S,M S=8,M=10 paper
  python3 .gpu/cublas_sgemm.py 1024 2048 > "$OUT/r/cublas-sm-after.txt" 2>&1
fi
tar czf "$OUT/r-${PART//,/-}.tgz" -C "$OUT" r
