# generates hand-written SGEMM variants for the layout experiment
def kern(name, bk, vec, transA, aligned, lx=16, ly=16, tm=8, tn=8):
    bm, bn = ly*tm, lx*tn
    al = " __attribute__((aligned(16)))" if aligned else ""
    L = []
    L.append(f"// GLOBAL {'NSIZE'} NSIZE".replace("NSIZE NSIZE", "0 0"))
    L = [f"// VARIANT {name}"]
    o = []
    o.append(f"__kernel __attribute__((reqd_work_group_size({lx},{ly},1)))")
    o.append("void mxm(__global float *c, __global const float *a, __global const float *b, int limk) {")
    o.append("  const int lx = get_local_id(0), ly = get_local_id(1);")
    o.append(f"  const int col0 = get_group_id(0)*{bn}, row0 = get_group_id(1)*{bm};")
    o.append(f"  const int tid = ly*{lx} + lx;")
    if transA:
        o.append(f"  __local float As[{bk}*{bm}]{al};")
    else:
        o.append(f"  __local float As[{bm}*{bk+1}]{al};")
    o.append(f"  __local float Bs[{bk}*{bn}]{al};")
    o.append(f"  float acc[{tm}][{tn}];")
    o.append(f"  for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++) acc[i][j] = 0.0f;")
    o.append(f"  for (int kt = 0; kt < limk; kt += {bk}) {{")
    if transA:
        o.append(f"    for (int e = tid; e < {bm*bk}; e += {lx*ly}) {{ int r = e % {bm}, kk = e / {bm}; As[kk*{bm} + r] = a[(row0+r)*NSIZE + kt+kk]; }}")
    else:
        o.append(f"    for (int e = tid; e < {bm*bk}; e += {lx*ly}) {{ int r = e / {bk}, kk = e % {bk}; As[r*{bk+1} + kk] = a[(row0+r)*NSIZE + kt+kk]; }}")
    o.append(f"    for (int e = tid; e < {bn*bk}; e += {lx*ly}) {{ int kk = e / {bn}, cc = e % {bn}; Bs[kk*{bn} + cc] = b[(kt+kk)*NSIZE + col0 + cc]; }}")
    o.append("    barrier(CLK_LOCAL_MEM_FENCE);")
    o.append("    #pragma unroll")
    o.append(f"    for (int kk = 0; kk < {bk}; kk++) {{")
    # private fragments
    o.append(f"      float ar[{tm}], br[{tn}];")
    def rowoff(i): return f"{(i//4)*ly*4} + ly*4 + {i%4}"
    def coloff(j): return f"{(j//4)*lx*4} + lx*4 + {j%4}"
    if vec:
        for h in range(tm//4):
            if transA:
                o.append(f"      {{ float4 v = *(__local float4 *)&As[kk*{bm} + {h*ly*4} + ly*4]; ar[{4*h}] = v.x; ar[{4*h+1}] = v.y; ar[{4*h+2}] = v.z; ar[{4*h+3}] = v.w; }}")
        for h in range(tn//4):
            o.append(f"      {{ float4 v = *(__local float4 *)&Bs[kk*{bn} + {h*lx*4} + lx*4]; br[{4*h}] = v.x; br[{4*h+1}] = v.y; br[{4*h+2}] = v.z; br[{4*h+3}] = v.w; }}")
    else:
        for i in range(tm):
            if transA:
                o.append(f"      ar[{i}] = As[kk*{bm} + {rowoff(i)}];")
            else:
                o.append(f"      ar[{i}] = As[({rowoff(i)})*{bk+1} + kk];")
        for j in range(tn):
            o.append(f"      br[{j}] = Bs[kk*{bn} + {coloff(j)}];")
    if not transA and vec:
        for i in range(tm):
            o.append(f"      ar[{i}] = As[({rowoff(i)})*{bk+1} + kk];")
    o.append(f"      for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++) acc[i][j] = fma(ar[i], br[j], acc[i][j]);")
    o.append("    }")
    o.append("    barrier(CLK_LOCAL_MEM_FENCE);")
    o.append("  }")
    o.append(f"  for (int i = 0; i < {tm}; i++) for (int j = 0; j < {tn}; j++)")
    o.append(f"    c[(row0 + (i/4)*{ly*4} + ly*4 + i%4)*NSIZE + col0 + (j/4)*{lx*4} + lx*4 + j%4] = acc[i][j];")
    o.append("}")
    return L, o

import sys
n = 4096
variants = [
  ("e1_vec_T_bk8", 8, True, True, True),
  ("e1_vec_T_bk16", 16, True, True, True),
  ("e2_scal_T_al_bk8", 8, False, True, True),
  ("e2_scal_T_al_bk16", 16, False, True, True),
  ("e3_scal_T_noal_bk16", 16, False, True, False),
  ("e4_scal_noT_bk16", 16, False, False, False),
  ("e5_vecB_noT_bk16", 16, True, False, True),
]
for (name, bk, vec, tA, al) in variants:
    L, o = kern(name, bk, vec, tA, al)
    with open(name + ".cl", "w") as f:
        f.write(f"// GLOBAL {n//8} {n//8}\n// LOCAL 16 16\n")
        f.write("\n".join(o) + "\n")
# 8x16 local with 8x8 per thread -> tile 64x128? and lx=32,ly=8 -> 64 rows x 256 cols
for (name, lx, ly, bk) in [("e6_vec_T_32x8_bk16", 32, 8, 16), ("e7_vec_T_8x32_bk16", 8, 32, 16), ("e8_vec_T_16x8_bk16", 16, 8, 16)]:
    L, o = kern(name, bk, True, True, True, lx=lx, ly=ly)
    with open(name + ".cl", "w") as f:
        f.write(f"// GLOBAL {n//8} {n//8}\n// LOCAL {lx} {ly}\n")
        f.write("\n".join(o) + "\n")
