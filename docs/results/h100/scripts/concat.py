"""Turns mxmtk.cl's variant at nk = 2n (hplopt gen's output) into SYR2K's
two products as one of twice the length: the tiles of steps k < n come from
a's rows for y and b's for x, those of steps k >= n from b's rows for y and
a's for x (c = beta*c + alpha*(a b^T + b a^T)). A hand experiment for a
single tile loop over both terms; usage: concat.py N IN.cl OUT.cl"""
import re, sys

n = int(sys.argv[1])
src = open(sys.argv[2]).read()
src = src.replace('void mxmtk(__global float *c, __global const float *a, __global const float *b, int n, int nk)',
                  'void syr2k(__global float *c, __global const float *a, __global const float *b, float alpha, float beta, int nk)')
# The first tile (k = 0): the rows of 2n become rows of n.
src = re.sub(r'\ba\[\(c_y \+ (i0_\w+)\) \* %d \+ (i1_\w+)\]' % (2 * n), r'a[(c_y + \1) * %d + \2]' % n, src)
src = re.sub(r'\bb\[\(c_x \+ (i0_\w+)\) \* %d \+ (i1_\w+)\]' % (2 * n), r'b[(c_x + \1) * %d + \2]' % n, src)
# The next tile, from the first or the second term's arrays.
src = re.sub(r'\ba\[\(c_y \+ (i0_\w+)\) \* %d \+ \(k_t \+ 8 \+ (i1_\w+)\)\]' % (2 * n),
             r'(k_t + 8 < %d ? a : b)[(c_y + \1) * %d + ((k_t + 8) & %d) + \2]' % (n, n, n - 1), src)
src = re.sub(r'\bb\[\(c_x \+ (i0_\w+)\) \* %d \+ \(k_t \+ 8 \+ (i1_\w+)\)\]' % (2 * n),
             r'(k_t + 8 < %d ? b : a)[(c_x + \1) * %d + ((k_t + 8) & %d) + \2]' % (n, n, n - 1), src)
# c = beta*c + alpha*sum.
src = re.sub(r'\bc\[([^\]]+)\] = (s_p_\d+_\d+);', r'c[\1] = beta * c[\1] + alpha * \2;', src)
if re.search(r'\b[ab]\[[^\]]*%d' % (2 * n), src):
    sys.exit('concat.py: a read of a row of 2n is left')
open(sys.argv[3], 'w').write(src)
