#!/bin/sh
# record.sh measures a dense subspace of a kernel's Table 2 space on the
# machine's OpenCL device with hplopt's exhaustive search, recording every
# evaluation in a fresh records database, and writes the problem's records
# as a replay table (hplopt replay --export-table: # lines with the
# problem, its device and the start points of a live search, then a column
# per parameter in the space's order, time_ms with the median time or the
# failure, cost_ms with the evaluation's share of the search's wall time).
#
# usage: testdata/replay/record.sh OUT.csv KERNEL "SIZE FLAGS" PINS
# e.g.   testdata/replay/record.sh testdata/replay/matmul128-pocl.csv matmul \
#          "-n 128,128 -k 128" interleave=0,lmem=0,lcopy=0,tw0=0,bszy=1,lszy=1,szy=128
# HPLOPT=path runs that binary instead of building one; KEEP_DB=1 keeps the
# records database (OUT.db) beside the table; FLAGS adds flags to tune (e.g.
# FLAGS="--builders -1 --runs 10": no builder process beside the
# measurements, the median of 10 timed launches).
set -eu
out=$1 kernel=$2 size=$3 pins=$4
db=${out%.csv}.db
bin=${HPLOPT:-${TMPDIR:-/tmp}/hplopt-record}
if [ -z "${HPLOPT:-}" ]; then
	go build -o "$bin" ./cmd/hplopt
fi
rm -f "$db" "$db-wal" "$db-shm"
# shellcheck disable=SC2086
"$bin" tune "$kernel" $size -s exhaustive -t 3600 -q --seed 1 ${FLAGS:-} --params "$pins" --db "$db"
"$bin" replay --db "$db" --export-table "$out"
if [ -z "${KEEP_DB:-}" ]; then
	rm -f "$db" "$db-wal" "$db-shm"
fi
