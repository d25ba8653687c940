#!/bin/bash
# 3DCONV L: shapes after 2DCONV L's best (2026-11-27): a work-group of 2x64
# work-items, 16x2 points each, over one plane of z, with the filter's z
# loop in tiles of 1 or 2 and its y and x loops in tiles of 16, beside the
# best of the 45 s bench at 813bce5. Each `hplopt run --reps 5`, checked.
# Binary: .gpu/hplopt.xz (`make gpu`, then xz).
# Run from the repository root:  OUT=/some/dir bash docs/results/h100/scripts/session7b.sh
set -u
: "${OUT:?set OUT to the output directory}"
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
[ -x $B/hplopt ] || { xz -dc .gpu/hplopt.xz > $B/hplopt 2>/dev/null || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/hplopt.xz > $B/hplopt; chmod +x $B/hplopt; }
{ $B/hplopt version; nvidia-smi -L; } > "$OUT/r/version.txt" 2>&1
BASE='bszx=16,bszy=2,bszz=1,lszx=2,lszz=1,lmem=1,lcopy=1,uf=16,gswz=1,szx=8,szy=64,szz=128'
for p in \
  'bszx=16,bszy=2,bszz=1,fullunroll=0,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=2,lszy=16,lszz=1,ltrans=0,pack=1,prefetch=0,szx=8,szy=64,szz=128,tw0=2,tw1=32,tw2=16,uf=16,vec=2,vw=2,warp=0' \
  "$BASE,lszy=64,tw0=1,tw1=16,tw2=16,interleave=0" \
  "$BASE,lszy=32,tw0=2,tw1=16,tw2=16,interleave=0" \
  "$BASE,lszy=32,tw0=1,tw1=16,tw2=16,interleave=0" \
  "$BASE,lszy=64,tw0=1,tw1=16,tw2=16,interleave=1,pack=1,vec=2,vw=2" \
  "$BASE,lszy=64,tw0=1,tw1=8,tw2=32,interleave=0" \
  "$BASE,lszy=32,tw0=1,tw1=32,tw2=16,interleave=0" \
  "$BASE,lszy=64,tw0=1,tw1=16,tw2=16,interleave=0,prefetch=1" \
  ; do
  $B/hplopt run conv3d --size L -d GPU --reps 5 --params "$p" >> "$OUT/r/conv3d.txt" 2>&1
done
tar czf "$OUT/r.tgz" -C "$OUT" r
