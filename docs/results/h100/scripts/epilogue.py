#!/usr/bin/env python3
"""Rewrites the epilogue of a generated variant (hplopt gen), a hand
experiment before a pass does it.

  epilogue.py hoist IN.cl OUT.cl     every point's load of the output
      (p = c[i]; ... c[i] = p;) moves before the first point's: the loads
      issue together instead of each after the previous point's store
  epilogue.py restrict IN.cl OUT.cl  the kernel's __global pointers are
      declared restrict (no two arguments overlap)
  epilogue.py both IN.cl OUT.cl      the two

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
changed = 0
if mode in ("restrict", "both"):
    for k, ln in enumerate(lines):
        if "__kernel" in ln:
            new, n = re.subn(r"__global (const )?(\w+) \*(\w+)", r"__global \1\2 *restrict \3", ln)
            lines[k] = new
            changed += n
            break
open(dst, "w").write("\n".join(lines))
print(f"{dst}: {moved} loads moved, {changed} pointers restrict")
