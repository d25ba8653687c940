"""Device-to-device copy bandwidth of the GPU (through PyTorch): the memory
ceiling that bench's built-in table gives a device (bench/table.go).

Usage: python3 bench/reference/copy_bandwidth.py [MiB ...]   (default: 1024 4096)

For each size it copies a float32 buffer of that many MiB into another on
the device: 3 warm-up copies, then 20 timed by CUDA events; it prints the
median as

    copy mib=MIB median_ms=MS tbs=T

where T counts the bytes read and the bytes written (twice the buffer) per
second, in TB/s (1e12 bytes).
"""
import sys

import torch

sizes = [int(a) for a in sys.argv[1:]] or [1024, 4096]
for mib in sizes:
    n = mib * (1 << 20) // 4
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(20):
        start.record()
        dst.copy_(src)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    ms = times[len(times) // 2]
    print(f"copy mib={mib} median_ms={ms:.4f} tbs={2 * n * 4 / ms / 1e9:.3f}")
