#!/bin/bash
# What makes SYR2K's tile loops slower than one product of twice the
# length, profiled (2026-11-27, fifth session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=prof: whether Nsight Compute (ncu) sees hplopt's OpenCL launches;
#     then each variant's PTX (hplopt run --binary, which also times it,
#     checked, best of 20) launched through the CUDA driver by ptxlaunch.py
#     and profiled by ncu (--set full, the kernel's second launch, clocks left free),
#     its details, raw metrics and per-instruction SASS samples printed:
#       mm    MATMUL's best setting (4096)
#       k8    mxmtk.cl at nk=8192 on the 32x16 shape (one product of twice
#             the length: the ceiling)
#       hv    the same split into two loops over the halves of k (halves.py)
#       f1    SYR2K fission=1 on the 32x16 shape (two tile loops)
#       f0    SYR2K fission=0 on the 32x16 shape (one loop, both terms)
#       ph    SYR2K fission=1 rewritten as one loop over two phases (phase.py)
#       bst   SYR2K's best (16x16 groups, tw0=16, fission=0, PART=loc of session10.sh)
#   PART=st: two rewrites of a variant's code, each checked against the
#     reference and timed (hplopt run --reps 20 --source, two rounds in
#     turn): strides.py (a staging copy's row and column as the work-item's
#     plus a constant, which signed division hides from the compiler) and
#     unguard.py (the register prefetch without a branch: the last step
#     loads its own tile again), alone and together, on the variants above
#     and SYRK's best (PART=cmp of session10.sh).
#   PART=cf: the coff parameter (9ad44ba: strides.py's rewrite as a pass
#     parameter) with 0 and 1 on MATMUL's best, SYR2K's 32x16 shape with
#     fission 1 and 0, SYR2K's best and SYRK's best, two rounds in turn
#     (hplopt run --reps 20); then the bench at L with $T s of genetic
#     search a kernel for MATMUL, SYRK and SYR2K (coff in the space),
#     cuBLAS before and after.
#   PART=cmp: PART=cf's bench bests of MATMUL, SYRK and SYR2K, three rounds
#     in turn (hplopt run --reps 20, the best of 20 launches).
#   PART=l5: the bench at L, 45 s a kernel, for the other five kernels,
#     cuBLAS 4096 before and after; PART=sm: the bench at S and M (8 and
#     10 s a kernel) for all eight, cuBLAS 1024 and 2048 before and after.
#   PART=loc: MATMUL, SYRK and SYR2K L each searched $T s (genetic) in the
#     subspace of session10.sh's PART=loc with coff=1 (the bench bests'
#     pins), then each search's best three rounds in turn (hplopt run
#     --reps 20).
#   PART=mt: mxmt.cl (MATMUL with b read along its rows: SYRK's pattern with
#     two arrays) searched $T s in PART=loc's subspace, then its best beside
#     PART=loc's MATMUL and SYRK bests, three rounds in turn.
#   PART=mts: SYRK with mxmt's PART=mt best setting beside PART=loc's SYRK
#     best, three rounds in turn.
# Run from the repository root:  OUT=/some/dir PART=prof bash docs/results/h100/scripts/session11.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-prof}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
D=docs/results/h100/scripts
has() { [[ ",$PART," == *",$1,"* ]]; }
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
S='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
S2K='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=0,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=8'
{ $H version; nvidia-smi -L; echo "ncu: $NCU"; $NCU --version; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
keep() { grep -E "ms,|ms \(|registers|rror|WRONG|median"; }
if has prof; then
  P=$OUT/r/prof
  mkdir -p "$P"
  # Does ncu see an OpenCL launch?
  timeout 120 $NCU --clock-control none -c 1 $H run matmul --size S -d GPU > "$P/ocl-direct.txt" 2>&1
  N=$((4096 * 8192))
  BUF="buf:$N buf:$N buf:$N"
  # name -> what to run
  $H gen matmul --size L --params "$M" > "$P/mm.cl"
  $H gen $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 --params "$S" > "$P/k8.cl"
  python3 $D/halves.py 8192 "$P/k8.cl" "$P/hv.cl"
  $H gen syr2k --size L --params "$S,fission=1" > "$P/f1.cl"
  $H gen syr2k --size L --params "$S,fission=0" > "$P/f0.cl"
  python3 $D/phase.py "$P/f1.cl" "$P/ph.cl"
  $H gen syr2k --size L --params "$S2K" > "$P/bst.cl"
  declare -A RUN=(
    [mm]="matmul --size L --params $M"
    [k8]="$D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 --params $S"
    [hv]="$D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 --params $S --source $P/hv.cl"
    [f1]="syr2k --size L --params $S,fission=1"
    [f0]="syr2k --size L --params $S,fission=0"
    [ph]="syr2k --size L --params $S,fission=1 --source $P/ph.cl"
    [bst]="syr2k --size L --params $S2K"
  )
  declare -A ARGS=(
    [mm]="mxm $BUF i32:4096" [k8]="mxmtk $BUF i32:4096 i32:8192" [hv]="mxmtk $BUF i32:4096 i32:8192"
    [f1]="syr2k $BUF f32:1 f32:1 i32:4096" [f0]="syr2k $BUF f32:1 f32:1 i32:4096"
    [ph]="syr2k $BUF f32:1 f32:1 i32:4096" [bst]="syr2k $BUF f32:1 f32:1 i32:4096"
  )
  for v in ${VARIANTS:-mm k8 hv f1 f0 ph bst}; do
    echo "== $v ${RUN[$v]}" >> "$P/times.txt"
    $H run ${RUN[$v]} -d GPU --reps 20 --binary "$P/$v.ptx" 2>&1 | keep >> "$P/times.txt"
    python3 $D/ptxlaunch.py "$P/$v.ptx" "$P/$v.cl" ${ARGS[$v]%% *} 20 ${ARGS[$v]#* } >> "$P/times.txt" 2>&1
    timeout 300 $NCU --clock-control none --set full --import-source no -k "${ARGS[$v]%% *}" -c 1 --launch-skip 1 -f -o "$P/$v" \
      python3 $D/ptxlaunch.py "$P/$v.ptx" "$P/$v.cl" ${ARGS[$v]%% *} 3 ${ARGS[$v]#* } > "$P/$v.ncu.txt" 2>&1
    $NCU -i "$P/$v.ncu-rep" --page details --csv > "$P/$v.details.csv" 2>&1
    $NCU -i "$P/$v.ncu-rep" --page raw --csv > "$P/$v.raw.csv" 2>&1
    $NCU -i "$P/$v.ncu-rep" --page source --csv --print-source sass > "$P/$v.source.csv" 2>&1
    /usr/local/cuda/bin/cuobjdump -sass "$P/$v.ptx.cubin" > "$P/$v.sass" 2>&1
    rm -f "$P/$v.ptx.cuda.ptx" "$P/$v.ptx.cubin"
  done
  (cd "$OUT/r" && tar cJf prof.tar.xz prof && rm -rf prof)
fi
if has st; then
  P=$OUT/r/st
  mkdir -p "$P"
  SK='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=32,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  K8=(--global 4096,4096 --arg n=4096 --arg nk=8192)
  $H gen matmul --size L --params "$M" > "$P/mm.cl"
  $H gen $D/mxmtk.cl "${K8[@]}" --params "$S" > "$P/k8.cl"
  python3 $D/halves.py 8192 "$P/k8.cl" "$P/hv.cl"
  $H gen syr2k --size L --params "$S,fission=1" > "$P/f1.cl"
  $H gen syr2k --size L --params "$S,fission=0" > "$P/f0.cl"
  python3 $D/phase.py "$P/f1.cl" "$P/ph.cl"
  $H gen syr2k --size L --params "$S2K" > "$P/bst.cl"
  $H gen syr2k --size L --params "${S2K/prefetch=0/prefetch=1}" > "$P/bp1.cl"
  $H gen syrk --size L --params "$SK" > "$P/sk.cl"
  for v in mm k8 hv f1 f0 ph bst bp1 sk; do
    python3 $D/strides.py "$P/$v.cl" "$P/${v}s.cl" > /dev/null
    if [ $v != bst ]; then
      python3 $D/unguard.py "$P/$v.cl" "$P/${v}u.cl" > /dev/null
      python3 $D/strides.py "$P/${v}u.cl" "$P/${v}us.cl" > /dev/null
    fi
  done
  declare -A RUN=(
    [mm]="matmul --size L --params $M" [k8]="$D/mxmtk.cl ${K8[*]} --params $S" [hv]="$D/mxmtk.cl ${K8[*]} --params $S"
    [f1]="syr2k --size L --params $S,fission=1" [f0]="syr2k --size L --params $S,fission=0"
    [ph]="syr2k --size L --params $S,fission=1" [bst]="syr2k --size L --params $S2K"
    [bp1]="syr2k --size L --params ${S2K/prefetch=0/prefetch=1}" [sk]="syrk --size L --params $SK"
  )
  for round in 1 2; do
    for v in mm k8 hv f1 f0 ph bst bp1 sk; do
      for w in "" s u us; do
        [ -f "$P/$v$w.cl" ] || continue
        echo "== round $round $v$w" >> "$P/st.txt"
        $H run ${RUN[$v]} -d GPU --reps 20 --source "$P/$v$w.cl" 2>&1 | keep >> "$P/st.txt"
      done
    done
  done
  (cd "$OUT/r" && tar cJf st.tar.xz st && rm -rf st)
fi
if has cf; then
  P=$OUT/r
  SK='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=32,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  for round in 1 2; do
    for c in 0 1; do
      for v in "matmul $M" "syr2k $S,fission=1" "syr2k $S,fission=0" "syr2k $S2K" "syrk $SK"; do
        echo "== round $round coff=$c $v" >> "$P/cf.txt"
        $H run ${v%% *} --size L -d GPU --reps 20 --params "${v#* },coff=$c" 2>&1 | keep >> "$P/cf.txt"
      done
    done
  done
  python3 .gpu/cublas_sgemm.py 4096 > "$P/cublas-cf-before.txt" 2>&1
  (cd "$P" && $H bench -d GPU --sizes L -s genetic -t L=${T:-75} --kernels matmul,syrk,syr2k --reference cublas-cf-before.txt --no-db --out suite-cf > bench-cf.log 2>&1)
  python3 .gpu/cublas_sgemm.py 4096 > "$P/cublas-cf-after.txt" 2>&1
  (cd "$P" && tar cJf suite-cf.tar.xz suite-cf && rm -rf suite-cf)
fi
bench() { # name sizes budget kernels sizes-for-cublas
  python3 .gpu/cublas_sgemm.py $5 > "$OUT/r/cublas-$1-before.txt" 2>&1
  (cd "$OUT/r" && $H bench -d GPU --sizes $2 -s genetic -t $3 --kernels $4 --reference cublas-$1-before.txt --no-db --out suite-$1 > bench-$1.log 2>&1)
  python3 .gpu/cublas_sgemm.py $5 > "$OUT/r/cublas-$1-after.txt" 2>&1
  (cd "$OUT/r" && tar cJf suite-$1.tar.xz suite-$1 && rm -rf suite-$1)
}
if has cmp; then
  BM='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
  BK='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=256,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=8'
  B2='bszx=8,bszy=8,coff=1,fission=1,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  for round in 1 2 3; do
    $H run matmul --size L -d GPU --reps 20 --params "$BM" 2>&1 | keep >> "$OUT/r/cmp.txt"
    $H run syrk --size L -d GPU --reps 20 --params "$BK" 2>&1 | keep >> "$OUT/r/cmp.txt"
    $H run syr2k --size L -d GPU --reps 20 --params "$B2" 2>&1 | keep >> "$OUT/r/cmp.txt"
  done
fi
if has l5; then
  bench l5 L L=45 conv1d,conv2d,conv3d,nbody,dcs3d 4096
fi
if has sm; then
  bench sm S,M S=8,M=10 paper "1024 2048"
fi
if has loc; then
  PIN='bszx=8,bszy=8,coff=1,ftz=0,fullunroll=1,interleave=1,lmem=1,ltrans=1,pack=1,split=1,vec=1,vw=4'
  for k in matmul syrk syr2k; do
    (cd "$OUT/r" && $H tune $k --size L -d GPU -s genetic -t ${T:-100} --params "$PIN" --no-db > loc${T:-100}-$k.txt 2>&1)
  done
  for round in 1 2 3; do
    for k in matmul syrk syr2k; do
      best=$(awk '$1 == "params" {print $2}' "$OUT/r/loc${T:-100}-$k.txt")
      $H run $k --size L -d GPU --reps 20 --params "$best" 2>&1 | keep >> "$OUT/r/loc-cmp.txt"
    done
  done
fi
if has mt; then
  PIN='bszx=8,bszy=8,coff=1,ftz=0,fullunroll=1,interleave=1,lmem=1,ltrans=1,pack=1,split=1,vec=1,vw=4'
  LM='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=256,tw0=8,uf=8,vec=1,vw=4,warp=2'
  LK='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=256,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=8'
  MT=(docs/results/h100/scripts/mxmt.cl --global 4096,4096 --arg n=4096)
  $H tune "${MT[@]}" -d GPU -s genetic -t ${T:-100} --params "$PIN" --no-db > "$OUT/r/mt${T:-100}-mxmt.txt" 2>&1
  best=$(awk '$1 == "params" {print $2}' "$OUT/r/mt${T:-100}-mxmt.txt")
  for round in 1 2 3; do
    $H run matmul --size L -d GPU --reps 20 --params "$LM" 2>&1 | keep >> "$OUT/r/mt-cmp.txt"
    $H run syrk --size L -d GPU --reps 20 --params "$LK" 2>&1 | keep >> "$OUT/r/mt-cmp.txt"
    $H run "${MT[@]}" -d GPU --reps 20 --params "$best" 2>&1 | keep >> "$OUT/r/mt-cmp.txt"
  done
fi
if has mts; then
  LK='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=256,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=8'
  MTB='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=1,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  for round in 1 2 3; do
    for v in "$LK" "$MTB" "${MTB/szx=512/szx=256}" "${MTB/lcopy=1/lcopy=0}"; do
      $H run syrk --size L -d GPU --reps 20 --params "$v" 2>&1 | keep >> "$OUT/r/mts.txt"
    done
  done
fi
