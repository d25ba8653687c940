#!/bin/bash
set -u
H=$PWD/.gpu/hplopt
R=$OUT/r; mkdir -p $R/raw
cd $R
$H devices > raw/devices.txt 2>&1
python3 $OLDPWD/.gpu/cublas_sgemm.py 1024 2048 4096 > raw/cublas1.txt 2>&1
$H bench -d GPU --kernels matmul,syrk,syr2k,nbody,conv1d --sizes S,M,L -s random,genetic -t S=8,M=10,L=14 --out gpu1 > raw/bench1.log 2>&1
tail -3 raw/bench1.log; cat raw/cublas1.txt
cd $OUT && tar czf a.tgz r && rm -rf r
