#!/bin/bash
# The H100 session of 2026-11-23 evening (after the float4 start shapes,
# commit f46e98a), in two calls of under 10 minutes on fresh machines:
#
#   PART=a: issue 17 and 14. session.sh PART=suite (cuBLAS before, the
#     suite S, M, L genetic at S=8,M=10,L=14 s, MATMUL L genetic 100 s,
#     cuBLAS after), then MATMUL L with hybrid search, 100 s, beside it.
#   PART=b: issue 15. pool.sh's main part, the binary from before the
#     builder pool (.gpu/hplopt-before, built from 5c0b8fa, the commit of
#     issue 15's figures) against this one, each run with an empty
#     compiler cache: MATMUL L genetic 60 s and the suite at S=4,M=5,L=6 s.
#     Then, time allowing, throughput.sh with the outputs checked on the
#     host (--check host) for the time split beside pool.sh's --check auto.
#
# Run from the repository root with the binaries in .gpu/:
#   make gpu
#   git worktree add /tmp/before 5c0b8fa && (cd /tmp/before && CGO_ENABLED=1 go build -o $OLDPWD/.gpu/hplopt-before ./cmd/hplopt)
#   OUT=/some/dir PART=a bash docs/results/h100/scripts/session3.sh
# Results are packed into $OUT/PART.tgz after each step (the device tool
# returns few files).
set -u
: "${OUT:?set OUT to the output directory}"
: "${PART:?set PART to a or b}"
S=$(dirname "$0")
H=$PWD/.gpu/hplopt
D=$OUT/$PART
mkdir -p "$D"
T0=$(date +%s)
pack() { echo "$1: $(( $(date +%s) - T0 )) s" >> "$D/times.txt"; tar czf "$OUT/$PART.tgz" -C "$OUT" "$PART"; }
$H version > "$D/version.txt" 2>&1

if [ "$PART" = a ]; then
  OUT=$D PART=suite bash "$S/session.sh"
  pack session
  [ $(( $(date +%s) - T0 )) -lt 470 ] && timeout -s INT 115 $H tune matmul -d GPU --size L -s hybrid -t 100 --no-db \
      --json "$D/raw/matmul-L-100s-hybrid.json" --emit "$D/raw/matmul-L-100s-hybrid.cl" > "$D/raw/matmul-L-100s-hybrid.log" 2>&1
  [ $(( $(date +%s) - T0 )) -lt 570 ] && python3 bench/reference/cublas_sgemm.py 4096 > "$D/raw/cublas-hybrid-after.txt" 2>&1
  pack hybrid
fi

if [ "$PART" = b ]; then
  OUT=$D/pool PART=main bash "$S/pool.sh" > "$D/pool.txt" 2>&1
  pack pool
  if [ -z "${SKIP_HOST:-}" ] && [ $(( $(date +%s) - T0 )) -lt 460 ]; then
    OUT=$D/throughput CHECK=host timeout 100 bash "$S/throughput.sh" > "$D/throughput.txt" 2>&1
    pack throughput
  fi
fi
