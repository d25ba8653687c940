#!/bin/bash
# Session 30: the main job on the lent GPU with the current default.
cd "$(dirname "$0")/.."
xz -d -f -k .gpu/hplopt.xz && chmod +x .gpu/hplopt
H=./.gpu/hplopt
M="-d GPU -n 4096,4096 -k 4096"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
$H devices > $OUT/devices.txt 2>&1
python3 bench/reference/cublas_sgemm.py 4096 > $OUT/cublas-before.txt 2>&1
( time $H matmul $M -t 120 --db $OUT/r.db --json $OUT/first.json ) > $OUT/first.txt 2>&1
( time $H matmul $M -t 120 --db $OUT/r.db --json $OUT/again.json ) > $OUT/again.txt 2>&1
( time $H matmul $M -t 60 --reuse continue --db $OUT/r.db --json $OUT/cont.json ) > $OUT/cont.txt 2>&1
python3 bench/reference/cublas_sgemm.py 4096 > $OUT/cublas-after.txt 2>&1
$H db --db $OUT/r.db list > $OUT/dblist.txt 2>&1
xz -T4 $OUT/*.json
