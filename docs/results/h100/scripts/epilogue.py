#!/usr/bin/env python3
"""Rewrites the epilogue of a generated variant (hplopt gen), a hand
experiment before a pass does it.

  epilogue.py hoist IN.cl OUT.cl     every point's load of the output
      (p = c[i]; ... c[i] = p;) moves before the first point's: the loads
      issue together instead of each after the previous point's store
  epilogue.py restrict IN.cl OUT.cl  the kernel's __global pointers are
      declared restrict (no two arguments overlap)
  epilogue.py both IN.cl OUT.cl      the two
  epilogue.py vec IN.cl OUT.cl       the points' loads first, then their
      arithmetic, then their stores, four consecutive elements (x, x+1,
      x+2, x+3 with x a multiple of 4) read and written as one float4

Prints how many loads moved and pointers changed."""
import re
import sys

mode, src, dst = sys.argv[1:4]
lines = open(src).read().split("\n")
moved = 0
if mode in ("hoist", "both"):
    load = re.compile(r"^(\s*)(p_\w+) = (\w+)\[(.*)\];$")
    # the output arrays: those a load reads whose element a later line stores
    stores = set()
    for ln in lines:
        m = re.match(r"^\s*(\w+)\[(.*)\] = (p_\w+);$", ln)
        if m:
            stores.add((m.group(1), m.group(2), m.group(3)))
    out, i = [], 0
    while i < len(lines):
        m = load.match(lines[i])
        if not m or (m.group(3), m.group(4), m.group(2)) not in stores:
            out.append(lines[i])
            i += 1
            continue
        # a run of the epilogue: from here to the last matching store in the
        # same block (lines at the same indent, no braces between)
        indent = m.group(1)
        j = i
        while j < len(lines) and lines[j].startswith(indent) and not lines[j][len(indent):].startswith(("}", " ")) and "{" not in lines[j]:
            j += 1
        block = lines[i:j]
        loads = [ln for ln in block if (lambda mm: mm and (mm.group(3), mm.group(4), mm.group(2)) in stores)(load.match(ln))]
        rest = [ln for ln in block if ln not in loads]
        out += loads + rest
        moved += len(loads)
        i = j
    lines = out
vectors = 0
if mode == "vec":
    ld = re.compile(r"^(\s*)(p_\w+) = (\w+)\[(.*)\];$")
    st = re.compile(r"^(\s*)(\w+)\[(.*)\] = (p_\w+);$")
    ar = re.compile(r"^(\s*)p_\w+ (=|\+=) .*;$")
    def split(idx):
        # PREFIX + x or PREFIX + (x + k): (PREFIX, x, k)
        m = re.match(r"^(.*) \+ (?:(\w+)|\((\w+) \+ (\d+)\))$", idx)
        if not m:
            return None
        return (m.group(1), m.group(2) or m.group(3), int(m.group(4) or 0))
    def groups(items):
        # items: (array, idx, var); yields lists of 4 to vectorize or 1
        out, i = [], 0
        while i < len(items):
            a, idx, var = items[i]
            sp = split(idx)
            if sp and sp[2] % 4 == 0 and i + 3 < len(items):
                ok = all(items[i + j][0] == a and split(items[i + j][1]) == (sp[0], sp[1], sp[2] + j) for j in range(1, 4))
                if ok:
                    out.append(items[i:i + 4])
                    i += 4
                    continue
            out.append([items[i]])
            i += 1
        return out
    out, i = [], 0
    while i < len(lines):
        m = ld.match(lines[i]) or st.match(lines[i]) or ar.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        j = i
        while j < len(lines) and (ld.match(lines[j]) or st.match(lines[j]) or ar.match(lines[j])) and lines[j].startswith(indent) and not lines[j][len(indent)].isspace():
            j += 1
        run = lines[i:j]
        loads = [(mm.group(3), mm.group(4), mm.group(2)) for mm in map(ld.match, run) if mm]
        stores = [(mm.group(2), mm.group(3), mm.group(4)) for mm in map(st.match, run) if mm]
        arith = [ln for ln in run if not ld.match(ln) and not st.match(ln)]
        if not stores:
            out += run
            i = j
            continue
        for g in groups(loads):
            a, idx, var = g[0]
            if len(g) == 4:
                t = "v_" + var
                out.append(f"{indent}float4 {t} = *(__global float4 *)&{a}[{idx}];")
                out += [f"{indent}{v} = {t}.s{k};" for k, (_, _, v) in enumerate(g)]
                vectors += 1
            else:
                out.append(f"{indent}{var} = {a}[{idx}];")
        out += arith
        for g in groups(stores):
            a, idx, var = g[0]
            if len(g) == 4:
                out.append(f"{indent}*(__global float4 *)&{a}[{idx}] = (float4)({', '.join(v for _, _, v in g)});")
                vectors += 1
            else:
                out.append(f"{indent}{a}[{idx}] = {var};")
        i = j
    lines = out
changed = 0
if mode in ("restrict", "both"):
    for k, ln in enumerate(lines):
        if "__kernel" in ln:
            new, n = re.subn(r"__global (const )?(\w+) \*(\w+)", r"__global \1\2 *restrict \3", ln)
            lines[k] = new
            changed += n
            break
open(dst, "w").write("\n".join(lines))
print(f"{dst}: {moved} loads moved, {changed} pointers restrict, {vectors} float4 loads and stores")
