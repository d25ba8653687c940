"""Rewrites the register prefetch of a variant (hplopt gen's output,
prefetch=1) so that no branch guards it: the guard `if (k_t + T < N)`
around the loads of the next tile becomes a clamp (the last step loads its
own tile again, k_t + T < N ? k_t + T : k_t), and the guard around their
stores into local memory goes (the last step stores that same tile). The
same product; a hand experiment on where the compiler places the loads.
usage: unguard.py IN.cl OUT.cl"""
import re, sys

lines = open(sys.argv[1]).read().split('\n')
guard = re.compile(r'^(\s*)if \(k_t \+ (\d+) < (\d+)\) \{$')
n = 0
for i, l in enumerate(lines):
    m = guard.match(l)
    if not m:
        continue
    ind, t, lim = m.groups()
    # The guarded block: up to the brace that closes it.
    depth, end = 0, i
    for j in range(i, len(lines)):
        depth += lines[j].count('{') - lines[j].count('}')
        if depth == 0:
            end = j
            break
    body = lines[i + 1:end]
    if any(re.search(r'pf_\w+(\[\w+\])? = ', b) for b in body):
        lines[i] = '%s{ const int k_pf = k_t + %s < %s ? k_t + %s : k_t;' % (ind, t, lim, t)
        for j in range(i + 1, end):
            lines[j] = lines[j].replace('k_t + %s + ' % t, 'k_pf + ')
        n += 1
    elif any(re.search(r'= pf_\w+', b) for b in body):
        lines[i] = ind + '{'
        n += 1
if n == 0:
    sys.exit('unguard.py: no guarded prefetch to rewrite')
open(sys.argv[2], 'w').write('\n'.join(lines))
print('unguard.py: %d guards rewritten' % n)
