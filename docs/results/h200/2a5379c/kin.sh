#!/bin/bash
# Session 30: a search on the H200 started from a setting recorded on the H100 (records.DB.Kin).
cd "$(dirname "$0")/.."
xz -d -f -k .gpu/hplopt.xz && chmod +x .gpu/hplopt
H=./.gpu/hplopt
K="tune conv2d -d GPU --size L"
P100="bszx=16,bszy=2,coff=0,fission=0,ftz=0,fullunroll=1,gswz=1,interleave=0,lcopy=1,lmem=1,lszx=2,lszy=64,ltrans=0,pack=1,prefetch=0,split=1,szx=64,szy=512,tw0=32,tw1=16,uf=16,vec=2,vw=1,warp=0"
D=/tmp/k; mkdir -p $D $OUT/kin
$H $K -e 1 --db $D/a.db -q > $OUT/kin/key.txt 2>&1
$H db --db $D/a.db export --format json --out $D/a.json
python3 .gpu/kin.py $D/a.json $D/b.json "NVIDIA H100 80GB HBM3" "$P100" 11.708
if ! $H db --db $D/b.db import $D/b.json 2> $D/err.txt; then
  id=$(grep -o "its key's ID is [0-9a-f]*" $D/err.txt | awk '{print $5}')
  python3 .gpu/kin.py $D/a.json $D/b.json "NVIDIA H100 80GB HBM3" "$P100" 11.708 $id
  $H db --db $D/b.db import $D/b.json >> $OUT/kin/key.txt 2>&1
fi
$H db --db $D/b.db list >> $OUT/kin/key.txt 2>&1
for t in 20 40; do
  $H $K -t $t --db $D/b.db --json $OUT/kin/kin-$t.json > $OUT/kin/kin-$t.txt 2>&1
  $H $K -t $t --db $D/c-$t.db --json $OUT/kin/none-$t.json > $OUT/kin/none-$t.txt 2>&1
  # the next budget starts again from the H100's record alone
  rm -f $D/b.db*; $H db --db $D/b.db import $D/b.json > /dev/null 2>&1
done
cd $OUT && tar cJf kin.tar.xz kin && rm -rf kin
