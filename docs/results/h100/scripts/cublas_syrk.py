"""cuBLAS's FP32 products in the shapes of hplopt's SYRK and SYR2K, beside
its plain SGEMM, through PyTorch (TF32 off): whether reading one array for
both operands, or C's read-modify-write, costs cuBLAS what it costs hplopt.

Usage: python3 cublas_syrk.py [N] [ROUNDS]     (default 4096 3)
Each line: the median of 10 timed calls after 3 warm-ups, and TFLOP/s at
2n^3 (4n^3 for the SYR2K shape), the shapes in turn ROUNDS times:
  a@b          SGEMM, two arrays (hplopt's MATMUL)
  a@b.T        b read along its rows (mxmt.cl)
  a@a.T        one array for both operands (SYRK's product)
  addmm(c,a,b.T)  with c = beta*c + alpha*(...) (mxmtc.cl)
  addmm(c,a,a.T)  SYRK: one array, C read and written
  [a b]@[b a].T   SYR2K as one product of twice the length
  addmm(c,[a b],[b a].T)  SYR2K with C read and written
"""
import sys
import torch

torch.backends.cuda.matmul.allow_tf32 = False
n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
a = torch.randn(n, n, device="cuda")
b = torch.randn(n, n, device="cuda")
c = torch.randn(n, n, device="cuda")
ab = torch.cat([a, b], dim=1)
ba = torch.cat([b, a], dim=1)
shapes = [
    ("a@b", 2, lambda: a @ b),
    ("a@b.T", 2, lambda: a @ b.T),
    ("a@a.T", 2, lambda: a @ a.T),
    ("addmm(c,a,b.T)", 2, lambda: torch.addmm(c, a, b.T, beta=0.5, alpha=1.5)),
    ("addmm(c,a,a.T)", 2, lambda: torch.addmm(c, a, a.T, beta=0.5, alpha=1.5)),
    ("[a b]@[b a].T", 4, lambda: ab @ ba.T),
    ("addmm(c,[a b],[b a].T)", 4, lambda: torch.addmm(c, ab, ba.T, beta=0.5, alpha=1.5)),
]
for r in range(rounds):
    for name, flops, f in shapes:
        for _ in range(3):
            f()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(10):
            start.record()
            f()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        print(f"round {r + 1} {name:24s} n={n} median_ms={ms:.4f} tflops={flops * n**3 / ms / 1e9:.2f}")
