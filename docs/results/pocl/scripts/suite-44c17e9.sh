#!/bin/bash
# The PoCL suite at size S with genetic search, 45 s a kernel, MATMUL, SYRK
# and SYR2K against OpenBLAS SGEMM 1024 timed before and after in the same
# run (docs/results/pocl/44c17e9/). After `make build reference`, from the
# repository root:  OUT=/some/dir bash docs/results/pocl/scripts/suite-44c17e9.sh
set -u
: "${OUT:?set OUT to the output directory}"
H=$PWD/bin/hplopt
B=$PWD/bin/openblas_sgemm
mkdir -p "$OUT" && cd "$OUT" || exit 1
$H version > version.txt
$B 1024 > openblas.txt
$H bench -d CPU --sizes S -s genetic -t 45 --no-db --out suite > bench.log 2>&1
$B 1024 >> openblas.txt
$H bench --report suite --reference openblas.txt --out suite >> bench.log 2>&1
