"""For the FFMA instructions of a cuobjdump -sass listing between two
addresses (hex, inclusive): how many there are, how many of their source
operands carry .reuse (read from the operand reuse cache), and how many
read two or three registers not reused from the same bank (register number
mod 2, the two banks published for Volta, assumed for later GPUs).
usage: sassbanks.py FILE.sass [FROM TO]; without FROM and TO, every loop
(from the target of a backward branch to the branch)."""
import re, sys

listing = []
for line in open(sys.argv[1]):
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?);', line)
    if m:
        listing.append((int(m.group(1), 16), m.group(2)))
if len(sys.argv) == 4:
    ranges = [(int(sys.argv[2], 16), int(sys.argv[3], 16))]
else:
    ranges = []
    for addr, ins in listing:
        br = re.search(r'\bBRA (0x[0-9a-f]+)', ins)
        if br and int(br.group(1), 16) < addr:
            ranges.append((int(br.group(1), 16), addr))

for a, b in ranges:
    n = reuse = conflicts = 0
    for addr, ins in listing:
        if not a <= addr <= b:
            continue
        w = ins.split(None, 1)
        if w[0].startswith('@'):
            w = w[1].split(None, 1)
        if w[0] != 'FFMA':
            continue
        n += 1
        banks = []
        for o in [o.strip() for o in w[1].split(',')][1:]:  # the sources
            r = re.match(r'-?\|?R(\d+)(\.reuse)?', o)
            if not r:
                continue
            if r.group(2):
                reuse += 1
            else:
                banks.append(int(r.group(1)) % 2)
        if len(banks) >= 2 and max(banks.count(0), banks.count(1)) >= 2:
            conflicts += 1
    print('0x%x-0x%x: FFMA %d, sources reused %d, FFMA with a bank conflict %d' % (a, b, n, reuse, conflicts))
