package kernels

import (
	"fmt"
	"math"

	"github.com/hplopt/hplopt/hpl"
)

// The eight single-point kernels, written the way the paper's Figure 3
// writes MATMUL: each work-item computes one point of the result and
// accumulates into the global output element. Subscripts are affine in the
// global ids and loop counters, and every compute loop runs from 0 to a
// scalar argument, the shapes the access-pattern analysis recognizes.

// Conv1D is out[idx] = sum_j in[idx+j] * filt[j].
var Conv1D = hpl.MustKernel("conv1d", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 1)
	in := k.Array("in", hpl.Float32, 1)
	filt := k.Array("filt", hpl.Float32, 1)
	nk := k.Scalar("nk", hpl.Int32)
	j := k.Int("j")
	k.Compute(func() {
		k.Set(out.At(hpl.Idx), 0.0)
		k.For(j, 0, nk, func() {
			k.AddTo(out.At(hpl.Idx), in.At(hpl.Idx.Add(j)).Mul(filt.At(j)))
		})
	})
})

// Conv2D is out[idy][idx] = sum_i sum_j in[idy+i][idx+j] * filt[i][j].
var Conv2D = hpl.MustKernel("conv2d", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	filt := k.Array("filt", hpl.Float32, 2)
	nky := k.Scalar("nky", hpl.Int32)
	nkx := k.Scalar("nkx", hpl.Int32)
	i := k.Int("i")
	j := k.Int("j")
	k.Compute(func() {
		k.Set(out.At(hpl.Idy, hpl.Idx), 0.0)
		k.For(i, 0, nky, func() {
			k.For(j, 0, nkx, func() {
				k.AddTo(out.At(hpl.Idy, hpl.Idx), in.At(hpl.Idy.Add(i), hpl.Idx.Add(j)).Mul(filt.At(i, j)))
			})
		})
	})
})

// Conv3D is the three-dimensional convolution, with three compute loops.
var Conv3D = hpl.MustKernel("conv3d", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 3)
	in := k.Array("in", hpl.Float32, 3)
	filt := k.Array("filt", hpl.Float32, 3)
	nkz := k.Scalar("nkz", hpl.Int32)
	nky := k.Scalar("nky", hpl.Int32)
	nkx := k.Scalar("nkx", hpl.Int32)
	h := k.Int("h")
	i := k.Int("i")
	j := k.Int("j")
	k.Compute(func() {
		k.Set(out.At(hpl.Idz, hpl.Idy, hpl.Idx), 0.0)
		k.For(h, 0, nkz, func() {
			k.For(i, 0, nky, func() {
				k.For(j, 0, nkx, func() {
					k.AddTo(out.At(hpl.Idz, hpl.Idy, hpl.Idx),
						in.At(hpl.Idz.Add(h), hpl.Idy.Add(i), hpl.Idx.Add(j)).Mul(filt.At(h, i, j)))
				})
			})
		})
	})
})

// DCS3D is direct Coulomb summation: the electrostatic potential at every
// point of a 3D grid of the given spacing, from natoms charges
// (atoms[a] = x, y, z, charge).
var DCS3D = hpl.MustKernel("dcs3d", func(k *hpl.K) {
	energy := k.Array("energy", hpl.Float32, 3)
	atoms := k.Array("atoms", hpl.Float32, 2)
	spacing := k.Scalar("spacing", hpl.Float32)
	natoms := k.Scalar("natoms", hpl.Int32)
	a := k.Int("a")
	dx := k.Float("dx")
	dy := k.Float("dy")
	dz := k.Float("dz")
	k.Compute(func() {
		k.Set(energy.At(hpl.Idz, hpl.Idy, hpl.Idx), 0.0)
		k.For(a, 0, natoms, func() {
			k.Set(dx, hpl.ToFloat(hpl.Idx).Mul(spacing).Sub(atoms.At(a, 0)))
			k.Set(dy, hpl.ToFloat(hpl.Idy).Mul(spacing).Sub(atoms.At(a, 1)))
			k.Set(dz, hpl.ToFloat(hpl.Idz).Mul(spacing).Sub(atoms.At(a, 2)))
			k.AddTo(energy.At(hpl.Idz, hpl.Idy, hpl.Idx),
				atoms.At(a, 3).Mul(hpl.Rsqrt(dx.Mul(dx).Add(dy.Mul(dy)).Add(dz.Mul(dz)))))
		})
	})
})

