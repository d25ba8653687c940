#!/bin/bash
# Tunes each kernel of testdata/clc, written in OpenCL C, at a moderate
# size on the CPU device (PoCL): one 20 s genetic search each, no records.
# Run from the repository root with hplopt built: HPLOPT=path/to/hplopt.
# Writes each run's output to docs/results/suite/pocl-cl/NAME.txt and
# prints the rows of the table in opencl-c.md.
set -u
H=${HPLOPT:-./hplopt}
T=${T:-20}
OUTDIR=docs/results/suite/pocl-cl
CL=$(mktemp -d)
mkdir -p $OUTDIR
runs=(
  "conv1d --global 4194304 --arg n=4194304 --arg nf=17"
  "covariance --global 512 --arg m=512 --arg n=512"
  "matmul --global 512,512 --arg m=512 --arg n=512 --arg p=512"
  "matvec --global 4096 --arg m=4096 --arg n=4096"
  "nbody --global 8192 --arg n=8192 --arg eps2=0.01"
  "saxpy --global 16777216 --arg n=16777216 --arg a=2.5"
  "shifted --global 4096 --arg m=4096 --arg n=4096"
  "stencil2d --global 2048,2048 --arg nx=2048 --arg ny=2048"
  "stencil3d --global 128,128,128 --arg nx=128 --arg ny=128 --arg nz=128"
  "transpose --global 2048,2048 --arg rows=2048 --arg cols=2048"
)
for r in "${runs[@]}"; do
  k=${r%% *}; flags=${r#* }
  # the kernel.cl part of the txtar archive
  sed -n '/^-- kernel.cl --$/,/^-- /p' testdata/clc/$k.txtar | sed '1d;$d' > $CL/$k.cl
  { echo "\$ uptime: $(uptime)"; echo "\$ hplopt tune $k.cl $flags -d CPU -t $T --no-db -q"; } > $OUTDIR/$k.txt
  $H tune $CL/$k.cl $flags -d CPU -t $T --no-db -q >> $OUTDIR/$k.txt 2>&1
  base=$(awk '/^single-point/ {print $2}' $OUTDIR/$k.txt)
  best=$(awk '/^best/ {print $2}' $OUTDIR/$k.txt)
  speedup=$(awk '/^best/ {print $5}' $OUTDIR/$k.txt | tr -d ,)
  evals=$(awk '/^evaluations/ {print $2}' $OUTDIR/$k.txt)
  params=$(awk '/^params/ {print $2}' $OUTDIR/$k.txt)
  echo "| $k | \`$flags\` | $base | $best | $speedup | $evals | $params |"
done
rm -rf $CL
