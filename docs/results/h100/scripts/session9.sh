#!/bin/bash
# SYR2K's statement order (2026-11-27, third session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz); .gpu/cublas_sgemm.py is
# the cuBLAS SGEMM timer (PyTorch, TF32 off).
#   PART=f: SYR2K split by terms by hand (fission.py); PART=c: the
#     ceiling of a product twice as long; PART=la: the lookahead A/B;
#     PART=fb: the bench of MATMUL and SYR2K L with the fission pass;
#     PART=fn: around its SYR2K best, with and without fission; PART=g:
#     the split SYR2K beside a product of twice the length, same shape;
#     PART=h: SYR2K as one tile loop over both terms, by hand (concat.py);
#     PART=tm2: term-major order on the bench's SYR2K best; PART=sass:
#     the SASS of the split SYR2K, mxmtk, the SYR2K and MATMUL bests;
#     PART=same: both loops on the same arrays; PART=halves: mxmtk split
#     into two loops over the halves of k (halves.py); PART=ro: the
#     second loop's accumulations reordered (reorder.py), with bank counts;
#     PART=ro2: the same on the SYR2K and MATMUL bests.
#   PART=tm: SYR2K L's best setting of the 0f31f08 bench (uf=4) and the
#     same with uf=8, each as hplopt gen writes it and rewritten by
#     termmajor.py: "order" puts every point's first product before every
#     point's second in each unrolled step, "loads" also moves each
#     product's local loads just before it. Each file runs through
#     `hplopt run --source FILE --reps 20` (checked against the CPU
#     reference), twice in turn, with -cl-nv-verbose's registers and spills.
# Run from the repository root:  OUT=/some/dir PART=tm bash docs/results/h100/scripts/session9.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-tm}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
D=docs/results/h100/scripts
has() { [[ ",$PART," == *",$1,"* ]]; }
M='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
S2='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=4,vec=1,vw=4,warp=2'
{ $H version; nvidia-smi -L; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
if has tm; then
  mkdir -p "$OUT/r/tm"
  for uf in 4 8; do
    p=${S2/uf=4/uf=$uf}
    $H gen syr2k --size L --params "$p" > "$OUT/r/tm/uf$uf.cl"
    python3 $D/termmajor.py "$OUT/r/tm/uf$uf.cl" order "$OUT/r/tm/uf$uf-order.cl"
    python3 $D/termmajor.py "$OUT/r/tm/uf$uf.cl" loads "$OUT/r/tm/uf$uf-loads.cl"
  done
  $H run matmul --size L -d GPU --reps 20 --params "$M" >> "$OUT/r/tm.txt" 2>&1
  for round in 1 2; do
    for uf in 4 8; do
      for f in uf$uf uf$uf-order uf$uf-loads; do
        echo "== round $round $f" >> "$OUT/r/tm.txt"
        $H run syr2k --size L -d GPU --reps 20 --params "${S2/uf=4/uf=$uf}" --source "$OUT/r/tm/$f.cl" \
          --build-options -cl-nv-verbose --build-log >> "$OUT/r/tm.txt" 2>&1
      done
    done
  done
fi
if has f; then
  # SYR2K L split by terms by hand (fission.py): two tile loops, each
  # staging two tiles with 6 prefetched floats a work-item, from the
  # uf=4 and uf=8 settings, beside the uf=4 best as generated.
  mkdir -p "$OUT/r/f"
  for uf in 4 8; do
    p=${S2/uf=4/uf=$uf}
    $H gen syr2k --size L --params "$p" > "$OUT/r/f/uf$uf.cl"
    python3 $D/fission.py "$OUT/r/f/uf$uf.cl" "$OUT/r/f/uf$uf-fission.cl"
    python3 $D/termmajor.py "$OUT/r/f/uf$uf.cl" order "$OUT/r/f/uf$uf-order.cl"
  done
  for round in 1 2; do
    for f in uf4 uf4-fission uf8-order uf8-fission; do
      uf=${f:2:1}
      echo "== round $round $f" >> "$OUT/r/f.txt"
      $H run syr2k --size L -d GPU --reps 20 --params "${S2/uf=4/uf=$uf}" --source "$OUT/r/f/$f.cl" \
        --build-options -cl-nv-verbose --build-log >> "$OUT/r/f.txt" 2>&1
    done
  done
fi
if has c; then
  # The ceiling of a product of twice the length: MATMUL's best at
  # k=8192 and mxmtk.cl (SYRK's pattern with two arrays, rows of nk)
  # at nk=8192 tuned 45 s, beside MATMUL's best at k=4096.
  $H run matmul -n 4096 -k 4096 -d GPU --reps 20 --params "$M" > "$OUT/r/ceiling.txt" 2>&1
  $H run matmul -n 4096 -k 8192 -d GPU --reps 20 --params "$M" >> "$OUT/r/ceiling.txt" 2>&1
  $H tune $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 -d GPU -s genetic -t 45 --no-db > "$OUT/r/tune45-mxmtk.txt" 2>&1
fi
if has la; then
  # The genetic search's lookahead: HEAD's binary (Upcoming promises every
  # point it can see) beside .gpu/hplopt-la.xz (it promises only the n it
  # returns), 45 s searches of MATMUL and 2DCONV L, in turn.
  [ -x $B/hplopt-la ] || { xz -dc .gpu/hplopt-la.xz > $B/hplopt-la; chmod +x $B/hplopt-la; }
  for k in matmul conv2d; do
    for bin in hplopt hplopt-la; do
      (cd "$OUT/r" && $B/$bin tune $k --size L -d GPU -s genetic -t 45 --no-db > tune45-$k-$bin.txt 2>&1)
    done
  done
fi
bench() { # name sizes budget kernels
  (cd "$OUT/r" && $H bench -d GPU --sizes $2 -s genetic -t $3 --kernels $4 --reference cublas-$1-before.txt --no-db --out suite-$1 > bench-$1.log 2>&1)
}
if has fb; then
  # The bench at L with fission in SYR2K's space (table2-8), 45 s of
  # genetic search each, MATMUL beside it, cuBLAS before and after; then
  # SYR2K's hand-split uf=8 setting through the pass, and the bench's best
  # with the compiler's log.
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-fb-before.txt" 2>&1
  bench fb L L=45 matmul,syr2k
  python3 .gpu/cublas_sgemm.py 4096 > "$OUT/r/cublas-fb-after.txt" 2>&1
  $H run syr2k --size L -d GPU --reps 20 --params "${S2/uf=4/uf=8},fission=1" >> "$OUT/r/fission-run.txt" 2>&1
  best=$(grep -o 'bszx=[^"]*fission=1[^"]*' "$OUT/r/suite-fb/results.csv" | head -1)
  [ -n "$best" ] && $H run syr2k --size L -d GPU --reps 20 --params "$best" --build-options -cl-nv-verbose --build-log >> "$OUT/r/fission-run.txt" 2>&1
fi
if has fn; then
  # Around PART=fb's SYR2K best (fission=0): fission=1 with prefetch 0, 1
  # and 2, twice in turn; then SYR2K tuned 100 s.
  F='bszx=8,bszy=8,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=4'
  for round in 1 2; do
    for pf in 0 1 2; do
      for fi in 0 1; do
        $H run syr2k --size L -d GPU --reps 20 --params "$F,prefetch=$pf,fission=$fi" --build-options -cl-nv-verbose --build-log 2>&1 | grep -E "ms,|registers|rror" >> "$OUT/r/fission-near.txt"
      done
    done
  done
  (cd "$OUT/r" && $H tune syr2k --size L -d GPU -s genetic -t 100 --no-db > tune100-syr2k.txt 2>&1)
fi
if has g; then
  # Where the split SYR2K (uf=8, 32x16 groups) loses to a product of twice
  # the length with the same shape: the pass's variant beside the same
  # source with the second loop reusing the first loop's local arrays
  # (12.5 KB of local memory instead of 25), and mxmtk.cl at nk=8192 and
  # 4096 with that shape (lcopy=1 as SYR2K's, and 0), each run 20 times.
  mkdir -p "$OUT/r/g"
  P="${S2/uf=4/uf=8},fission=1"
  Q="${S2/uf=4/uf=8}"
  $H gen syr2k --size L --params "$P" > "$OUT/r/g/fission.cl"
  sed -e '/__local float l_a2\[/d; /__local float l_b2\[/d' "$OUT/r/g/fission.cl" | perl -pe 's/\bl_b2\[/l_a[/g; s/\bl_a2\[/l_b[/g' > "$OUT/r/g/shared.cl"
  for round in 1 2; do
    for f in fission shared; do
      echo "== round $round $f" >> "$OUT/r/g.txt"
      $H run syr2k --size L -d GPU --reps 20 --params "$P" --source "$OUT/r/g/$f.cl" --build-options -cl-nv-verbose --build-log 2>&1 | grep -E "ms,|registers|rror" >> "$OUT/r/g.txt"
    done
    for nk in 8192 4096; do
      for lc in 1 0; do
        echo "== round $round mxmtk nk=$nk lcopy=$lc" >> "$OUT/r/g.txt"
        $H run $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=$nk -d GPU --reps 20 --params "${Q/lcopy=1/lcopy=$lc}" >> "$OUT/r/g.txt" 2>&1
      done
    done
  done
fi
if has h; then
  # SYR2K as one tile loop over both terms, by hand (concat.py): mxmtk.cl's
  # variant at nk=8192 with the split SYR2K's setting, its tiles taken from
  # a and b for k < 4096 and from b and a after; beside the fission pass's
  # variant and mxmtk itself, twice in turn, with registers.
  mkdir -p "$OUT/r/h"
  P="${S2/uf=4/uf=8},fission=1"
  Q="${S2/uf=4/uf=8}"
  $H gen $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 --params "$Q" > "$OUT/r/h/mxmtk.cl"
  python3 $D/concat.py 4096 "$OUT/r/h/mxmtk.cl" "$OUT/r/h/concat.cl"
  for round in 1 2; do
    for what in concat fission mxmtk; do
      echo "== round $round $what" >> "$OUT/r/h.txt"
      case $what in
        concat) $H run syr2k --size L -d GPU --reps 20 --params "$Q" --source "$OUT/r/h/concat.cl" --build-options -cl-nv-verbose --build-log ;;
        fission) $H run syr2k --size L -d GPU --reps 20 --params "$P" --build-options -cl-nv-verbose --build-log ;;
        mxmtk) $H run $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 -d GPU --reps 20 --params "$Q" --build-options -cl-nv-verbose --build-log ;;
      esac 2>&1 | grep -E "ms,|ms \(|registers|rror" >> "$OUT/r/h.txt"
    done
  done
