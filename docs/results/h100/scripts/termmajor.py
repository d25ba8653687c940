import re, sys
# term-major order of an unrolled step's accumulations: every point's first
# product, then every point's second; mode "loads" also moves each product's
# local loads just before it.
src = open(sys.argv[1]).read().split('\n')
mode = sys.argv[2]
out = []; i = 0
load = re.compile(r'^\s*float4 (v_\w+) = ')
acc = re.compile(r'^\s*u_p_c_\d+_\d+ \+= (v_\w+)\.s\d \* (v_\w+)\.s\d;$')
while i < len(src):
    if load.match(src[i]):
        loads = []
        while i < len(src) and load.match(src[i]):
            loads.append(src[i]); i += 1
        accs = []
        while i < len(src) and acc.match(src[i]):
            accs.append(src[i]); i += 1
        if not accs:
            out += loads; continue
        first, second = accs[0::2], accs[1::2]
        def used(lines):
            s = set()
            for l in lines:
                m = acc.match(l); s |= {m.group(1), m.group(2)}
            return s
        if mode == 'loads':
            u1 = used(first)
            out += [l for l in loads if load.match(l).group(1) in u1]
            out += first
            out += [l for l in loads if load.match(l).group(1) not in u1]
            out += second
        else:
            out += loads + first + second
        continue
    out.append(src[i]); i += 1
open(sys.argv[3], 'w').write('\n'.join(out))
