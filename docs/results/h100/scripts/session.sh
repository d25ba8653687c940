#!/bin/bash
# The H100 suite of docs/results/h100/ (commit 0bcee9b, 2026-11-23; the suite's
# runs ended 17:40-17:45 UTC): the eight kernels at S, M and L with genetic search and cuBLAS SGEMM
# timed before and after; MATMUL L with 100 s of genetic search; MATMUL L
# with 90 s of genetic search and ltrans=1,pack=1,lmem=1 pinned, between two
# more cuBLAS timings. The session ran the first part (PART=suite) and the
# pinned search (PART=pinned) as two calls on two fresh machines (an empty
# NVIDIA compiler cache each); PART=all runs both, one after the other.
# About 6.5 minutes for PART=suite, 1 m 45 s for PART=pinned.
#
# Run from the repository root on the GPU machine, with the binary built
# from the tree (CGO_ENABLED=1 go build -o .gpu/hplopt ./cmd/hplopt) and
# PyTorch installed for bench/reference/cublas_sgemm.py:
#
#   OUT=/some/dir bash docs/results/h100/scripts/session.sh
#   OUT=/some/dir PART=pinned bash docs/results/h100/scripts/session.sh
#
# Writes $OUT/suite/ (results.md, results.csv, plots, runs/) and $OUT/raw/
# (the logs, the cuBLAS timings, the 100 s and pinned searches' JSON
# reports and best sources), as committed under docs/results/h100/.
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/.gpu/hplopt
PART=${PART:-suite}
R=$OUT
mkdir -p $R/raw
T0=$(date +%s)

if [ "$PART" = suite ] || [ "$PART" = all ]; then
  $H devices > $R/raw/devices.txt 2>&1
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $R/raw/devices.txt 2>&1
  python3 bench/reference/cublas_sgemm.py 1024 2048 4096 > $R/raw/cublas-before.txt 2>&1
  echo "cublas: $(( $(date +%s) - T0 )) s" >> $R/raw/times.txt
  # the bench runs in $R so that the table's command names raw/cublas-before.txt
  (cd $R && timeout -s INT 380 $H bench -d GPU --sizes S,M,L -s genetic -t S=8,M=10,L=14 \
      --reference raw/cublas-before.txt --no-db --out suite > raw/bench.log 2>&1)
  echo "bench: $(( $(date +%s) - T0 )) s" >> $R/raw/times.txt
  timeout -s INT 115 $H tune matmul -d GPU --size L -s genetic -t 100 --no-db \
      --json $R/raw/matmul-L-100s.json --emit $R/raw/matmul-L-100s-best.cl > $R/raw/matmul-L-100s.log 2>&1
  echo "matmul: $(( $(date +%s) - T0 )) s" >> $R/raw/times.txt
  python3 bench/reference/cublas_sgemm.py 1024 2048 4096 > $R/raw/cublas-after.txt 2>&1
  echo "cublas: $(( $(date +%s) - T0 )) s" >> $R/raw/times.txt
fi

if [ "$PART" = pinned ] || [ "$PART" = all ]; then
  T0=$(date +%s)
  python3 bench/reference/cublas_sgemm.py 4096 > $R/raw/cublas-pinned-before.txt 2>&1
  timeout -s INT 100 $H tune matmul -d GPU --size L -s genetic -t 90 --params ltrans=1,pack=1,lmem=1 --no-db \
      --json $R/raw/matmul-L-pinned.json --emit $R/raw/matmul-L-pinned.cl > $R/raw/matmul-L-pinned.log 2>&1
  python3 bench/reference/cublas_sgemm.py 4096 > $R/raw/cublas-pinned-after.txt 2>&1
  echo "matmul: $(( $(date +%s) - T0 )) s" >> $R/raw/times-pinned.txt
fi
