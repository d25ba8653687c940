#!/bin/bash
# The accumulation pass's factor step with and without its deferred start,
# and the convolution start points, 2026-11-27, on the H100.
# Binaries (`make gpu`, then xz): .gpu/hplopt.xz (813bce5: the factor's
# accumulator start moved after the nest), .gpu/hplopt-5a027a6.xz (factor
# and order steps, convolution start points), .gpu/hplopt-d0d3faf.xz
# (before both).
#   PART=ab: the best SYRK, SYR2K and NBODY variants of the 45 s L bench at
#     cf9e9d7 (docs/results/h100/cf9e9d7/suite-l/) run with each binary,
#     twice, interleaved (`hplopt run --reps 20`), each checked.
#   PART=suite: the new binary's bench at L, 45 s a kernel, on SYRK, SYR2K,
#     NBODY, 2DCONV and 3DCONV, the command of that bench.
# Run from the repository root:  OUT=/some/dir PART=ab bash docs/results/h100/scripts/session7a.sh
set -u
: "${OUT:?set OUT to the output directory}"
PART=${PART:-ab,suite}
B=/tmp/hplopt-bin
mkdir -p "$B" "$OUT/r"
for f in hplopt hplopt-5a027a6 hplopt-d0d3faf; do
  [ -x "$B/$f" ] && continue
  if command -v xz >/dev/null; then xz -dc .gpu/$f.xz > "$B/$f"; else python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" .gpu/$f.xz > "$B/$f"; fi
  chmod +x "$B/$f"
done
{ for f in hplopt hplopt-5a027a6 hplopt-d0d3faf; do echo "$f: $($B/$f version 2>&1)"; done; nvidia-smi -L; } > "$OUT/r/version.txt" 2>&1
if [[ $PART == *ab* ]]; then
  SYRK='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=1,lmem=1,lszx=32,lszy=16,ltrans=1,pack=1,prefetch=1,szx=512,szy=512,tw0=16,uf=16,vec=1,vw=4,warp=16'
  SYR2K='bszx=8,bszy=8,fullunroll=1,gswz=1,interleave=1,lcopy=0,lmem=1,lszx=16,lszy=16,ltrans=1,pack=1,prefetch=1,szx=512,szy=256,tw0=16,uf=8,vec=1,vw=4,warp=0'
  NBODY='bszx=1,fullunroll=0,interleave=0,lcopy=0,lmem=1,lszx=512,ltrans=0,pack=1,prefetch=2,szx=65536,tw0=256,uf=16,vec=1,vw=1'
  for round in 1 2; do
    for bin in hplopt-d0d3faf hplopt-5a027a6 hplopt; do
      for k in syrk syr2k nbody; do
        P=$SYRK; [ $k = syr2k ] && P=$SYR2K; [ $k = nbody ] && P=$NBODY
        $B/$bin run $k --size L -d GPU --reps 20 --params "$P" >> "$OUT/r/ab-$k.txt" 2>&1
        echo "^ $bin round $round" >> "$OUT/r/ab-$k.txt"
      done
    done
  done
fi
if [[ $PART == *suite* ]]; then
  (cd "$OUT/r" && $B/hplopt bench -d GPU --sizes L -s genetic -t L=45 --kernels syrk,syr2k,nbody,conv2d,conv3d --no-db --out suite-l > suite-l.log 2>&1)
fi
tar czf "$OUT/r.tgz" -C "$OUT" r
