"""cuBLAS FP32 SGEMM throughput (through PyTorch, TF32 off): the reference that
`hplopt bench --reference FILE` compares MATMUL, SYRK and SYR2K with.

Usage: python3 bench/reference/cublas_sgemm.py [N ...]   (default: 1024 2048 4096)

For each N it times C = A @ B on random N x N float32 matrices: 3 warm-up
products, then 10 timed by CUDA events; it prints the median as

    cublas-sgemm n=N median_ms=MS tflops=T

Run it on the same machine and in the same session as the tuning run it is
compared with, before and after, so that both see the same clocks.
"""
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def timed_median_ms(fn, warmups=3, runs=10):
    """The median time of runs calls of fn on the GPU by CUDA events, in
    ms, after warmups calls."""
    for _ in range(warmups):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        fn()
        t1.record()
        torch.cuda.synchronize()
        times.append(t0.elapsed_time(t1))
    times.sort()
    return times[len(times) // 2]


def median_ms(n, warmups=3, runs=10):
    a = torch.randn(n, n, device="cuda", dtype=torch.float32)
    b = torch.randn(n, n, device="cuda", dtype=torch.float32)
    return timed_median_ms(lambda: torch.mm(a, b), warmups, runs)


def main(args):
    for n in [int(x) for x in args] or [1024, 2048, 4096]:
        ms = median_ms(n)
        print(f"cublas-sgemm n={n} median_ms={ms:.4f} tflops={2 * n**3 / ms / 1e9:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
