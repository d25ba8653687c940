"""Summarizes Nsight Compute's per-instruction page (ncu -i REP --page
source --csv --print-source sass, as session11.sh's PART=prof writes it):
the instructions executed by opcode, the warp stall samples by reason, and
the instructions that hold most of the samples of one reason.
usage: ncusource.py [--where REASON] FILE.source.csv..."""
import collections, csv, sys

args = sys.argv[1:]
where = None
if args[:1] == ['--where']:
    where, args = 'stall_' + args[1], args[2:]
for path in args:
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == 'Address')
    h = rows[head]
    ix = {k: i for i, k in enumerate(h)}
    body = [r for r in rows[head + 1:] if len(r) == len(h)]
    ops, stalls = collections.Counter(), collections.Counter()
    for r in body:
        f = r[ix['Source']].split()
        if not f:
            continue
        op = (f[1] if f[0].startswith('@') else f[0]).split('.')[0]
        ops[op] += int(r[ix['Instructions Executed']] or 0)
        for k in h:
            if k.startswith('stall_') and '(Not Issued)' not in k:
                stalls[k] += int(r[ix[k]] or 0)
    n, s = sum(ops.values()), sum(stalls.values())
    print('== %s: %.3g instructions executed, FFMA %.1f%%' % (path, n, 100 * ops['FFMA'] / n))
    print('   opcodes: ' + ', '.join('%s %.1f%%' % (k, 100 * c / n) for k, c in ops.most_common(10)))
    print('   stall samples: ' + ', '.join('%s %.1f%%' % (k[6:], 100 * c / s) for k, c in stalls.most_common(8)))
    if where:
        tot = sum(int(r[ix[where]] or 0) for r in body)
        for i, r in enumerate(body):
            c = int(r[ix[where]] or 0)
            if tot and c > 0.02 * tot:
                print('   %5d %-56s %s %.1f%%' % (i, r[ix['Source']].strip()[:56], where[6:], 100 * c / tot))