// MatMul is the paper's Figure 3: c = a * b.
var MatMul = hpl.MustKernel("mxm", func(k *hpl.K) {
	c := k.Array("c", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	b := k.Array("b", hpl.Float32, 2)
	limk := k.Scalar("limk", hpl.Int32)
	i := k.Int("k")
	k.Compute(func() {
		k.Set(c.At(hpl.Idy, hpl.Idx), 0.0)
		k.For(i, 0, limk, func() {
			k.AddTo(c.At(hpl.Idy, hpl.Idx), a.At(hpl.Idy, i).Mul(b.At(i, hpl.Idx)))
		})
	})
})

// NBody is one time step of an all-pairs N-body simulation with softening
// eps2 (pos[i] = x, y, z, mass; vel[i] = vx, vy, vz, unused).
var NBody = hpl.MustKernel("nbody", func(k *hpl.K) {
	pos := k.Array("pos", hpl.Float32, 2)
	vel := k.Array("vel", hpl.Float32, 2)
	newpos := k.Array("newpos", hpl.Float32, 2)
	newvel := k.Array("newvel", hpl.Float32, 2)
	dt := k.Scalar("dt", hpl.Float32)
	eps2 := k.Scalar("eps2", hpl.Float32)
	n := k.Scalar("n", hpl.Int32)
	j := k.Int("j")
	ax, ay, az := k.Float("ax"), k.Float("ay"), k.Float("az")
	dx, dy, dz := k.Float("dx"), k.Float("dy"), k.Float("dz")
	inv, s := k.Float("inv"), k.Float("s")
	k.Compute(func() {
		k.Set(ax, 0.0)
		k.Set(ay, 0.0)
		k.Set(az, 0.0)
		k.For(j, 0, n, func() {
			k.Set(dx, pos.At(j, 0).Sub(pos.At(hpl.Idx, 0)))
			k.Set(dy, pos.At(j, 1).Sub(pos.At(hpl.Idx, 1)))
			k.Set(dz, pos.At(j, 2).Sub(pos.At(hpl.Idx, 2)))
			k.Set(inv, hpl.Rsqrt(dx.Mul(dx).Add(dy.Mul(dy)).Add(dz.Mul(dz)).Add(eps2)))
			k.Set(s, pos.At(j, 3).Mul(inv).Mul(inv).Mul(inv))
			k.AddTo(ax, dx.Mul(s))
			k.AddTo(ay, dy.Mul(s))
			k.AddTo(az, dz.Mul(s))
		})
		for c, acc := range []hpl.Var{ax, ay, az} {
			v := vel.At(hpl.Idx, c).Add(acc.Mul(dt))
			k.Set(newvel.At(hpl.Idx, c), v)
			k.Set(newpos.At(hpl.Idx, c), pos.At(hpl.Idx, c).Add(v.Mul(dt)))
		}
		k.Set(newvel.At(hpl.Idx, 3), vel.At(hpl.Idx, 3))
		k.Set(newpos.At(hpl.Idx, 3), pos.At(hpl.Idx, 3))
	})
})

// Syrk is the symmetric rank-k update c = beta*c + alpha*a*a^T, computed
// on the full square.
var Syrk = hpl.MustKernel("syrk", func(k *hpl.K) {
	c := k.Array("c", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	alpha := k.Scalar("alpha", hpl.Float32)
	beta := k.Scalar("beta", hpl.Float32)
	nk := k.Scalar("nk", hpl.Int32)
	i := k.Int("k")
	k.Compute(func() {
		k.Set(c.At(hpl.Idy, hpl.Idx), beta.Mul(c.At(hpl.Idy, hpl.Idx)))
		k.For(i, 0, nk, func() {
			k.AddTo(c.At(hpl.Idy, hpl.Idx), alpha.Mul(a.At(hpl.Idy, i)).Mul(a.At(hpl.Idx, i)))
		})
	})
})

// Syr2k is the symmetric rank-2k update c = beta*c + alpha*a*b^T +
// alpha*b*a^T, computed on the full square.
var Syr2k = hpl.MustKernel("syr2k", func(k *hpl.K) {
	c := k.Array("c", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	b := k.Array("b", hpl.Float32, 2)
	alpha := k.Scalar("alpha", hpl.Float32)
	beta := k.Scalar("beta", hpl.Float32)
	nk := k.Scalar("nk", hpl.Int32)
	i := k.Int("k")
	k.Compute(func() {
		k.Set(c.At(hpl.Idy, hpl.Idx), beta.Mul(c.At(hpl.Idy, hpl.Idx)))
		k.For(i, 0, nk, func() {
			k.AddTo(c.At(hpl.Idy, hpl.Idx),
				alpha.Mul(a.At(hpl.Idy, i)).Mul(b.At(hpl.Idx, i)).Add(alpha.Mul(b.At(hpl.Idy, i)).Mul(a.At(hpl.Idx, i))))
		})
	})
})

// The benchmarks, in the paper's order.
var all = []*Benchmark{
	{
		Name: "conv1d", Paper: "1DCONV", Kernel: Conv1D, Dims: 1, Loops: 1,
		Doc: "1D convolution: out[i] = sum_j in[i+j]*filt[j]",
		Sizes: map[string]Size{
			"tiny": {N: []int{960}, K: []int{15}},
			"S":    {N: []int{16384}, K: []int{16384}},
			"M":    {N: []int{32768}, K: []int{32768}},
			"L":    {N: []int{65536}, K: []int{65536}},
		},
		setup: setupConv, limits: limitsConv,
	},
	{
		Name: "conv2d", Paper: "2DCONV", Kernel: Conv2D, Dims: 2, Loops: 2,
		Doc: "2D convolution: out[y][x] = sum_ij in[y+i][x+j]*filt[i][j]",
		Sizes: map[string]Size{
			"tiny": {N: []int{48, 32}, K: []int{5, 3}},
			"S":    {N: []int{512, 512}, K: []int{256, 256}},
			"M":    {N: []int{1024, 1024}, K: []int{256, 256}},
			"L":    {N: []int{2048, 2048}, K: []int{256, 256}},
		},
		setup: setupConv, limits: limitsConv,
	},
	{
		Name: "conv3d", Paper: "3DCONV", Kernel: Conv3D, Dims: 3, Loops: 3,
		Doc: "3D convolution: out[z][y][x] = sum_hij in[z+h][y+i][x+j]*filt[h][i][j]",
		Sizes: map[string]Size{
			"tiny": {N: []int{16, 8, 8}, K: []int{2, 3, 4}},
			"S":    {N: []int{32, 32, 32}, K: []int{32, 32, 32}},
			"M":    {N: []int{64, 64, 64}, K: []int{64, 64, 64}},
			"L":    {N: []int{128, 128, 128}, K: []int{128, 128, 128}},
		},
		setup: setupConv, limits: limitsConv,
	},
	{
		Name: "dcs3d", Paper: "DCS3D", Kernel: DCS3D, Dims: 3, Loops: 1,
		Doc: "direct Coulomb summation: potential on a 3D grid from K atoms",
		Sizes: map[string]Size{
			"tiny": {N: []int{16, 8, 8}, K: []int{64}},
			"S":    {N: []int{32, 32, 32}, K: []int{2048}},
			"M":    {N: []int{64, 64, 64}, K: []int{4096}},
			"L":    {N: []int{128, 128, 128}, K: []int{8192}},
		},
		setup: setupDCS3D, limits: limitsDCS3D,
	},
	{
		Name: "matmul", Paper: "MATMUL", Kernel: MatMul, Dims: 2, Loops: 1,
		Doc: "matrix product c = a*b (the paper's Figure 3)",
		Sizes: map[string]Size{
			"tiny": {N: []int{32, 32}, K: []int{16}},
			"S":    {N: []int{1024, 1024}, K: []int{1024}},
			"M":    {N: []int{2048, 2048}, K: []int{2048}},
			"L":    {N: []int{4096, 4096}, K: []int{4096}},
		},
		setup: setupMatMul, limits: limitsMatMul,
	},
	{
		Name: "nbody", Paper: "NBODY", Kernel: NBody, Dims: 1, Loops: 1,
		Doc: "one time step of an all-pairs N-body simulation (K = N)",
		Sizes: map[string]Size{
			"tiny": {N: []int{256}, K: []int{256}},
			"S":    {N: []int{16384}, K: []int{16384}},
			"M":    {N: []int{32768}, K: []int{32768}},
			"L":    {N: []int{65536}, K: []int{65536}},
		},
		setup: setupNBody, limits: limitsNBody,
	},
	{
		Name: "syrk", Paper: "SYRK", Kernel: Syrk, Dims: 2, Loops: 1,
		Doc: "rank-k update c = beta*c + alpha*a*a^T (full square, N x N)",
		Sizes: map[string]Size{
			"tiny": {N: []int{32, 32}, K: []int{16}},
			"S":    {N: []int{1024, 1024}, K: []int{1024}},
			"M":    {N: []int{2048, 2048}, K: []int{2048}},
			"L":    {N: []int{4096, 4096}, K: []int{4096}},
		},
		setup: setupSyrk, limits: limitsSyrk,
	},
	{
		Name: "syr2k", Paper: "SYR2K", Kernel: Syr2k, Dims: 2, Loops: 1,
		Doc: "rank-2k update c = beta*c + alpha*a*b^T + alpha*b*a^T (full square, N x N)",
		Sizes: map[string]Size{
			"tiny": {N: []int{32, 32}, K: []int{16}},
			"S":    {N: []int{1024, 1024}, K: []int{1024}},
			"M":    {N: []int{2048, 2048}, K: []int{2048}},
			"L":    {N: []int{4096, 4096}, K: []int{4096}},
		},
		setup: setupSyrk, limits: limitsSyrk,
	},
}

// The benchmarks' own size constraints and largest arrays (see
// Benchmark.limits).

// limitsConv: the input has N+K-1 points along each dimension.
func limitsConv(_ *Benchmark, s Size) (int, error) {
	in := 1
	for i := range s.N {
		in *= s.N[len(s.N)-1-i] + s.K[i] - 1
		if in > maxElems {
			break
		}
	}
	return max(in, prod(s.K)), nil
}

func limitsDCS3D(_ *Benchmark, s Size) (int, error) { return max(4*s.N[0], 4*s.K[0]), nil }

func limitsMatMul(_ *Benchmark, s Size) (int, error) { return max(s.N[0]*s.K[0], s.N[1]*s.K[0]), nil }

func limitsNBody(_ *Benchmark, s Size) (int, error) {
	if s.K[0] != s.N[0] {
		return 0, fmt.Errorf("kernels: nbody's loop runs over all N bodies: -k %d must equal -n %d", s.K[0], s.N[0])
	}
	return 4 * s.N[0], nil
}

func limitsSyrk(b *Benchmark, s Size) (int, error) {
	if err := b.square(s); err != nil {
		return 0, err
	}
	return limitsMatMul(b, s)
}

// ---- instances and references ----
//
// Each setup fills an Instance: its arguments, and the reference for one
// point of the global domain. A reference point reports, for each output
// element it covers, the exact value (float64 arithmetic on the float32
// inputs) and the magnitude sum of |term| that bounds the rounding error of
// a float32 evaluation in any order.

// setupConv serves conv1d, conv2d and conv3d: out has the N extents, in has
// N+K-1, filt has K.
func setupConv(in *Instance, g *gen) {
	d := len(in.Size.N)
	nExt := slowFirst(in.Size.N)
	kExt := append([]int(nil), in.Size.K...) // K is already outermost (slowest) first
	inExt := make([]int, d)
	for i := range inExt {
		inExt[i] = nExt[i] + kExt[i] - 1
	}
	out := hpl.NewArray(hpl.Float32, nExt...)
	src := g.uniform(-1, 1, inExt...)
	filt := g.uniform(-1, 1, kExt...)
	in.Args = []any{out, src.arr, filt.arr}
	for _, k := range in.Size.K {
		in.Args = append(in.Args, int32(k))
	}
	in.output("out", out)
	in.FLOPs = 2 * float64(prod(in.Size.N)) * float64(prod(in.Size.K))
	in.Bytes = 4 * float64(prod(nExt)+prod(inExt)+prod(kExt))
	// The reference works in three dimensions, padding with extent 1.
	var n3, k3, i3 [3]int
	for i := 0; i < 3; i++ {
		n3[i], k3[i], i3[i] = 1, 1, 1
	}
	for i := 0; i < d; i++ {
		n3[3-d+i], k3[3-d+i], i3[3-d+i] = nExt[i], kExt[i], inExt[i]
	}
	x, f := src.data, filt.data
	in.point = func(p []int, emit emitFunc) {
		// p is x first; pz, py, px are 0 for missing dimensions.
		var q [3]int
		for i := 0; i < d; i++ {
			q[2-i] = p[i]
		}
		var sum, mag float64
		for h := 0; h < k3[0]; h++ {
			for i := 0; i < k3[1]; i++ {
				row := ((q[0]+h)*i3[1]+q[1]+i)*i3[2] + q[2]
				frow := (h*k3[1] + i) * k3[2]
				for j := 0; j < k3[2]; j++ {
					t := float64(x[row+j]) * float64(f[frow+j])
					sum += t
					mag += math.Abs(t)
				}
			}
		}
		emit(0, (q[0]*n3[1]+q[1])*n3[2]+q[2], sum, mag)
	}
}

// spacing is DCS3D's grid spacing: a power of two, so that grid coordinates
// are exact in float32.
const spacing = 0.5

func setupDCS3D(in *Instance, g *gen) {
	n, natoms := in.Size.N, in.Size.K[0]
	energy := hpl.NewArray(hpl.Float32, slowFirst(n)...)
	atoms := hpl.NewArray(hpl.Float32, natoms, 4)
	a := atoms.Float32s()
	for i := 0; i < natoms; i++ {
		// Every coordinate lies 0.25 to 0.75 spacings away from the grid
		// planes, so no atom is within 0.43 spacings of a grid point.
		for c := 0; c < 3; c++ {
			a[4*i+c] = float32((float64(g.r.IntN(n[c])) + 0.25 + 0.5*g.r.Float64()) * spacing)
		}
		a[4*i+3] = float32(2*g.r.Float64() - 1)
	}
	at := append([]float32(nil), a...)
	in.Args = []any{energy, atoms, float32(spacing), int32(natoms)}
	in.output("energy", energy)
	in.FLOPs = 11 * float64(prod(n)) * float64(natoms)
	in.Bytes = 4 * float64(prod(n)+4*natoms)
	in.RSqrts = float64(prod(n)) * float64(natoms)
	in.point = func(p []int, emit emitFunc) {
		gx, gy, gz := float64(p[0])*spacing, float64(p[1])*spacing, float64(p[2])*spacing
		var sum, mag float64
		for i := 0; i < natoms; i++ {
			dx, dy, dz := gx-float64(at[4*i]), gy-float64(at[4*i+1]), gz-float64(at[4*i+2])
			t := float64(at[4*i+3]) / math.Sqrt(dx*dx+dy*dy+dz*dz)
			sum += t
			mag += math.Abs(t)
		}
		emit(0, (p[2]*n[1]+p[1])*n[0]+p[0], sum, mag)
	}
}

func setupMatMul(in *Instance, g *gen) {
	nx, ny, nk := in.Size.N[0], in.Size.N[1], in.Size.K[0]
	c := hpl.NewArray(hpl.Float32, ny, nx)
	a := g.uniform(-1, 1, ny, nk)
	b := g.uniform(-1, 1, nk, nx)
	in.Args = []any{c, a.arr, b.arr, int32(nk)}
	in.output("c", c)
	in.FLOPs = 2 * float64(nx) * float64(ny) * float64(nk)
	in.Bytes = 4 * float64(nx*ny+ny*nk+nk*nx)
	av, bv := a.data, b.data
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		var sum, mag float64
		for k := 0; k < nk; k++ {
			t := float64(av[y*nk+k]) * float64(bv[k*nx+x])
			sum += t
			mag += math.Abs(t)
		}
		emit(0, y*nx+x, sum, mag)
	}
}

// The constants of the N-body step.
const (
	nbodyDt   = 0.01
	nbodyEps2 = 0.01
)

func setupNBody(in *Instance, g *gen) {
	n := in.Size.N[0]
	pos := hpl.NewArray(hpl.Float32, n, 4)
	vel := hpl.NewArray(hpl.Float32, n, 4)
	newpos := hpl.NewArray(hpl.Float32, n, 4)
	newvel := hpl.NewArray(hpl.Float32, n, 4)
	p, v := pos.Float32s(), vel.Float32s()
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			p[4*i+c] = float32(2*g.r.Float64() - 1)
			v[4*i+c] = float32(0.2*g.r.Float64() - 0.1)
		}
		p[4*i+3] = float32((0.5 + g.r.Float64()) / float64(n)) // total mass about 1
		v[4*i+3] = float32(g.r.Float64())                      // unused, copied through
	}
	pv, vv := append([]float32(nil), p...), append([]float32(nil), v...)
	in.Args = []any{pos, vel, newpos, newvel, float32(nbodyDt), float32(nbodyEps2), int32(n)}
	in.output("newpos", newpos)
	in.output("newvel", newvel)
	in.FLOPs = 19 * float64(n) * float64(n)
	in.Bytes = 4 * float64(4*4*n)
	in.RSqrts = float64(n) * float64(n)
	dt := float64(float32(nbodyDt))
	eps2 := float64(float32(nbodyEps2))
	in.point = func(q []int, emit emitFunc) {
		i := q[0]
		var acc, mag [3]float64
		for j := 0; j < n; j++ {
			var d [3]float64
			for c := range d {
				d[c] = float64(pv[4*j+c]) - float64(pv[4*i+c])
			}
			r2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2] + eps2
			s := float64(pv[4*j+3]) / (r2 * math.Sqrt(r2))
			for c := range d {
				acc[c] += d[c] * s
				mag[c] += math.Abs(d[c] * s)
			}
		}
		for c := 0; c < 3; c++ {
			nv := float64(vv[4*i+c]) + acc[c]*dt
			nvMag := math.Abs(float64(vv[4*i+c])) + mag[c]*dt
			emit(1, 4*i+c, nv, nvMag)
			emit(0, 4*i+c, float64(pv[4*i+c])+nv*dt, math.Abs(float64(pv[4*i+c]))+nvMag*dt)
		}
		emit(1, 4*i+3, float64(vv[4*i+3]), math.Abs(float64(vv[4*i+3])))
		emit(0, 4*i+3, float64(pv[4*i+3]), math.Abs(float64(pv[4*i+3])))
	}
}

