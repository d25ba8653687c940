"""Splits the tile loop of mxmtk.cl's variant (hplopt gen's output, with
prefetch=1) into two loops over the halves of k, each with its own copy of
its first tile before it: the same product, in the two-loop form that the
fission pass gives SYR2K. usage: halves.py NK IN.cl OUT.cl"""
import re, sys

nk = int(sys.argv[1])
half = nk // 2
lines = open(sys.argv[2]).read().split('\n')
tile = next(i for i, l in enumerate(lines) if re.match(r'^\s*for \(int k_t = 0; ', l))
first = next(i for i, l in enumerate(lines) if l.strip() == '#pragma unroll')
depth, end = 0, tile
for j in range(tile, len(lines)):
    depth += lines[j].count('{') - lines[j].count('}')
    if depth == 0:
        end = j
        break
pro, loop = lines[first:tile], lines[tile:end + 1]
bound = lambda ls: [l.replace('k_t < %d;' % nk, 'k_t < %d;' % half).replace('k_t + 8 < %d)' % nk, 'k_t + 8 < %d)' % half) for l in ls]
pro2 = [re.sub(r'\* %d \+ (i1_\w+)\]' % nk, r'* %d + (%d + \1)]' % (nk, half), l) for l in pro]
loop2 = [l.replace('for (int k_t = 0; ', 'for (int k_t = %d; ' % half) for l in loop]
if pro2 == pro or loop2 == loop or bound(loop) == loop:
    sys.exit('halves.py: the variant does not have the expected form')
out = lines[:first] + pro + bound(loop) + pro2 + loop2 + lines[end + 1:]
open(sys.argv[3], 'w').write('\n'.join(out))
