#!/bin/bash
# The PoCL replay tables recorded again on the H100's host (2026-11-24),
# binary .gpu/hplopt: session5a.sh's tables were measured while the builder
# processes made their first launches of upcoming variants on the same 16
# cores (PoCL's builders launch each variant once so that no compile time
# is counted as run time), and session5b.sh's re-check measured their rows
# again alone: random rows at 0.62-0.82 of the tables' times. Here each
# subspace is searched twice with the same pins: the first pass (15
# builders) fills the program cache, the second measures with no builder
# process at all (--builders -1: the measuring worker makes each program,
# from PoCL's kernel cache, and launches it; nothing else runs), 10 timed
# launches per point, the median; then the same re-check as session5b.sh
# (the 10 fastest and 10 random rows, each measured again alone).
#
# Run from the repository root:  OUT=/some/dir TABLES="matmul128" bash docs/results/h100/scripts/session5c.sh
# ($TABLES: some of matmul128 conv2d256 mv1024 matmul256; matmul256, MATMUL
# n=256 whose kernels run about 8 times longer, tests whether longer
# kernels time the same from one process to the next). Everything goes to
# $OUT/c.
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
D=$OUT/c
mkdir -p "$D/tables" "$D/recheck"
T0=$(date +%s)
pack() { echo "$1: $(( $(date +%s) - T0 )) s" >> "$D/times.txt"; tar czf "$OUT/c.tgz" -C "$OUT" c; }
$H version > "$D/version.txt" 2>&1
spec() {
  case $1 in
  matmul128) echo 'matmul|-n 128,128 -k 128|lszx=1,lszy=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0,fullunroll=1,szy=16' ;;
  conv2d256) echo 'conv2d|-n 256,256 -k 5,5|lszx=1,lszy=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0,tw1=0,szy=32' ;;
  mv1024) echo 'mv|-n 1024 -k 1024|lszx=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0' ;;
  matmul256) echo 'matmul|-n 256,256 -k 256|lszx=1,lszy=1,interleave=0,vw=1,lmem=0,lcopy=0,tw0=0,fullunroll=1,szy=32' ;;
  esac
}
for t in ${TABLES:-matmul128 conv2d256 mv1024}; do
  IFS='|' read -r kernel size pins <<< "$(spec "$t")"
  cache=$D/cache-$t
  for pass in 1 2; do
    b=0; [ $pass = 2 ] && b=-1
    rm -f "$D/$t.db"*
    # shellcheck disable=SC2086
    /usr/bin/time -f "pass $pass: %e s" $H tune "$kernel" -d CPU $size -s exhaustive -t 600 -q --seed 1 --runs 10 \
      --builders $b --params "$pins" --cache "$cache" --db "$D/$t.db" >> "$D/tables/$t.log" 2>&1
    pack "$t pass $pass"
  done
  $H replay --db "$D/$t.db" --export-table "$D/tables/$t-pocl-xeon.csv" >> "$D/tables/$t.log" 2>&1
  rm -rf "$cache" "$D/$t.db"*
  # shellcheck disable=SC2086
  HPLOPT=$H NEUTRAL= SAMPLE=10 timeout 100 python3 testdata/replay/remeasure.py \
    "$D/tables/$t-pocl-xeon.csv" "$kernel" "$size" "$D/recheck/$t.csv" 10 1 10 > "$D/recheck/$t.log" 2>&1
  pack "$t recheck"
done
pack done
