"""Counts the instructions of a cuobjdump -sass listing between two
addresses (hex, inclusive), by opcode: usage sassops.py FILE.sass FROM TO.
The loops' bounds are the targets and addresses of their backward
branches (grep BRA)."""
import re, sys, collections
f, a, b = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
c = collections.Counter(); n = 0
for line in open(f):
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?);', line)
    if not m: continue
    addr = int(m.group(1), 16)
    if a <= addr <= b:
        w = m.group(2).split()
        o = w[1] if w[0].startswith('@') else w[0]
        c[o] += 1; n += 1
print(n, ' '.join('%s:%d' % kv for kv in c.most_common(16)))
