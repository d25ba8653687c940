"""Splits the tile loop of a SYR2K variant (as hplopt gen writes it, with
prefetch=1) into two: the first stages l_a and l_b and accumulates the first
product, the second stages l_b2 and l_a2 and accumulates the second, each
with its own prologue copy and register prefetch (6 floats a work-item, not
12). A hand experiment for what a fission of the compute loop by terms would
give; usage: fission.py IN.cl OUT.cl"""
import re, sys

lines = open(sys.argv[1]).read().split('\n')
TERMS = [{'l_a', 'l_b'}, {'l_b2', 'l_a2'}]


def block_end(i):
    """Index of the line closing the block opened on line i."""
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count('{') - lines[j].count('}')
        if depth == 0 and '{' in ''.join(lines[i:j + 1]):
            return j
    raise ValueError('unbalanced braces from line %d' % (i + 1))


copy_for = re.compile(r'^\s*for \(int r_(\w+) = ')
load = re.compile(r'^\s*float4 (v_\w+) = \*\(__local float4 \*\)&(l_\w+)\[')
acc = re.compile(r'^\s*u_p_c_\d+_\d+ \+= (v_\w+)\.s\d \* (v_\w+)\.s\d;$')


def copies(seg, term):
    """seg with the copy loops (#pragma unroll + for r_X) of arrays not in
    term removed."""
    out, i = [], 0
    while i < len(seg):
        m = copy_for.match(seg[i]) if i < len(seg) else None
        if seg[i].strip() == '#pragma unroll' and i + 1 < len(seg) and copy_for.match(seg[i + 1]):
            m = copy_for.match(seg[i + 1])
            # find the end inside seg
            depth, j = 0, i + 1
            while True:
                depth += seg[j].count('{') - seg[j].count('}')
                if depth == 0:
                    break
                j += 1
            if 'l_' + m.group(1) in term:
                out += seg[i:j + 1]
            i = j + 1
            continue
        out.append(seg[i])
        i += 1
    return out


def compute(seg, term):
    arr, out = {}, []
    for l in seg:
        m = load.match(l)
        if m:
            arr[m.group(1)] = m.group(2)
            if m.group(2) in term:
                out.append(l)
            continue
        m = acc.match(l)
        if m:
            if arr[m.group(1)] in term and arr[m.group(2)] in term:
                out.append(l)
            elif (arr[m.group(1)] in term) != (arr[m.group(2)] in term):
                raise ValueError('a product mixes the terms: ' + l)
            continue
        out.append(l)
    return out


# the prologue: from the first copy loop to the barrier before the tile loop
tile = next(i for i, l in enumerate(lines) if re.match(r'^\s*for \(int k_t = ', l))
first = next(i for i, l in enumerate(lines) if l.strip() == '#pragma unroll')
pro = lines[first:tile]
end = block_end(tile)
body = lines[tile:end + 1]
out = lines[:first]
for term in TERMS:
    out += copies(pro, term)
    out += compute(copies(body, term), term)
out += lines[end + 1:]
open(sys.argv[2], 'w').write('\n'.join(out))
