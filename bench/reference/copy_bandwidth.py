"""Device-to-device copy bandwidth of the GPU (through PyTorch): the memory
ceiling that bench's built-in table gives a device (bench/table.go).

Usage: python3 bench/reference/copy_bandwidth.py [MiB ...]   (default: 1024 4096)

For each size it copies a float32 buffer of that many MiB into another on
the device: 3 warm-up copies, then 20 timed by CUDA events (cublas_sgemm's
timed_median_ms); it prints the median as

    copy mib=MIB median_ms=MS tbs=T

where T counts the bytes read and the bytes written (twice the buffer) per
second, in TB/s (1e12 bytes).
"""
import sys

import torch

from cublas_sgemm import timed_median_ms

sizes = [int(a) for a in sys.argv[1:]] or [1024, 4096]
for mib in sizes:
    n = mib * (1 << 20) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    ms = timed_median_ms(lambda: dst.copy_(src), warmups=3, runs=20)
    print(f"copy mib={mib} median_ms={ms:.4f} tbs={2 * n * 4 / ms / 1e9:.3f}")