fi
if has tm2; then
  # Term-major order (termmajor.py) on PART=fb's SYR2K best (16x16 groups,
  # prefetch=0), and on it with uf=16 and with tw0=8, twice in turn.
  mkdir -p "$OUT/r/tm2"
  F='bszx=8,bszy=8,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=4,prefetch=0,fission=0'
  for v in best uf16 tw8; do
    case $v in best) p=$F ;; uf16) p=${F/uf=8/uf=16} ;; tw8) p=${F/tw0=16/tw0=8} ;; esac
    echo "$p" > "$OUT/r/tm2/$v.params"
    $H gen syr2k --size L --params "$p" > "$OUT/r/tm2/$v.cl"
    python3 $D/termmajor.py "$OUT/r/tm2/$v.cl" order "$OUT/r/tm2/$v-order.cl"
    python3 $D/termmajor.py "$OUT/r/tm2/$v.cl" loads "$OUT/r/tm2/$v-loads.cl"
  done
  for round in 1 2; do
    for v in best uf16 tw8; do
      for f in $v $v-order $v-loads; do
        echo "== round $round $f" >> "$OUT/r/tm2.txt"
        $H run syr2k --size L -d GPU --reps 20 --params "$(cat "$OUT/r/tm2/$v.params")" --source "$OUT/r/tm2/$f.cl" \
          --build-options -cl-nv-verbose --build-log 2>&1 | grep -E "ms,|registers|rror" >> "$OUT/r/tm2.txt"
      done
    done
  done
