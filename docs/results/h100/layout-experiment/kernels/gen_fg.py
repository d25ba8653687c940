# f* and g* variants of the layout experiment: scalar, A row-major padded, B in chunks of vw; options: register prefetch, tile shapes, padded B rows (padB)
def kern(lx, ly, tm, tn, bk, prefetch, vw=4, padB=0):
    bm, bn = ly*tm, lx*tn
    nt = lx*ly
    o = []
    o.append(f"__kernel __attribute__((reqd_work_group_size({lx},{ly},1)))")
    o.append("void mxm(__global float *c, __global const float *a, __global const float *b, int limk) {")
    o.append("  const int lx = get_local_id(0), ly = get_local_id(1);")
    o.append(f"  const int col0 = get_group_id(0)*{bn}, row0 = get_group_id(1)*{bm};")
    o.append(f"  const int tid = ly*{lx} + lx;")
    o.append(f"  __local float As[{bm}][{bk+1}];")
    o.append(f"  __local float Bs[{bk}][{bn+padB}];")
    o.append(f"  float acc[{tm}][{tn}];")
    o.append(f"  for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++) acc[i][j] = 0.0f;")
    na, nb = bm*bk//nt, bn*bk//nt
    def aidx(q): return f"(tid + {q*nt}) / {bk}", f"(tid + {q*nt}) % {bk}"
    def bidx(q): return f"(tid + {q*nt}) / {bn}", f"(tid + {q*nt}) % {bn}"
    if prefetch:
        o.append(f"  float ra[{na}], rb[{nb}];")
        for q in range(na):
            r, k = aidx(q); o.append(f"  ra[{q}] = a[(row0 + {r})*NSIZE + {k}];")
        for q in range(nb):
            k, cc = bidx(q); o.append(f"  rb[{q}] = b[({k})*NSIZE + col0 + {cc}];")
    o.append(f"  for (int kt = 0; kt < limk; kt += {bk}) {{")
    if prefetch:
        for q in range(na):
            r, k = aidx(q); o.append(f"    As[{r}][{k}] = ra[{q}];")
        for q in range(nb):
            k, cc = bidx(q); o.append(f"    Bs[{k}][{cc}] = rb[{q}];")
        o.append("    barrier(CLK_LOCAL_MEM_FENCE);")
        o.append(f"    if (kt + {bk} < limk) {{")
        for q in range(na):
            r, k = aidx(q); o.append(f"      ra[{q}] = a[(row0 + {r})*NSIZE + kt + {bk} + {k}];")
        for q in range(nb):
            k, cc = bidx(q); o.append(f"      rb[{q}] = b[(kt + {bk} + {k})*NSIZE + col0 + {cc}];")
        o.append("    }")
    else:
        for q in range(na):
            r, k = aidx(q); o.append(f"    As[{r}][{k}] = a[(row0 + {r})*NSIZE + kt + {k}];")
        for q in range(nb):
            k, cc = bidx(q); o.append(f"    Bs[{k}][{cc}] = b[(kt + {k})*NSIZE + col0 + {cc}];")
        o.append("    barrier(CLK_LOCAL_MEM_FENCE);")
    o.append("    #pragma unroll")
    o.append(f"    for (int kk = 0; kk < {bk}; kk++) {{")
    o.append(f"      float ar[{tm}], br[{tn}];")
    def off(i, l, L): return f"{(i//vw)*L*vw} + {l}*{vw} + {i%vw}"
    for i in range(tm): o.append(f"      ar[{i}] = As[{off(i,'ly',ly)}][kk];")
    for j in range(tn): o.append(f"      br[{j}] = Bs[kk][{off(j,'lx',lx)}];")
    o.append(f"      for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++) acc[i][j] += ar[i] * br[j];")
    o.append("    }")
    o.append("    barrier(CLK_LOCAL_MEM_FENCE);")
    o.append("  }")
    o.append(f"  for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++)")
    o.append(f"    c[(row0 + (i/{vw})*{ly*vw} + ly*{vw} + i%{vw})*NSIZE + col0 + (j/{vw})*{lx*vw} + lx*{vw} + j%{vw}] = acc[i][j];")
    o.append("}")
    return "\n".join(o) + "\n"
n = 4096
V = [
 ("f1_16x16_bk16", 16,16,8,8,16,False,4,0),
 ("f2_16x16_bk16_pf", 16,16,8,8,16,True,4,0),
 ("f3_16x16_bk8_pf", 16,16,8,8,8,True,4,0),
 ("f4_16x16_bk32", 16,16,8,8,32,False,4,0),
 ("f5_32x8_bk16", 32,8,8,8,16,False,4,0),
 ("f6_32x8_bk16_pf", 32,8,8,8,16,True,4,0),
 ("f7_16x16_bk16_vw1", 16,16,8,8,16,False,1,0),
 ("f8_16x16_bk16_vw2", 16,16,8,8,16,False,2,0),
 ("f9_16x16_bk16_vw1_pf", 16,16,8,8,16,True,1,0),
 ("f10_32x8_bk32_vw1_pf", 32,8,8,8,32,True,1,0),
 ("f11_16x8_bk16_pf", 16,8,8,8,16,True,4,0),
 ("f12_16x16_t8x16_bk16_pf", 16,16,8,16,16,True,4,0),
 ("g0_f8", 16,16,8,8,16,False,2,0),
 ("g1_f8_padB", 16,16,8,8,16,False,2,1),
 ("g2_32x8_bk16", 32,8,8,8,16,False,2,0),
 ("g3_16x16_bk8", 16,16,8,8,8,False,2,0),
 ("g4_16x16_bk32", 16,16,8,8,32,False,2,0),
 ("g5_16x8_bk16", 16,8,8,8,16,False,2,0),
 ("g6_16x16_t4_bk16", 16,16,4,4,16,False,2,0),
 ("g7_16x16_bk16_pf", 16,16,8,8,16,True,2,0),
 ("g8_8x32_bk16", 8,32,8,8,16,False,2,0),
 ("g9_16x16_t4x8_bk16", 16,16,4,8,16,False,2,0),
]
for (name, lx, ly, tm, tn, bk, pf, vw, pb) in V:
    with open(name + ".cl", "w") as f:
        f.write(f"// GLOBAL {n//tn} {n//tm}\n// LOCAL {lx} {ly}\n" + kern(lx, ly, tm, tn, bk, pf, vw, pb))
