#!/bin/bash
set -u
H=$PWD/.gpu/hplopt
R=$OUT/r; mkdir -p $R/raw
cd $R
$H bench -d GPU --kernels conv2d,dcs3d,conv3d --sizes S,M,L -s random,genetic -t S=8,M=10,L=14 --out gpu2 > raw/bench2.log 2>&1
tail -2 raw/bench2.log
$H tune matmul -d GPU --size L -s genetic -t 100 --runs 5 -q --json raw/matmul-L-genetic-100s.json --emit raw/matmul-L-best.cl > raw/matmul-L-100s.log 2>&1
cat raw/matmul-L-100s.log
python3 $OLDPWD/.gpu/cublas_sgemm.py 4096 > raw/cublas2.txt 2>&1
cat raw/cublas2.txt
cd $OUT && tar czf b.tgz r && rm -rf r