fi
if has sass; then
  # The machine code of the split SYR2K, mxmtk at nk=8192 with its shape,
  # the bench's SYR2K best and MATMUL's best: hplopt run --binary writes
  # NVIDIA's PTX, ptxas compiles it for sm_90 and cuobjdump lists the SASS;
  # instructions counted by opcode.
  mkdir -p "$OUT/r/sass"
  P="${S2/uf=4/uf=8},fission=1"
  Q="${S2/uf=4/uf=8}"
  F='bszx=8,bszy=8,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=4,prefetch=0,fission=0'
  $H run syr2k --size L -d GPU --reps 5 --params "$P" --binary "$OUT/r/sass/fission.ptx" > "$OUT/r/sass.txt" 2>&1
  $H run syr2k --size L -d GPU --reps 5 --params "$F" --binary "$OUT/r/sass/best.ptx" >> "$OUT/r/sass.txt" 2>&1
  $H run matmul --size L -d GPU --reps 5 --params "$M" --binary "$OUT/r/sass/matmul.ptx" >> "$OUT/r/sass.txt" 2>&1
  $H run $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 -d GPU --reps 5 --params "$Q" --binary "$OUT/r/sass/mxmtk.ptx" >> "$OUT/r/sass.txt" 2>&1
  CU=/usr/local/cuda/bin
  ls $CU >> "$OUT/r/sass.txt" 2>&1
  for k in fission best matmul mxmtk; do
    f="$OUT/r/sass/$k"
    tr -d '\000' < "$f.ptx" > "$f.clean.ptx"
    echo "== $k" >> "$OUT/r/sass.txt"
    $CU/ptxas -arch=sm_90 -v "$f.clean.ptx" -o "$f.cubin" >> "$OUT/r/sass.txt" 2>&1
    $CU/cuobjdump -sass "$f.cubin" > "$f.sass" 2>> "$OUT/r/sass.txt"
    grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9._]*' "$f.sass" | awk '{print $2}' | sort | uniq -c | sort -rn | head -25 >> "$OUT/r/sass.txt"
    xz -9 "$f.sass"; rm -f "$f.cubin" "$f.clean.ptx"; xz -9 "$f.ptx"
  done
