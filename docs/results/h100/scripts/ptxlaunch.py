"""Launches an OpenCL kernel's PTX (hplopt run --binary) through the CUDA
driver (CuPy), so that Nsight Compute, which does not see OpenCL launches,
can profile it. NVIDIA's OpenCL PTX reads the global offset from %envreg
registers; they are set to 0 (no offset, as hplopt launches). The launch
comes from hplopt gen's header line (// launch: global [..], local [..]).

usage: ptxlaunch.py PTX GEN.cl KERNEL REPS ARG...
  ARG: buf:N (N floats, uniform in [0,1)), f32:V, i32:V, in the kernel's order.
Prints the median time of REPS launches (CUDA events), after one warm-up."""
import re, subprocess, sys
import cupy as cp

ptx, gen, name, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
src = open(ptx, 'rb').read().replace(b'\0', b'').decode()
src = re.sub(r'%envreg\d+', '0', src)
fixed = ptx + '.cuda.ptx'
open(fixed, 'w').write(src)
cubin = ptx + '.cubin'
subprocess.run(['/usr/local/cuda/bin/ptxas', '-arch=sm_90', fixed, '-o', cubin], check=True)
m = re.search(r'// launch: global \[([\d ]+)\], local \[([\d ]+)\]', open(gen).read())
g = [int(v) for v in m.group(1).split()]
l = [int(v) for v in m.group(2).split()]
grid = tuple(a // b for a, b in zip(g, l))
args = []
for a in sys.argv[5:]:
    kind, v = a.split(':')
    if kind == 'buf':
        args.append(cp.random.random(int(v), dtype=cp.float32))
    elif kind == 'f32':
        args.append(cp.float32(float(v)))
    else:
        args.append(cp.int32(int(v)))
f = cp.RawModule(path=cubin).get_function(name)
f(grid, tuple(l), tuple(args))
cp.cuda.Device().synchronize()
ts = []
for _ in range(reps):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    s.record()
    f(grid, tuple(l), tuple(args))
    e.record()
    e.synchronize()
    ts.append(cp.cuda.get_elapsed_time(s, e))
ts.sort()
print('%s grid %s block %s: median %.4f ms, best %.4f ms over %d' % (name, grid, tuple(l), ts[len(ts) // 2], ts[0], reps))
