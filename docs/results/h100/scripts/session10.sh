#!/bin/bash
# SYR2K's two terms as one tile loop run over two phases (2026-11-27,
# fourth session).
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
#   PART=ph: SYR2K L with fission=0, 1 and 2 and with fission=1's variant
#     rewritten by phase.py (one copy of the tile loop inside a loop of two
#     phases choosing the arrays), on the 32x16 shape of the fission
#     experiments and on the bench's best 16x16 shape (prefetch 0 and 1);
#     beside mxmtk.cl at nk=8192 with each shape (a product of twice the
#     length, the ceiling) and MATMUL's best. Each through
#     `hplopt run --reps 20` (checked against the CPU reference), twice in
#     turn, with -cl-nv-verbose's registers; then the FFMA bank conflicts
#     (sassbanks.py) of the phase variants and of fission=1.
#   PART=xeon: a PoCL replay table of MATMUL n=1024 on the host's Xeon, and
#     its rows measured again; PART=long: SYRK and SYR2K L tuned $T s;
#     PART=rs: four variants with their pointer arguments restrict;
#     PART=loc: SYRK and SYR2K searched in the subspace around their bests;
#     PART=cmp: those bests beside MATMUL's, three rounds.
# Run from the repository root:  OUT=/some/dir PART=ph bash docs/results/h100/scripts/session10.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-ph}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
H=$B/hplopt
D=docs/results/h100/scripts
has() { [[ ",$PART," == *",$1,"* ]]; }
M='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=128,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=0'
S='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
F='bszx=8,bszy=8,ftz=0,fullunroll=1,gswz=4,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=4'
{ $H version; nvidia-smi -L; } > "$OUT/r/version-${PART//,/-}.txt" 2>&1
keep() { grep -E "ms,|ms \(|registers|rror|WRONG"; }
if has ph; then
  mkdir -p "$OUT/r/ph"
  # name -> parameters
  declare -A P=(
    [s-f0]="$S,fission=0" [s-f1]="$S,fission=1" [s-f2]="$S,fission=2" [s-ph]="$S,fission=1"
    [b0-f0]="$F,prefetch=0,fission=0" [b0-f1]="$F,prefetch=0,fission=1" [b0-f2]="$F,prefetch=0,fission=2" [b0-ph]="$F,prefetch=0,fission=1"
    [b1-f0]="$F,prefetch=1,fission=0" [b1-f2]="$F,prefetch=1,fission=2" [b1-ph]="$F,prefetch=1,fission=1"
  )
  names="s-f0 s-f1 s-f2 s-ph b0-f0 b0-f1 b0-f2 b0-ph b1-f0 b1-f2 b1-ph"
  for v in s-ph b0-ph b1-ph; do
    $H gen syr2k --size L --params "${P[$v]}" > "$OUT/r/ph/$v-fission.cl"
    python3 $D/phase.py "$OUT/r/ph/$v-fission.cl" "$OUT/r/ph/$v.cl"
  done
  for round in 1 2; do
    for v in $names; do
      echo "== round $round $v ${P[$v]}" >> "$OUT/r/ph.txt"
      src=(); case $v in *-ph) src=(--source "$OUT/r/ph/$v.cl") ;; esac
      bin=(); [ $round = 1 ] && case $v in *-ph|s-f1|s-f2|b0-f0) bin=(--binary "$OUT/r/ph/$v.ptx") ;; esac
      $H run syr2k --size L -d GPU --reps 20 --params "${P[$v]}" "${src[@]}" "${bin[@]}" \
        --build-options -cl-nv-verbose --build-log 2>&1 | keep >> "$OUT/r/ph.txt"
    done
    for sh in s b0; do
      q=$S; [ $sh = b0 ] && q="$F,prefetch=0"
      echo "== round $round mxmtk nk=8192 $sh" >> "$OUT/r/ph.txt"
      $H run $D/mxmtk.cl --global 4096,4096 --arg n=4096 --arg nk=8192 -d GPU --reps 20 --params "$q" \
        --build-options -cl-nv-verbose --build-log 2>&1 | keep >> "$OUT/r/ph.txt"
    done
    echo "== round $round matmul" >> "$OUT/r/ph.txt"
    $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep >> "$OUT/r/ph.txt"
  done
  for f in "$OUT"/r/ph/*.ptx; do
    k=${f%.ptx}
    echo "== $(basename "$k")" >> "$OUT/r/ph-sass.txt"
    tr -d '\000' < "$f" > "$k.clean.ptx"
    /usr/local/cuda/bin/ptxas -arch=sm_90 -v "$k.clean.ptx" -o "$k.cubin" >> "$OUT/r/ph-sass.txt" 2>&1
    /usr/local/cuda/bin/cuobjdump -sass "$k.cubin" > "$k.sass"
    python3 $D/sassbanks.py "$k.sass" >> "$OUT/r/ph-sass.txt" 2>&1
    grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9._]*' "$k.sass" | awk '{print $2}' | sort | uniq -c | sort -rn | head -12 >> "$OUT/r/ph-sass.txt"
    rm -f "$k.cubin" "$k.clean.ptx" "$f"; xz -9 "$k.sass"
  done
fi
if has xeon; then
  # A PoCL replay table on the host's 16-core Xeon whose fastest kernels
  # run milliseconds, not the 35-60 µs of the *-pocl-xeon.csv tables
  # (whose rows do not repeat from one process to the next): MATMUL
  # n=1024 in a subspace of 1025 points, recorded as session5c.sh records
  # (two exhaustive passes, the first filling the program cache with 15
  # builders, the second measuring with no builder process, 10 timed
  # launches a point, the median); then its 10 fastest and 10 random rows
  # measured again, one process a row, two rounds (remeasure.py).
  # $TABLES: some of matmul1024 (default), conv2d2048, mv8192.
  X=$OUT/r/xeon
  mkdir -p "$X"
  T0=$(date +%s)
  spec() {
    case $1 in
    matmul1024) echo 'matmul|-n 1024,1024 -k 1024|lszx=1,lszy=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0,fullunroll=1,szy=32,vec=16' ;;
    conv2d2048) echo 'conv2d|-n 2048,2048 -k 5,5|lszx=1,lszy=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0,tw1=0,szy=32,vec=16' ;;
    mv8192) echo 'mv|-n 8192 -k 8192|lszx=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0' ;;
    esac
  }
  for t in ${TABLES:-matmul1024}; do
    IFS='|' read -r kernel size pins <<< "$(spec "$t")"
    cache=$X/cache-$t
    for pass in 1 2; do
      b=0; [ $pass = 2 ] && b=-1
      rm -f "$X/$t.db"*
      # shellcheck disable=SC2086
      /usr/bin/time -f "pass $pass: %e s" $H tune "$kernel" -d CPU $size -s exhaustive -t 600 -q --seed 1 --runs 10 \
        --builders $b --params "$pins" --cache "$cache" --db "$X/$t.db" >> "$X/$t.log" 2>&1
      echo "$t pass $pass: $(( $(date +%s) - T0 )) s" >> "$X/times.txt"
      [ $pass = 1 ] && $H replay --db "$X/$t.db" --export-table "$X/$t-pass1.csv" >> "$X/$t.log" 2>&1
    done
    $H replay --db "$X/$t.db" --export-table "$X/$t-pocl-xeon.csv" >> "$X/$t.log" 2>&1
    rm -rf "$cache" "$X/$t.db"*
    # shellcheck disable=SC2086
    HPLOPT=$H NEUTRAL= SAMPLE=10 timeout ${RECHECK_S:-200} python3 testdata/replay/remeasure.py \
      "$X/$t-pocl-xeon.csv" "$kernel" "$size" "$X/$t-recheck.csv" 10 2 10 > "$X/$t-recheck.log" 2>&1
    echo "$t recheck: $(( $(date +%s) - T0 )) s" >> "$X/times.txt"
  done
fi
if has long; then
  # SYRK and SYR2K L tuned longer than the bench's 45 s ($T s each,
  # genetic), beside MATMUL's best setting run 20 times before and after.
  T=${T:-270}
  $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep > "$OUT/r/long-matmul.txt"
  for k in ${LONG:-syrk syr2k}; do
    (cd "$OUT/r" && $H tune $k --size L -d GPU -s genetic -t $T --no-db > tune$T-$k.txt 2>&1)
  done
  $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep >> "$OUT/r/long-matmul.txt"
fi
if has rs; then
  # restrict: the best settings of SYR2K (16x16, the bench's), SYRK (the
  # 270 s search's) and MATMUL, and the phase loop of the 32x16 SYR2K, each
  # as generated and with every pointer argument (and the phase loop's P
  # and Q) declared restrict (sed), twice in turn.
  mkdir -p "$OUT/r/rs"
  SK='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  declare -A P=([syr2k]="$F,prefetch=0,fission=0" [syrk]="$SK" [matmul]="$M" [phase]="$S,fission=1")
  for v in syr2k syrk matmul phase; do
    k=$v; [ $v = phase ] && k=syr2k
    $H gen $k --size L --params "${P[$v]}" > "$OUT/r/rs/$v.cl"
    [ $v = phase ] && { python3 $D/phase.py "$OUT/r/rs/$v.cl" "$OUT/r/rs/$v.tmp" && mv "$OUT/r/rs/$v.tmp" "$OUT/r/rs/$v.cl"; }
    sed -E 's/(__global (const )?float \*)([a-zA-Z_][a-zA-Z0-9_]*)([,)])/\1restrict \3\4/g; s/(__global const float \*)(P|Q) =/\1restrict \2 =/' "$OUT/r/rs/$v.cl" > "$OUT/r/rs/$v-restrict.cl"
    diff "$OUT/r/rs/$v.cl" "$OUT/r/rs/$v-restrict.cl" > "$OUT/r/rs/$v.diff"
  done
  for round in 1 2; do
    for v in syr2k syrk matmul phase; do
      k=$v; [ $v = phase ] && k=syr2k
      for f in $v $v-restrict; do
        echo "== round $round $f" >> "$OUT/r/rs.txt"
        $H run $k --size L -d GPU --reps 20 --params "${P[$v]}" --source "$OUT/r/rs/$f.cl" 2>&1 | keep >> "$OUT/r/rs.txt"
      done
    done
  done
  rm -f "$OUT"/r/rs/*.cl
fi
if has loc; then
  # SYRK and SYR2K L searched $T s each (genetic) in the subspace around
  # the 270 s searches' bests: the passes and the per-item block pinned
  # (lmem, ltrans, pack, fullunroll, interleave, vw=4, 8x8 points, split
  # and fission off), the shape, tile, unrolling, prefetch, warp, gswz and
  # lcopy free; MATMUL's best setting before and after.
  T=${T:-130}
  PIN='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,interleave=1,lmem=1,ltrans=1,pack=1,split=1,vec=1,vw=4'
  $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep > "$OUT/r/loc-matmul.txt"
  for k in ${LONG:-syrk syr2k}; do
    (cd "$OUT/r" && $H tune $k --size L -d GPU -s genetic -t $T --params "$PIN" --no-db > loc$T-$k.txt 2>&1)
  done
  $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep >> "$OUT/r/loc-matmul.txt"
fi
if has cmp; then
  # The PART=loc bests of SYRK and SYR2K beside MATMUL's best setting, each
  # through hplopt run --reps 20, three rounds in turn.
  SK='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=32,ltrans=1,pack=1,prefetch=1,split=1,szx=512,szy=512,tw0=8,uf=8,vec=1,vw=4,warp=2'
  S2K='bszx=8,bszy=8,fission=0,ftz=0,fullunroll=1,gswz=2,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=0,split=1,szx=512,szy=512,tw0=16,uf=8,vec=1,vw=4,warp=8'
  for round in 1 2 3; do
    $H run matmul --size L -d GPU --reps 20 --params "$M" 2>&1 | keep >> "$OUT/r/cmp.txt"
    $H run syrk --size L -d GPU --reps 20 --params "$SK" 2>&1 | keep >> "$OUT/r/cmp.txt"
    $H run syr2k --size L -d GPU --reps 20 --params "$S2K" 2>&1 | keep >> "$OUT/r/cmp.txt"
  done
fi