// The scalars of SYRK and SYR2K, exact in binary.
const (
	syrkAlpha = 1.25
	syrkBeta  = 0.75
)

// setupSyrk serves syrk and syr2k (which has a second input b).
func setupSyrk(in *Instance, g *gen) {
	n, nk := in.Size.N[0], in.Size.K[0]
	two := in.Bench.Name == "syr2k"
	c := g.uniform(-1, 1, n, n)
	a := g.uniform(-1, 1, n, nk)
	in.Args = []any{c.arr, a.arr}
	b := a
	if two {
		b = g.uniform(-1, 1, n, nk)
		in.Args = append(in.Args, b.arr)
	}
	in.Args = append(in.Args, float32(syrkAlpha), float32(syrkBeta), int32(nk))
	in.output("c", c.arr)
	c = in.resettable(c)
	terms := 2.0
	if two {
		terms = 4
	}
	in.FLOPs = (terms*float64(nk) + 1) * float64(n) * float64(n)
	in.Bytes = 4 * float64(2*n*n+n*nk)
	if two {
		in.Bytes += 4 * float64(n*nk)
	}
	av, bv := a.data, b.data
	in.point = func(p []int, emit emitFunc) {
		c0 := c.initial()
		x, y := p[0], p[1]
		sum := syrkBeta * float64(c0[y*n+x])
		mag := math.Abs(sum)
		for k := 0; k < nk; k++ {
			t := syrkAlpha * float64(av[y*nk+k]) * float64(bv[x*nk+k])
			sum += t
			mag += math.Abs(t)
			if two {
				t = syrkAlpha * float64(bv[y*nk+k]) * float64(av[x*nk+k])
				sum += t
				mag += math.Abs(t)
			}
		}
		emit(0, y*n+x, sum, mag)
	}
}
