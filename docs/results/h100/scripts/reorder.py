"""Reorders the accumulations (u_p_c_I_J, p_c_I_J or s_p_I_J += ...) of each unrolled step in
one tile loop of a variant (hplopt gen's output): mode "reverse" reverses
them, "xmajor" orders them by J then I (the points along x outer). LOOP is
1 for the first tile loop, 2 for the second (after fission). A hand
experiment on the compiler's register allocation; usage:
reorder.py MODE LOOP IN.cl OUT.cl"""
import re, sys

mode, which = sys.argv[1], int(sys.argv[2])
lines = open(sys.argv[3]).read().split('\n')
acc = re.compile(r'^\s*(?:u_p_c|p_c|s_p)_(\d+)_(\d+) \+= ')
starts = [i for i, l in enumerate(lines) if re.match(r'^\s*for \(int k_t = ', l)]
lo = starts[which - 1]
hi = starts[which] if which < len(starts) else len(lines)
out, i, changed = lines[:lo], lo, 0
while i < hi:
    if acc.match(lines[i]):
        run = []
        while i < hi and acc.match(lines[i]):
            run.append(lines[i])
            i += 1
        if mode == 'reverse':
            new = run[::-1]
        else:
            key = lambda l: (int(acc.match(l).group(2)), int(acc.match(l).group(1)))
            new = sorted(run, key=key)
        changed += new != run
        out += new
        continue
    out.append(lines[i])
    i += 1
out += lines[hi:]
if not changed:
    sys.exit('reorder.py: nothing reordered')
open(sys.argv[4], 'w').write('\n'.join(out))
