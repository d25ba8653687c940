"""Rewrites the staging copies of a variant (hplopt gen's output) so that
the compiler sees each copy's element as one work-item offset plus a
constant: where a copy's linear index is L + C (L the work-item's linear
local id, 0 <= L, C a multiple of the tile's row length D), L + C's row
(L + C) / D becomes L / D + C / D and its column (L + C) % D becomes L % D.
Signed division keeps the compiler from doing this itself: it cannot tell
that L is never negative. The same product; a hand experiment.
usage: strides.py IN.cl OUT.cl"""
import re, sys

src = open(sys.argv[1]).read()
base = r'lidx \+ lidy \* \d+(?: \+ lidz \* \d+)?'
n = 0
# Copies unrolled by the generator: (L + C) / D and (L + C) % D.
def unrolled(m):
    global n
    b, c, op, d = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
    if c % d:
        return m.group(0)
    n += 1
    return '(%s) %% %d' % (b, d) if op == '%' else '((%s) / %d + %d)' % (b, d, c // d)
src = re.sub(r'\((%s) \+ (\d+)\) ([/%%]) (\d+)' % base, unrolled, src)
# Copies in a loop: e = L + r * S; i0 = e / D; i1 = e % D.
def looped(m):
    global n
    ind, e, b, r, s, i0, d0, i1, d1 = m.groups()
    s, d0, d1 = int(s), int(d0), int(d1)
    if d0 != d1 or s % d0:
        return m.group(0)
    n += 1
    return ('%sint %s = %s + %s * %d;\n%sint %s = (%s) / %d + %s * %d;\n%sint %s = (%s) %% %d;' %
            (ind, e, b, r, s, ind, i0, b, d0, r, s // d0, ind, i1, b, d0))
src = re.sub(r'( *)int (e_\w+) = (%s) \+ (r_\w+) \* (\d+);\n *int (i0_\w+) = e_\w+ / (\d+);\n *int (i1_\w+) = e_\w+ %% (\d+);' % base, looped, src)
if n == 0:
    sys.exit('strides.py: no staging copy to rewrite')
open(sys.argv[2], 'w').write(src)
print('strides.py: %d rewritten' % n)
