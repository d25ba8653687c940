"""For the FFMA instructions of a cuobjdump -sass listing between two
addresses (hex, inclusive): how many there are, how many of their source
operands carry .reuse (read from the operand reuse cache), and how many
read two or three registers not reused from the same bank (register number
mod 2, the two banks of Volta and later GPUs), which costs a cycle each.
usage: sassbanks.py FILE.sass FROM TO"""
import re, sys

f, a, b = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
n = reuse = conflicts = 0
for line in open(f):
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(.*?);', line)
    if not m or not (a <= int(m.group(1), 16) <= b):
        continue
    w = m.group(2).split(None, 1)
    if w[0].startswith('@'):
        w = w[1].split(None, 1)
    if w[0] != 'FFMA':
        continue
    n += 1
    ops = [o.strip() for o in w[1].split(',')][1:]  # the sources
    banks = []
    for o in ops:
        r = re.match(r'-?\|?R(\d+)(\.reuse)?', o)
        if not r:
            continue
        if r.group(2):
            reuse += 1
        else:
            banks.append(int(r.group(1)) % 2)
    if len(banks) >= 2 and max(banks.count(0), banks.count(1)) >= 2:
        conflicts += 1
print('FFMA %d, sources reused %d, FFMA with a bank conflict %d' % (n, reuse, conflicts))