fi
if has same; then
  # Whether the split SYR2K loses to two loops or to the second loop's
  # other arrays: its source with the second loop's tiles read from the
  # first loop's arrays (a's rows for y, b's for x), and with the first
  # loop's read from the second's; both compute the wrong result (the
  # check says so) in the split kernel's time. Twice in turn.
  mkdir -p "$OUT/r/same"
  P="${S2/uf=4/uf=8},fission=1"
  $H gen syr2k --size L --params "$P" > "$OUT/r/same/fission.cl"
  perl -pe 'if (/_b2\b|_b2\[|_b22|_b23/) { s/\bb\[\(c_y/a[(c_y/g } if (/_a2\b|_a2\[|_a22|_a23/) { s/\ba\[\(c_x/b[(c_x/g }' "$OUT/r/same/fission.cl" > "$OUT/r/same/as-first.cl"
  perl -pe 'if (/l_a\[|pf_l_a\[|_a\b/) { s/\ba\[\(c_y/b[(c_y/g } if (/l_b\[|pf_l_b\[|_b\b/) { s/\bb\[\(c_x/a[(c_x/g }' "$OUT/r/same/fission.cl" > "$OUT/r/same/as-second.cl"
  diff "$OUT/r/same/fission.cl" "$OUT/r/same/as-first.cl" > "$OUT/r/same/as-first.diff"
  diff "$OUT/r/same/fission.cl" "$OUT/r/same/as-second.cl" > "$OUT/r/same/as-second.diff"
  for round in 1 2; do
    for f in fission as-first as-second; do
      echo "== round $round $f" >> "$OUT/r/same.txt"
      $H run syr2k --size L -d GPU --reps 20 --params "$P" --source "$OUT/r/same/$f.cl" 2>&1 | grep -E "ms,|rror" >> "$OUT/r/same.txt"
    done
  done
fi
if has halves; then
  # Two loops or the rows' length: mxmtk.cl at nk=8192 (rows of 32 KB) with
  # the split SYR2K's setting, as generated (one loop), split into two loops
  # over the halves of k (halves.py: the same product, checked), and split
  # with the second loop's arrays swapped as in SYR2K (a wrong product,
  # timed only); beside the split SYR2K (rows of 16 KB). Twice in turn.
  mkdir -p "$OUT/r/halves"
  P="${S2/uf=4/uf=8},fission=1"
  Q="${S2/uf=4/uf=8}"
  $H gen $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 --params "$Q" > "$OUT/r/halves/one.cl"
  python3 $D/halves.py 8192 "$OUT/r/halves/one.cl" "$OUT/r/halves/two.cl"
  awk 'BEGIN{s=0} /for \(int k_t = 4096/ {s=1} /\(4096 \+ i1_/ {s=1} { if (s) { gsub(/a\[\(c_y/, "B[(c_y"); gsub(/b\[\(c_x/, "A[(c_x"); gsub(/B\[\(c_y/, "b[(c_y"); gsub(/A\[\(c_x/, "a[(c_x") } print }' "$OUT/r/halves/two.cl" > "$OUT/r/halves/swapped.cl"
  diff "$OUT/r/halves/two.cl" "$OUT/r/halves/swapped.cl" > "$OUT/r/halves/swapped.diff"
  for round in 1 2; do
    for f in one two swapped; do
      echo "== round $round mxmtk $f" >> "$OUT/r/halves.txt"
      $H run $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 -d GPU --reps 20 --params "$Q" --source "$OUT/r/halves/$f.cl" >> "$OUT/r/halves.txt" 2>&1
    done
    echo "== round $round syr2k fission" >> "$OUT/r/halves.txt"
    $H run syr2k --size L -d GPU --reps 20 --params "$P" 2>&1 | grep -E "ms,|rror" >> "$OUT/r/halves.txt"
  done
