#!/bin/bash
# 1DCONV with points side by side read as float4 windows (2026-11-27).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz); .gpu/cublas_sgemm.py is
# the cuBLAS SGEMM timer (PyTorch, TF32 off).
#   PART=c: 1DCONV L, the best interleaved setting of the 858c099 bench
#     beside settings with points side by side, pack=1 (the window of
#     neighbouring inputs read as float4 runs, now that packing knows the
#     unrolled loop's counter is a multiple of uf), each with
#     `hplopt run --reps 20`, checked.
#   PART=n, o, d: native_rsqrt, build options and DCS3D's neighbours
#     (below); PART=f: ftz=0/1 A/B through hplopt run.
#   PART=l1, l2: cuBLAS 4096 before; the bench at L, 45 s a kernel
#     (MATMUL, SYRK, SYR2K, 1DCONV; NBODY, DCS3D, 2DCONV, 3DCONV);
#     cuBLAS after. PART=sm: the same at S and M, 8 and 10 s a kernel.
#   PART=t: SYRK and SYR2K L tuned for 100 s each.
#   PART=x: MATMUL L and mxmt.cl (b read along rows) tuned for 45 s each.
#   PART=b: hplopt run --build-options -cl-nv-verbose --build-log on the
#     MATMUL and SYR2K L bests.
#   PART=v: 1DCONV, NBODY and DCS3D L with the search's seed 2.
#   PART=r: registers and spills (ptxas -v) of the best MATMUL, SYRK and
#     SYR2K L variants, and two SYR2K neighbours.
# Run from the repository root:  OUT=/some/dir PART=c bash docs/results/h100/scripts/session8.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-c}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
has() { [[ ",$PART," == *",$1,"* ]]; }
# The settings measured by several parts: NBODY's best L setting of the
# 858c099 bench, DCS3D's D2 (the cf9e9d7 search's best), and the L bests of
# MATMUL, SYRK and SYR2K of PART=l1.
NB='bszx=2,fullunroll=1,interleave=1,lcopy=0,lmem=1,lszx=256,ltrans=0,pack=1,prefetch=1,split=4,szx=32768,tw0=256,uf=16,vec=1,vw=1'
D2='bszx=8,bszy=2,bszz=4,fullunroll=0,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=16,lszy=16,lszz=1,ltrans=0,pack=0,prefetch=0,szx=16,szy=64,szz=32,tw0=16,uf=16,vec=1,vw=1'
M='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
S1='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
S2='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=4,vec=1,vw=4,warp=2'
{ $H version; nvidia-smi -L; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
if has c; then
  S='interleave=0,fullunroll=1,lmem=1,lcopy=1,pack=1'
  for p in \
      'bszx=8,fullunroll=1,interleave=1,lszx=32,tw0=256,uf=8,lmem=1,lcopy=1,prefetch=1,split=8' \
      "$S,bszx=4,lszx=32,tw0=256,uf=16,prefetch=1,split=8" \
      "$S,bszx=4,lszx=64,tw0=256,uf=16,prefetch=1,split=8" \
      "$S,bszx=4,lszx=32,tw0=256,uf=16,prefetch=1,split=16" \
      "$S,bszx=4,lszx=32,tw0=128,uf=16,prefetch=2,split=8" \
      "$S,bszx=4,lszx=64,tw0=128,uf=16,prefetch=2,split=4" \
      "$S,bszx=8,lszx=32,tw0=256,uf=16,prefetch=1,split=8" \
      "$S,bszx=8,lszx=32,tw0=128,uf=16,prefetch=2,split=8" \
      "$S,bszx=8,lszx=64,tw0=256,uf=16,prefetch=1,split=4" \
      "$S,bszx=2,lszx=64,tw0=256,uf=16,prefetch=1,split=8" \
      "$S,bszx=16,lszx=32,tw0=256,uf=16,prefetch=1,split=4" \
      "$S,bszx=4,lszx=128,tw0=256,uf=16,prefetch=1,split=4" \
      "$S,bszx=4,lszx=32,tw0=256,uf=8,prefetch=1,split=8"; do
    $H run conv1d --size L -d GPU --reps 20 --params "$p" >> "$OUT/r/conv1d-pack.txt" 2>&1
  done
fi
if has c2; then
  # Around the best of PART=c: groups of 64 to 256 items, tiles of 128
  # and 256, both prefetch modes, 2 to 16 parts.
  S='interleave=0,fullunroll=1,lmem=1,lcopy=1,pack=1,uf=16'
  for p in \
      "$S,bszx=4,lszx=64,tw0=256,prefetch=1,split=4" \
      "$S,bszx=4,lszx=64,tw0=256,prefetch=1,split=16" \
      "$S,bszx=4,lszx=64,tw0=256,prefetch=2,split=8" \
      "$S,bszx=4,lszx=64,tw0=128,prefetch=1,split=8" \
      "$S,bszx=4,lszx=128,tw0=128,prefetch=2,split=4" \
      "$S,bszx=4,lszx=128,tw0=256,prefetch=1,split=8" \
      "$S,bszx=4,lszx=256,tw0=256,prefetch=1,split=2" \
      "$S,bszx=4,lszx=256,tw0=128,prefetch=2,split=4" \
      "$S,bszx=8,lszx=64,tw0=128,prefetch=2,split=8" \
      "$S,bszx=8,lszx=64,tw0=128,prefetch=2,split=4" \
      "$S,bszx=8,lszx=128,tw0=128,prefetch=2,split=4" \
      "$S,bszx=8,lszx=32,tw0=128,prefetch=2,split=16" \
      "$S,bszx=8,lszx=32,tw0=64,prefetch=2,split=16" \
      "$S,bszx=4,lszx=64,tw0=256,prefetch=0,split=8" \
      "$S,bszx=4,lszx=64,tw0=256,prefetch=1,split=8,lcopy=0"; do
    $H run conv1d --size L -d GPU --reps 20 --params "$p" >> "$OUT/r/conv1d-pack2.txt" 2>&1
  done
  (cd "$OUT/r" && $H tune conv1d --size L -d GPU -s genetic -t 45 --no-db > tune-conv1d.txt 2>&1)
fi
if has n; then
  # native_rsqrt: .gpu/hplopt-native.xz is a scratch build whose code
  # generation writes native_rsqrt for rsqrt when HPLOPT_NATIVE=1; the
  # best NBODY and DCS3D settings of earlier L benches, with and without,
  # twice, interleaved, each checked against the host's reference.
  [ -x $B/hplopt-native ] || { xz -dc .gpu/hplopt-native.xz > $B/hplopt-native; chmod +x $B/hplopt-native; }
  D1='bszx=2,bszy=4,bszz=2,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=1,lszy=4,lszz=16,ltrans=0,pack=1,prefetch=0,split=1,szx=32,szy=32,szz=64,tw0=32,uf=16,vec=1,vw=2,warp=0'
  for round in 1 2; do
    for nat in 0 1; do
      HPLOPT_NATIVE=$nat $B/hplopt-native run nbody --size L -d GPU --reps 20 --params "$NB" >> "$OUT/r/native-nbody.txt" 2>&1
      HPLOPT_NATIVE=$nat $B/hplopt-native run dcs3d --size L -d GPU --reps 20 --params "$D1" >> "$OUT/r/native-dcs3d.txt" 2>&1
      HPLOPT_NATIVE=$nat $B/hplopt-native run dcs3d --size L -d GPU --reps 20 --params "$D2" >> "$OUT/r/native-dcs3d.txt" 2>&1
    done
  done
fi
if has o; then
  # Build options and code: the same scratch build also adds
  # HPLOPT_CLOPTS to every build's options and writes each program's
  # binary (PTX) under HPLOPT_DUMP. DCS3D's D2 setting (PART=n) with
  # -cl-fast-relaxed-math, -cl-denorms-are-zero and neither; the PTX of
  # each and the SASS ptxas makes of it.
  [ -x $B/hplopt-native ] || { xz -dc .gpu/hplopt-native.xz > $B/hplopt-native; chmod +x $B/hplopt-native; }
  for o in "" -cl-fast-relaxed-math -cl-denorms-are-zero "-cl-denorms-are-zero -cl-unsafe-math-optimizations"; do
    d="$OUT/r/ptx-${o// /_}"; mkdir -p "$d"
    HPLOPT_CLOPTS="$o" HPLOPT_DUMP="$d" $B/hplopt-native run dcs3d --size L -d GPU --reps 20 --params "$D2" >> "$OUT/r/opts-dcs3d.txt" 2>&1
    for f in "$d"/*.ptx; do
      /usr/local/cuda/bin/ptxas -arch=sm_90 "$f" -o "$f.cubin" 2>/dev/null && /usr/local/cuda/bin/cuobjdump -sass "$f.cubin" > "$f.sass" 2>/dev/null
      echo "$o $(basename $f): $(grep -c MUFU.RSQ $f.sass) MUFU.RSQ, $(grep -c FFMA $f.sass) FFMA, $(grep -c FSETP $f.sass) FSETP, $(grep -c 'FMUL' $f.sass) FMUL, $(grep -c rsqrt.approx.ftz $f) rsqrt.approx.ftz" >> "$OUT/r/opts-sass.txt"
      rm -f "$f.cubin"
    done
  done
fi
if has d; then
  # DCS3D L: neighbours of D2 (the best of the cf9e9d7 bench's search).
  D='fullunroll=0,gswz=1,interleave=1,lcopy=1,lmem=1,ltrans=0,vec=1,vw=1'
  for p in \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=32,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=64,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=1,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=1,tw0=32,uf=16" \
      "$D,bszx=8,bszy=4,bszz=2,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=32,lszy=8,lszz=1,pack=0,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=8,lszz=1,pack=0,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=16,uf=16,fullunroll=1" \
      "$D,bszx=4,bszy=4,bszz=4,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=16,uf=16" \
      "$D,bszx=8,bszy=2,bszz=8,lszx=16,lszy=16,lszz=1,pack=0,prefetch=0,tw0=16,uf=16"; do
    $H run dcs3d --size L -d GPU --reps 20 --params "$p" >> "$OUT/r/dcs3d-near.txt" 2>&1
  done
fi
if has f; then
  # ftz through hplopt run, now that it passes a variant's build options:
  # DCS3D's D2 and NBODY's best L settings with ftz=0 and ftz=1, twice,
  # interleaved.
  for round in 1 2; do
    for f in 0 1; do
      $H run nbody --size L -d GPU --reps 20 --params "$NB,ftz=$f" >> "$OUT/r/ftz-nbody.txt" 2>&1
      $H run dcs3d --size L -d GPU --reps 20 --params "$D2,ftz=$f" >> "$OUT/r/ftz-dcs3d.txt" 2>&1
    done
  done
fi
bench() { # name sizes budget kernels
  (cd "$OUT/r" && $H bench -d GPU --sizes $2 -s genetic -t $3 --kernels $4 --reference cublas-$1-before.txt --no-db --out suite-$1 > bench-$1.log 2>&1)
}
if has l1; then
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l1-before.txt" 2>&1
  bench l1 L L=45 matmul,syrk,syr2k,conv1d
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l1-after.txt" 2>&1
fi
if has l2; then
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l2-before.txt" 2>&1
  bench l2 L L=45 nbody,dcs3d,conv2d,conv3d
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-l2-after.txt" 2>&1
fi
if has sm; then
  python3 .gpu/cublas_sgemm.py 1024 2048 > "$OUT/r/cublas-sm-before.txt" 2>&1
  bench sm S,M S=8,M=10 paper
  python3 .gpu/cublas_sgemm.py 1024 2048 > "$OUT/r/cublas-sm-after.txt" 2>&1
fi
if has t; then
  # SYRK and SYR2K L with 100 s of genetic search each (the bench gives
  # 45 s): whether the search's budget is what keeps them below MATMUL.
  for k in syrk syr2k; do
    (cd "$OUT/r" && $H tune $k --size L -d GPU -s genetic -t 100 --no-db > tune100-$k.txt 2>&1)
  done
fi
if has x; then
  # MATMUL 4096 beside the same product with b read along its rows
  # (mxmt.cl: c[y][x] = sum_k a[y][k]*b[x][k], SYRK's pattern with two
  # arrays), 45 s of genetic search each.
  (cd "$OUT/r" && $H tune matmul --size L -d GPU -s genetic -t 45 --no-db > tune45-matmul.txt 2>&1)
  $H tune docs/results/h100/scripts/mxmt.cl --global 4096,4096 --arg n=4096 -d GPU -s genetic -t 45 --no-db > "$OUT/r/tune45-mxmt.txt" 2>&1
fi
if has r; then
  # Registers and spills of the L bench's best MATMUL, SYRK and SYR2K
  # variants: the scratch build of PART=n writes each program's PTX under
  # HPLOPT_DUMP; ptxas -v compiles it for sm_90 (the binary's trailing NUL
  # removed).
  [ -x $B/hplopt-native ] || { xz -dc .gpu/hplopt-native.xz > $B/hplopt-native; chmod +x $B/hplopt-native; }
  for kp in "matmul:$M" "syrk:$S1" "syr2k:$S2" "syr2k:${S2/lszx=32,lszy=16/lszx=16,lszy=16}" "syr2k:${S2/prefetch=1/prefetch=0}"; do
    k=${kp%%:*}; p=${kp#*:}
    d="$OUT/r/regs-$k-$(echo "$p" | md5sum | cut -c1-6)"; mkdir -p "$d"
    HPLOPT_DUMP="$d" $B/hplopt-native run $k --size L -d GPU --reps 10 --params "$p" >> "$OUT/r/regs-run.txt" 2>&1
    for f in "$d"/*.ptx; do
      tr -d '\000' < "$f" > "$f.clean"
      echo "== $k $p $(basename $f)" >> "$OUT/r/regs.txt"
      /usr/local/cuda/bin/ptxas -arch=sm_90 -v "$f.clean" -o /dev/null >> "$OUT/r/regs.txt" 2>&1
      rm -f "$f" "$f.clean"
    done
  done
fi
if has v; then
  # The variation of a 45 s search: 1DCONV, NBODY and DCS3D L again with
  # the search's seed 2 (the bench's default is 1).
  (cd "$OUT/r" && $H bench -d GPU --sizes L -s genetic -t L=45 --seed 2 --kernels conv1d,nbody,dcs3d --no-db --out suite-seed2 > bench-seed2.log 2>&1)
fi
if has b; then
  # hplopt run --build-options -cl-nv-verbose --build-log on the L bests
  # of MATMUL and SYR2K: registers and spills from the product itself.
  $H run matmul --size L -d GPU --reps 10 --params "$M,ftz=0" --build-options -cl-nv-verbose --build-log > "$OUT/r/buildlog.txt" 2>&1
  $H run syr2k --size L -d GPU --reps 10 --params "$S2,ftz=0" --build-options -cl-nv-verbose --build-log >> "$OUT/r/buildlog.txt" 2>&1
fi
tar czf "$OUT/r-${PART//,/-}.tgz" -C "$OUT" r
