"""Turns SYR2K's fission=1 variant (hplopt gen's output: two tile loops,
the second the first with a and b swapped) into one tile loop run twice,
over a loop of two phases choosing the arrays: P = a, Q = b in the first,
P = b, Q = a in the second (c = beta*c + alpha*(a b^T + b a^T)). The
second loop and its local arrays go. A hand experiment: one copy of the
tile loop for ptxas to allocate, instead of two.
usage: phase.py IN.cl OUT.cl"""
import re, sys

src = open(sys.argv[1]).read()
lines = src.split('\n')
# The line of a loop's closing brace.
def loop_end(i):
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count('{') - lines[j].count('}')
        if depth == 0 and '}' in lines[j]:
            return j
    sys.exit('phase.py: no end of the loop at line %d' % (i + 1))
kt = [i for i, l in enumerate(lines) if 'for (int k_t = 0;' in l]
if len(kt) != 2:
    sys.exit('phase.py: want two tile loops, found %d' % len(kt))
e1, e2 = loop_end(kt[0]), loop_end(kt[1])
# The second loop's prologue (staging its first tiles) is every line
# between the loops; the first loop's is as many lines before it.
n = kt[1] - (e1 + 1)
p1 = kt[0] - n
if e2 - kt[1] != e1 - kt[0]:
    sys.exit('phase.py: the tile loops differ in length')
body = lines[p1:e1 + 1]
ind = re.match(r'\s*', body[0]).group(0)
body = [re.sub(r'\ba\[\(c_y\b', 'P[(c_y', re.sub(r'\bb\[\(c_x\b', 'Q[(c_x', l)) for l in body]
out = lines[:p1] + [
    ind + '#pragma unroll 1',
    ind + 'for (int ph = 0; ph < 2; ph++) {',
    ind + '    __global const float *P = ph == 0 ? a : b;',
    ind + '    __global const float *Q = ph == 0 ? b : a;',
] + ['    ' + l if l else l for l in body] + [ind + '}'] + lines[e2 + 1:]
res = '\n'.join(out)
res = re.sub(r'\n\s*__local float l_[ab]2\[[^\n]*', '', res)
res = re.sub(r'\n\s*float pf_l_[ab]2\[[^\n]*', '', res)
if re.search(r'\b[ab]\[\(c_', res) or re.search(r'l_[ab]2\[', res):
    sys.exit('phase.py: a read of a or b, or a second-loop array, is left')
open(sys.argv[2], 'w').write(res)