fi
if has ro; then
  # The split SYR2K's second loop with its accumulations reordered
  # (reorder.py: reversed, or x-major), beside the pass's order: times
  # (two rounds in turn) and each variant's FFMA bank conflicts by
  # sassbanks.py on the SASS of hplopt run --binary's PTX.
  mkdir -p "$OUT/r/ro"
  P="${S2/uf=4/uf=8},fission=1"
  $H gen syr2k --size L --params "$P" > "$OUT/r/ro/pass.cl"
  for m in reverse xmajor; do python3 $D/reorder.py $m 2 "$OUT/r/ro/pass.cl" "$OUT/r/ro/$m.cl"; done
  for round in 1 2; do
    for f in pass reverse xmajor; do
      echo "== round $round $f" >> "$OUT/r/ro.txt"
      $H run syr2k --size L -d GPU --reps 20 --params "$P" --source "$OUT/r/ro/$f.cl" --binary "$OUT/r/ro/$f.ptx" 2>&1 | grep -E "ms,|rror" >> "$OUT/r/ro.txt"
    done
  done
  for f in pass reverse xmajor; do
    echo "== $f" >> "$OUT/r/ro.txt"
    tr -d '\000' < "$OUT/r/ro/$f.ptx" > "$OUT/r/ro/$f.clean.ptx"
    /usr/local/cuda/bin/ptxas -arch=sm_90 "$OUT/r/ro/$f.clean.ptx" -o "$OUT/r/ro/$f.cubin" >> "$OUT/r/ro.txt" 2>&1
    /usr/local/cuda/bin/cuobjdump -sass "$OUT/r/ro/$f.cubin" > "$OUT/r/ro/$f.sass"
    python3 $D/sassbanks.py "$OUT/r/ro/$f.sass" >> "$OUT/r/ro.txt" 2>&1
    rm -f "$OUT/r/ro/$f.cubin" "$OUT/r/ro/$f.clean.ptx" "$OUT/r/ro/$f.ptx" "$OUT/r/ro/$f.sass" "$OUT/r/ro/$f.cl"
  done
fi
if has ro2; then
  # The order of the accumulations (reorder.py) on the bench's SYR2K best
  # (one tile loop) and MATMUL's best: as generated, reversed, x-major;
  # two rounds in turn, with each variant's FFMA bank conflicts.
  mkdir -p "$OUT/r/ro2"
  F='bszx=8,bszy=8,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=4,prefetch=0,fission=0'
  $H gen syr2k --size L --params "$F" > "$OUT/r/ro2/syr2k.cl"
  $H gen matmul --size L --params "$M" > "$OUT/r/ro2/matmul.cl"
  for k in syr2k matmul; do
    for m in reverse xmajor; do python3 $D/reorder.py $m 1 "$OUT/r/ro2/$k.cl" "$OUT/r/ro2/$k-$m.cl"; done
  done
  for round in 1 2; do
    for k in syr2k matmul; do
      p=$F; [ $k = matmul ] && p=$M
      for f in $k $k-reverse $k-xmajor; do
        echo "== round $round $f" >> "$OUT/r/ro2.txt"
        $H run $k --size L -d GPU --reps 20 --params "$p" --source "$OUT/r/ro2/$f.cl" --binary "$OUT/r/ro2/$f.ptx" 2>&1 | grep -E "ms,|rror" >> "$OUT/r/ro2.txt"
      done
    done
  done
  for k in syr2k matmul; do
    for f in $k $k-reverse $k-xmajor; do
      echo "== $f" >> "$OUT/r/ro2.txt"
      tr -d '\000' < "$OUT/r/ro2/$f.ptx" > "$OUT/r/ro2/$f.clean.ptx"
      /usr/local/cuda/bin/ptxas -arch=sm_90 "$OUT/r/ro2/$f.clean.ptx" -o "$OUT/r/ro2/$f.cubin" >> "$OUT/r/ro2.txt" 2>&1
      /usr/local/cuda/bin/cuobjdump -sass "$OUT/r/ro2/$f.cubin" > "$OUT/r/ro2/$f.sass"
      python3 $D/sassbanks.py "$OUT/r/ro2/$f.sass" >> "$OUT/r/ro2.txt" 2>&1
    done
  done
  rm -f "$OUT"/r/ro2/*.cubin "$OUT"/r/ro2/*.ptx "$OUT"/r/ro2/*.sass "$OUT"/r/ro2/*.cl
fi
