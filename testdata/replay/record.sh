#!/bin/sh
# record.sh measures a dense subspace of a benchmark's Table 2 space on the
# machine's OpenCL device with hplopt's exhaustive search and writes it as a
# replay table (CSV: one column per parameter in the space's order, time_ms
# with the median time or "fail", cost_ms with the evaluation's share of the
# search's wall time).
#
# usage: testdata/replay/record.sh OUT.csv KERNEL "SIZE FLAGS" PINS
# e.g.   testdata/replay/record.sh testdata/replay/matmul128-pocl.csv matmul \
#          "-n 128,128 -k 128" interleave=0,lmem=0,lcopy=0,tw0=0,bszy=1,lszy=1,szy=128
set -eu
out=$1 kernel=$2 size=$3 pins=$4
json=${out%.csv}.json
go build -o "${TMPDIR:-/tmp}/hplopt-record" ./cmd/hplopt
# shellcheck disable=SC2086
"${TMPDIR:-/tmp}/hplopt-record" tune "$kernel" $size -s exhaustive -t 3600 -q --seed 1 \
	--params "$pins" --json "$json"
python3 - "$json" "$out" <<'PY'
import csv, json, sys
rep = json.load(open(sys.argv[1]))
# Table 2 order of the parameters (autotune.Table2).
order = ["bszx", "bszy", "bszz", "fullunroll", "interleave", "vw",
         "lszx", "szx", "lszy", "szy", "lszz", "szz", "tw0", "tw1", "tw2",
         "uf", "lmem", "lcopy"]
hist = rep["history"]
names = [n for n in order if n in hist[0]["params"]]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(names + ["time_ms", "cost_ms"])
    prev = 0.0
    for e in hist:
        t = "%.6g" % e["ms"] if e["outcome"] == "ok" else "fail"
        w.writerow([e["params"][n] for n in names] + [t, "%.1f" % (e["elapsed_ms"] - prev)])
        prev = e["elapsed_ms"]
PY
rm -f "$json"
echo "wrote $out: $(($(wc -l <"$out") - 1)) rows"
