#!/bin/bash
# Whether SYRK's and SYR2K's last percent is their read of C (2026-11-27,
# sixth session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=ep: the epilogue. Each variant checked against the reference and
#     timed (hplopt run --reps 20, the best of 20 launches), two rounds in
#     turn:
#       mm     MATMUL's bench best (9ad44ba)
#       sk     SYRK's bench best, as generated and rewritten by epilogue.py
#              (hoist: every point's load of C before the first point's
#              store; restrict; both)
#       s2     SYR2K's bench best, as generated and with hoist
#       mt     mxmt.cl (MATMUL with b read along its rows) with SYRK's setting
#       mc     mxmtc.cl (mxmt with SYRK's epilogue, c = beta*c + alpha*s)
#              with SYRK's setting, as generated and with hoist
#       mtb/mcb  mxmt.cl and mxmtc.cl with mxmt's best setting (PART=mt of
#              session11.sh)
#   PART=pf3: prefetch=3 (the register prefetch with no branch) against
#     prefetch=1 through the pass, two rounds in turn: SYR2K fission=0
#     coff=1 on the 32x16 shape, mxmtk.cl nk=8192 on that shape, SYRK's
#     bench best.
#   PART=ep2 (binary e01335c, where promotion loads an element read only
#     after the nest there): mxmtc.cl beside mxmt.cl again, with SYRK's
#     setting and with mxmt's best; and epilogue.py vec (float4 loads and
#     stores of C) on MATMUL's, SYRK's and SYR2K's bests; two rounds in turn.
#   PART=cb: cuBLAS in hplopt's shapes, cublas_syrk.py 4096, three rounds
#     (two arrays, one array for both operands, C read and written, SYR2K
#     as one product of twice the length).
#   PART=sy: syrkc.cl (SYRK written in OpenCL C: one array) beside mxmtc.cl
#     (two arrays) and SYRK, each with SYRK's bench best and mxmt's best
#     setting, two rounds in turn; then syrkc.cl and mxmtc.cl each searched
#     $T s (genetic) in session11.sh's PART=loc subspace and their bests
#     three rounds in turn beside MATMUL's and SYRK's bench bests.
#   PART=sk: HPL's SYRK against syrkc.cl with syrkc's PART=sy best: SYRK
#     as generated, with its loop counter k declared in the loop (as
#     syrkc's is), with its epilogue in one statement (p = beta*p +
#     alpha*u, as syrkc's is), and syrkc.cl with SYRK's alpha and beta;
#     three rounds in turn.
#   PART=l3: the bench at L, $T s (genetic) a kernel, for MATMUL, SYRK and
#     SYR2K, cuBLAS 4096 before and after; PART=l5: the same for the other
#     five kernels; PART=sm: the bench at S and M (8 and 10 s a kernel) for
#     all eight, cuBLAS 1024 and 2048 before and after. Each call's files
#     are packed into one archive at the end (the device tool returns at
#     most eight files).
#   PART=var: MATMUL L searched $T s (genetic) with search seeds 2, 3 and 4
#     (the bench uses seed 1): how much one search's result varies.
#   PART=v4: PART=var's seed-4 best (8x16 points, 32x8 items, warp=16) on
#     MATMUL, SYRK and SYR2K (fission 0 and 1) beside the 9ad44ba bench bests,
#     three rounds in turn.
#   PART=ns (binary with the fourth GPU start shape, 8x16 points in
#     32x8 items): MATMUL L searched $T s with search seeds 1 and 2, SYRK L
#     with seed 1, each its best, timed in turn after.
# Run from the repository root:  OUT=/some/dir PART=ep bash docs/results/h100/scripts/session12.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-ep}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
D=docs/results/h100/scripts
has() { [[ ",$PART," == *",$1,"* ]]; }
{ $H version; nvidia-smi -L; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
keep() { grep -E "ms,|ms \(|rror|WRONG|median"; }
# the bench bests at 9ad44ba (docs/results/h100/9ad44ba, PART=cmp of session11.sh)
BM='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
BK='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=8,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=256,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=8'
B2='bszx=8,bszy=8,coff=1,fission=1,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
# mxmt's best (PART=mt of session11.sh)
MTB='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=1,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
MT=($D/mxmt.cl --global 4096,4096 --arg n=4096)
MC=($D/mxmtc.cl --global 4096,4096 --arg n=4096 --arg alpha=1.5 --arg beta=0.5)
if has ep; then
  P=$OUT/r/ep
  mkdir -p "$P"
  $H gen syrk --size L --params "$BK" > "$P/sk.cl"
  $H gen syr2k --size L --params "$B2" > "$P/s2.cl"
  $H gen "${MC[@]}" --params "$BK" > "$P/mc.cl"
  $H gen "${MC[@]}" --params "$MTB" > "$P/mcb.cl"
  for w in hoist restrict both; do python3 $D/epilogue.py $w "$P/sk.cl" "$P/sk-$w.cl" >> "$P/rewrites.txt"; done
  for v in s2 mc mcb; do python3 $D/epilogue.py hoist "$P/$v.cl" "$P/$v-hoist.cl" >> "$P/rewrites.txt"; done
  declare -A RUN=(
    [mm]="matmul --size L --params $BM" [sk]="syrk --size L --params $BK" [s2]="syr2k --size L --params $B2"
    [mt]="${MT[*]} --params $BK" [mc]="${MC[*]} --params $BK"
    [mtb]="${MT[*]} --params $MTB" [mcb]="${MC[*]} --params $MTB"
  )
  for round in 1 2; do
    for v in mm sk sk-hoist sk-restrict sk-both s2 s2-hoist mt mc mc-hoist mtb mcb mcb-hoist; do
      echo "== round $round $v" >> "$P/ep.txt"
      src=""
      [ -f "$P/$v.cl" ] && [[ $v == *-* ]] && src="--source $P/$v.cl"
      $H run ${RUN[${v%%-*}]} -d GPU --reps 20 $src 2>&1 | keep >> "$P/ep.txt"
    done
  done
  (cd "$OUT/r" && tar cJf ep.tar.xz ep && cp ep/ep.txt ep.txt && rm -rf ep)
fi
if has pf3; then
  S='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  K8=($D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192)
  for round in 1 2; do
    for p in 1 3; do
      echo "== round $round prefetch=$p" >> "$OUT/r/pf3.txt"
      $H run syr2k --size L -d GPU --reps 20 --params "$S,fission=0,coff=1,prefetch=$p" 2>&1 | keep >> "$OUT/r/pf3.txt"
      $H run "${K8[@]}" -d GPU --reps 20 --params "$S,prefetch=$p" 2>&1 | keep >> "$OUT/r/pf3.txt"
      $H run syrk --size L -d GPU --reps 20 --params "${BK/prefetch=1/prefetch=$p}" 2>&1 | keep >> "$OUT/r/pf3.txt"
    done
  done
fi
if has ep2; then
  P=$OUT/r/ep2
  mkdir -p "$P"
  $H gen matmul --size L --params "$BM" > "$P/mm.cl"
  $H gen syrk --size L --params "$BK" > "$P/sk.cl"
  $H gen syr2k --size L --params "$B2" > "$P/s2.cl"
  $H gen "${MC[@]}" --params "$BK" > "$P/mc.cl"
  $H gen "${MC[@]}" --params "$MTB" > "$P/mcb.cl"
  for v in mm sk s2 mc mcb; do python3 $D/epilogue.py vec "$P/$v.cl" "$P/$v-vec.cl" >> "$P/rewrites.txt"; done
  declare -A RUN=(
    [mm]="matmul --size L --params $BM" [sk]="syrk --size L --params $BK" [s2]="syr2k --size L --params $B2"
    [mt]="${MT[*]} --params $BK" [mc]="${MC[*]} --params $BK"
    [mtb]="${MT[*]} --params $MTB" [mcb]="${MC[*]} --params $MTB"
  )
  for round in 1 2; do
    for v in mm mm-vec sk sk-vec s2 s2-vec mt mc mc-vec mtb mcb mcb-vec; do
      echo "== round $round $v" >> "$P/ep2.txt"
      src=""
      [[ $v == *-* ]] && src="--source $P/$v.cl"
      $H run ${RUN[${v%%-*}]} -d GPU --reps 20 $src 2>&1 | keep >> "$P/ep2.txt"
    done
  done
  (cd "$OUT/r" && tar cJf ep2.tar.xz ep2 && cp ep2/ep2.txt ep2.txt && rm -rf ep2)
fi
if has cb; then
  python3 $D/cublas_syrk.py 4096 3 > "$OUT/r/cublas-syrk.txt" 2>&1
fi
if has sy; then
  SC=($D/syrkc.cl --global 4096,4096 --arg n=4096 --arg alpha=1.5 --arg beta=0.5)
  PIN='bszx=8,bszy=8,coff=1,ftz=0,fullunroll=1,interleave=1,lmem=1,ltrans=1,pack=1,split=1,vec=1,vw=4'
  for round in 1 2; do
    for set in "$BK" "$MTB"; do
      echo "== round $round $set" >> "$OUT/r/sy.txt"
      $H run "${SC[@]}" -d GPU --reps 20 --params "$set" 2>&1 | keep >> "$OUT/r/sy.txt"
      $H run "${MC[@]}" -d GPU --reps 20 --params "$set" 2>&1 | keep >> "$OUT/r/sy.txt"
      $H run syrk --size L -d GPU --reps 20 --params "$set" 2>&1 | keep >> "$OUT/r/sy.txt"
    done
  done
  $H tune "${SC[@]}" -d GPU -s genetic -t ${T:-100} --params "$PIN" --no-db > "$OUT/r/sy${T:-100}-syrkc.txt" 2>&1
  $H tune "${MC[@]}" -d GPU -s genetic -t ${T:-100} --params "$PIN" --no-db > "$OUT/r/sy${T:-100}-mxmtc.txt" 2>&1
  bs=$(awk '$1 == "params" {print $2}' "$OUT/r/sy${T:-100}-syrkc.txt")
  bm=$(awk '$1 == "params" {print $2}' "$OUT/r/sy${T:-100}-mxmtc.txt")
  for round in 1 2 3; do
    echo "== round $round" >> "$OUT/r/sy-cmp.txt"
    $H run matmul --size L -d GPU --reps 20 --params "$BM" 2>&1 | keep >> "$OUT/r/sy-cmp.txt"
    $H run syrk --size L -d GPU --reps 20 --params "$BK" 2>&1 | keep >> "$OUT/r/sy-cmp.txt"
    $H run "${SC[@]}" -d GPU --reps 20 --params "$bs" 2>&1 | keep >> "$OUT/r/sy-cmp.txt"
    $H run "${MC[@]}" -d GPU --reps 20 --params "$bm" 2>&1 | keep >> "$OUT/r/sy-cmp.txt"
    $H run syrk --size L -d GPU --reps 20 --params "$bs" 2>&1 | keep >> "$OUT/r/sy-cmp.txt"
  done
fi
if has sk; then
  BS='bszx=8,bszy=8,coff=1,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=16,uf=16,vec=1,vw=4,warp=8'
  P=$OUT/r/sk
  mkdir -p "$P"
  $H gen syrk --size L --params "$BS" > "$P/sk.cl"
  sed -e '/^    int k;$/d' -e 's/for (k = k_t;/for (int k = k_t;/' "$P/sk.cl" > "$P/sk-k.cl"
  perl -0pe 's/(p_c_\w+) = beta \* \1;\n\s*\1 \+= alpha \* (u_p_c_\w+);/$1 = beta * $1 + alpha * $2;/g' "$P/sk.cl" > "$P/sk-e.cl"
  for round in 1 2 3; do
    for v in sk sk-k sk-e; do
      echo "== round $round $v" >> "$P/sk.txt"
      src=""
      [[ $v == *-* ]] && src="--source $P/$v.cl"
      $H run syrk --size L -d GPU --reps 20 --params "$BS" $src 2>&1 | keep >> "$P/sk.txt"
    done
    echo "== round $round syrkc" >> "$P/sk.txt"
    $H run $D/syrkc.cl --global 4096,4096 --arg n=4096 --arg alpha=1.5 --arg beta=0.5 -d GPU --reps 20 --params "$BS" 2>&1 | keep >> "$P/sk.txt"
    echo "== round $round syrkc-ab" >> "$P/sk.txt"
    $H run $D/syrkc.cl --global 4096,4096 --arg n=4096 --arg alpha=1.25 --arg beta=0.75 -d GPU --reps 20 --params "$BS" 2>&1 | keep >> "$P/sk.txt"
  done
  (cd "$OUT/r" && tar cJf sk.tar.xz sk && cp sk/sk.txt sk.txt && rm -rf sk)
fi
bench() { # name sizes budget kernels sizes-for-cublas
  python3 .gpu/cublas_sgemm.py $5 > "$OUT/r/cublas-$1-before.txt" 2>&1
  (cd "$OUT/r" && $H bench -d GPU --sizes $2 -s genetic -t $3 --kernels $4 --reference cublas-$1-before.txt --no-db --out suite-$1 > bench-$1.log 2>&1)
  python3 .gpu/cublas_sgemm.py $5 > "$OUT/r/cublas-$1-after.txt" 2>&1
}
if has l3; then
  bench l3 L L=${T:-75} matmul,syrk,syr2k 4096
fi
if has l5; then
  bench l5 L L=${T5:-45} conv1d,conv2d,conv3d,nbody,dcs3d 4096
fi
if has sm; then
  bench sm S,M S=8,M=10 paper "1024 2048"
fi
if has var; then
  for sd in 2 3 4; do
    $H tune matmul --size L -d GPU -s genetic -t ${T:-75} --seed $sd --no-db > "$OUT/r/var-seed$sd.txt" 2>&1
  done
fi
if has v4; then
  V4='bszx=8,bszy=16,coff=1,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=8,ltrans=1,pack=1,prefetch=1,split=1,szx=256,szy=256,tw0=8,uf=8,vec=1,vw=2,warp=16'
  for round in 1 2 3; do
    for v in "matmul $BM" "matmul $V4" "syrk $BK" "syrk $V4" "syr2k $B2" "syr2k $V4" "syr2k ${V4/fission=0/fission=1}"; do
      echo "== round $round ${v%% *}" >> "$OUT/r/v4.txt"
      $H run ${v%% *} --size L -d GPU --reps 20 --params "${v#* }" 2>&1 | keep >> "$OUT/r/v4.txt"
    done
  done
fi
if has ns; then
  for v in "matmul 1" "matmul 2" "syrk 1"; do
    $H tune ${v% *} --size L -d GPU -s genetic -t ${T:-75} --seed ${v#* } --no-db > "$OUT/r/ns-${v/ /-}.txt" 2>&1
  done
  for round in 1 2; do
    for v in "matmul 1" "matmul 2" "syrk 1"; do
      best=$(awk '$1 == "params" {print $2}' "$OUT/r/ns-${v/ /-}.txt")
      echo "== round $round $v" >> "$OUT/r/ns-cmp.txt"
      $H run ${v% *} --size L -d GPU --reps 20 --params "$best" 2>&1 | keep >> "$OUT/r/ns-cmp.txt"
    done
  done
fi
if has l3 || has l5 || has sm; then
  (cd "$OUT" && tar cJf "bench-${PART//,/-}.tar.xz" r && rm -rf r)
fi
# PART=bb (binary with --batch): bayes with rounds of 8 and 15 points live
#   on MATMUL L, 60 s each: evaluations a minute against genetic's.
if has bb; then
  for b in 8 15; do
    $H tune matmul --size L -d GPU -s bayes --batch $b -t 60 --no-db > "$OUT/r/bb-$b.txt" 2>&1
  done
  $H tune matmul --size L -d GPU -s genetic -t 60 --no-db > "$OUT/r/bb-genetic.txt" 2>&1
fi
