package kernels

import (
	"github.com/hplopt/hplopt/hpl"
)

// The suite of kernels users write, beyond the paper's eight: the shapes
// of issue 16 (matrix-vector products, stencils, time-stepped and
// column-sweep updates, covariance, filters, transposes, guarded
// elementwise and matrix kernels), each written as a user would write the
// single-point kernel, with a bounds guard, an int argument in a subscript,
// a private int computed from the ids, a neighbourhood read at constant
// offsets or a triangular loop where that is how the kernel is usually
// written. The kernels of PolyBench (bicg, jacobi-2d, fdtd-2d, gramschmidt,
// covariance) follow its GPU versions.

// MV is the matrix-vector product y = A x: y[idx] = sum_j a[idx][j]*x[j].
var MV = hpl.MustKernel("mv", func(k *hpl.K) {
	y := k.Array("y", hpl.Float32, 1)
	a := k.Array("a", hpl.Float32, 2)
	x := k.Array("x", hpl.Float32, 1)
	m := k.Scalar("m", hpl.Int32)
	j := k.Int("j")
	k.Compute(func() {
		k.Set(y.At(hpl.Idx), 0.0)
		k.For(j, 0, m, func() {
			k.AddTo(y.At(hpl.Idx), a.At(hpl.Idx, j).Mul(x.At(j)))
		})
	})
})

// MVT is the transposed product y = A^T x: y[idx] = sum_i a[i][idx]*x[i].
var MVT = hpl.MustKernel("mvt", func(k *hpl.K) {
	y := k.Array("y", hpl.Float32, 1)
	a := k.Array("a", hpl.Float32, 2)
	x := k.Array("x", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	i := k.Int("i")
	k.Compute(func() {
		k.Set(y.At(hpl.Idx), 0.0)
		k.For(i, 0, n, func() {
			k.AddTo(y.At(hpl.Idx), a.At(i, hpl.Idx).Mul(x.At(i)))
		})
	})
})

// BiCG is PolyBench's bicg on a square matrix, both products in one
// sweep: s = A^T r and q = A p, with private accumulators.
var BiCG = hpl.MustKernel("bicg", func(k *hpl.K) {
	s := k.Array("s", hpl.Float32, 1)
	q := k.Array("q", hpl.Float32, 1)
	a := k.Array("a", hpl.Float32, 2)
	r := k.Array("r", hpl.Float32, 1)
	p := k.Array("p", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	i := k.Int("i")
	ss, qq := k.Float("ss"), k.Float("qq")
	k.Compute(func() {
		k.Set(ss, 0.0)
		k.Set(qq, 0.0)
		k.For(i, 0, n, func() {
			k.AddTo(ss, r.At(i).Mul(a.At(i, hpl.Idx)))
			k.AddTo(qq, a.At(hpl.Idx, i).Mul(p.At(i)))
		})
		k.Set(s.At(hpl.Idx), ss)
		k.Set(q.At(hpl.Idx), qq)
	})
})

// Stencil2D is the 5-point stencil on the interior of a grid with a
// one-point border, the offsets written out:
// out[y][x] = c0*in[y+1][x+1] + c1*(the four neighbours of in[y+1][x+1]).
var Stencil2D = hpl.MustKernel("stencil2d", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	c0, c1 := k.Scalar("c0", hpl.Float32), k.Scalar("c1", hpl.Float32)
	y, x := hpl.Idy.Add(1), hpl.Idx.Add(1)
	k.Compute(func() {
		k.Set(out.At(hpl.Idy, hpl.Idx), c0.Mul(in.At(y, x)).Add(
			c1.Mul(in.At(hpl.Idy, x).Add(in.At(y.Add(1), x)).Add(in.At(y, hpl.Idx)).Add(in.At(y, x.Add(1))))))
	})
})

// Jacobi2D is one step of PolyBench's jacobi-2d: every interior point of b
// takes the mean of a's point and its four neighbours, under the guard
// that keeps the border out.
var Jacobi2D = hpl.MustKernel("jacobi2d", func(k *hpl.K) {
	b := k.Array("b", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	n := k.Scalar("n", hpl.Int32)
	k.Compute(func() {
		inside := hpl.Idy.Ge(1).And(hpl.Idy.Lt(n.Sub(1))).And(hpl.Idx.Ge(1)).And(hpl.Idx.Lt(n.Sub(1)))
		k.If(inside, func() {
			k.Set(b.At(hpl.Idy, hpl.Idx), a.At(hpl.Idy, hpl.Idx).Add(a.At(hpl.Idy, hpl.Idx.Sub(1))).Add(a.At(hpl.Idy, hpl.Idx.Add(1))).
				Add(a.At(hpl.Idy.Add(1), hpl.Idx)).Add(a.At(hpl.Idy.Sub(1), hpl.Idx)).Mul(jacobiWeight))
		})
	})
})

// jacobiWeight is jacobi-2d's 0.2, as the kernel's float32 constant.
const jacobiWeight = float32(0.2)

// Stencil3D is the 7-point stencil of a heat-3d-like step on the interior
// of a 3D grid: b = c0*a + c1*(the six neighbours), under a bounds guard.
var Stencil3D = hpl.MustKernel("stencil3d", func(k *hpl.K) {
	b := k.Array("b", hpl.Float32, 3)
	a := k.Array("a", hpl.Float32, 3)
	c0, c1 := k.Scalar("c0", hpl.Float32), k.Scalar("c1", hpl.Float32)
	nx, ny, nz := k.Scalar("nx", hpl.Int32), k.Scalar("ny", hpl.Int32), k.Scalar("nz", hpl.Int32)
	z, y, x := hpl.Idz, hpl.Idy, hpl.Idx
	k.Compute(func() {
		inside := x.Ge(1).And(x.Lt(nx.Sub(1))).And(y.Ge(1)).And(y.Lt(ny.Sub(1))).And(z.Ge(1)).And(z.Lt(nz.Sub(1)))
		k.If(inside, func() {
			sum := a.At(z.Sub(1), y, x).Add(a.At(z.Add(1), y, x)).Add(a.At(z, y.Sub(1), x)).Add(a.At(z, y.Add(1), x)).
				Add(a.At(z, y, x.Sub(1))).Add(a.At(z, y, x.Add(1)))
			k.Set(b.At(z, y, x), c0.Mul(a.At(z, y, x)).Add(c1.Mul(sum)))
		})
	})
})

// FDTDEy is the ey update of PolyBench's fdtd-2d at time step t: row 0
// takes the source fict[t], the other rows the difference of neighbouring
// hz. The kernel runs once per time step with a new t.
var FDTDEy = hpl.MustKernel("fdtd_ey", func(k *hpl.K) {
	ey := k.Array("ey", hpl.Float32, 2)
	hz := k.Array("hz", hpl.Float32, 2)
	fict := k.Array("fict", hpl.Float32, 1)
	t := k.Scalar("t", hpl.Int32)
	k.Compute(func() {
		k.If(hpl.Idy.Eq(0), func() {
			k.Set(ey.At(0, hpl.Idx), fict.At(t))
		}).Else(func() {
			k.Set(ey.At(hpl.Idy, hpl.Idx), ey.At(hpl.Idy, hpl.Idx).Sub(hz.At(hpl.Idy, hpl.Idx).Sub(hz.At(hpl.Idy.Sub(1), hpl.Idx)).Mul(0.5)))
		})
	})
})

// FDTDHz is the hz update of PolyBench's fdtd-2d: hz -= 0.7*(the
// differences of ex along x and ey along y), for every point but the last
// row and column.
var FDTDHz = hpl.MustKernel("fdtd_hz", func(k *hpl.K) {
	hz := k.Array("hz", hpl.Float32, 2)
	ex := k.Array("ex", hpl.Float32, 2)
	ey := k.Array("ey", hpl.Float32, 2)
	n, m := k.Scalar("n", hpl.Int32), k.Scalar("m", hpl.Int32)
	k.Compute(func() {
		k.If(hpl.Idy.Lt(n.Sub(1)).And(hpl.Idx.Lt(m.Sub(1))), func() {
			d := ex.At(hpl.Idy, hpl.Idx.Add(1)).Sub(ex.At(hpl.Idy, hpl.Idx)).Add(ey.At(hpl.Idy.Add(1), hpl.Idx)).Sub(ey.At(hpl.Idy, hpl.Idx))
			k.Set(hz.At(hpl.Idy, hpl.Idx), hz.At(hpl.Idy, hpl.Idx).Sub(d.Mul(fdtdHzWeight)))
		})
	})
})

// fdtdHzWeight is fdtd-2d's 0.7, as the kernel's float32 constant.
const fdtdHzWeight = float32(0.7)

// GSR is Gram-Schmidt's row k of R (PolyBench gramschmidt, its GPU
// version's second kernel): for every column j after k, r[k][j] =
// sum_i q[i][k]*a[i][j]. The column index k is an argument, the column a
// work-item computes the private int j = idx + k + 1, and work-items past
// the last column do nothing.
var GSR = hpl.MustKernel("gs_r", func(k *hpl.K) {
	r := k.Array("r", hpl.Float32, 2)
	q := k.Array("q", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	n, m, kk := k.Scalar("n", hpl.Int32), k.Scalar("m", hpl.Int32), k.Scalar("k", hpl.Int32)
	i := k.Int("i")
	k.Compute(func() {
		j := k.Int("j", hpl.Idx.Add(kk).Add(1))
		k.If(j.Lt(m), func() {
			k.Set(r.At(kk, j), 0.0)
			k.For(i, 0, n, func() {
				k.AddTo(r.At(kk, j), q.At(i, kk).Mul(a.At(i, j)))
			})
		})
	})
})

// GSUpdate is Gram-Schmidt's update of the columns after k (its GPU
// version's third kernel, one point per element): a[i][j] -= q[i][k] *
// r[k][j] for j = idx + k + 1 < m.
var GSUpdate = hpl.MustKernel("gs_update", func(k *hpl.K) {
	a := k.Array("a", hpl.Float32, 2)
	q := k.Array("q", hpl.Float32, 2)
	r := k.Array("r", hpl.Float32, 2)
	m, kk := k.Scalar("m", hpl.Int32), k.Scalar("k", hpl.Int32)
	k.Compute(func() {
		j := k.Int("j", hpl.Idx.Add(kk).Add(1))
		k.If(j.Lt(m), func() {
			k.Set(a.At(hpl.Idy, j), a.At(hpl.Idy, j).Sub(q.At(hpl.Idy, kk).Mul(r.At(kk, j))))
		})
	})
})

// Covariance is the covariance matrix of mean-centred data (n samples of
// m variables), computed on the full square:
// cov[y][x] = sum_i data[i][y]*data[i][x] / (n-1).
var Covariance = hpl.MustKernel("covariance", func(k *hpl.K) {
	cov := k.Array("cov", hpl.Float32, 2)
	data := k.Array("data", hpl.Float32, 2)
	n := k.Scalar("n", hpl.Int32)
	i := k.Int("i")
	acc := k.Float("acc")
	k.Compute(func() {
		k.Set(acc, 0.0)
		k.For(i, 0, n, func() {
			k.AddTo(acc, data.At(i, hpl.Idy).Mul(data.At(i, hpl.Idx)))
		})
		k.Set(cov.At(hpl.Idy, hpl.Idx), acc.Div(hpl.ToFloat(n.Sub(1))))
	})
})

// CovarianceTri is the same covariance as PolyBench's GPU version computes
// it: work-item j1 computes row j1 from the diagonal on, for (j2 = j1; j2 <
// m; j2++), and mirrors it into column j1.
var CovarianceTri = hpl.MustKernel("covariance_tri", func(k *hpl.K) {
	cov := k.Array("cov", hpl.Float32, 2)
	data := k.Array("data", hpl.Float32, 2)
	m, n := k.Scalar("m", hpl.Int32), k.Scalar("n", hpl.Int32)
	j2, i := k.Int("j2"), k.Int("i")
	acc := k.Float("acc")
	k.Compute(func() {
		k.For(j2, hpl.Idx, m, func() {
			k.Set(acc, 0.0)
			k.For(i, 0, n, func() {
				k.AddTo(acc, data.At(i, hpl.Idx).Mul(data.At(i, j2)))
			})
			k.DivBy(acc, hpl.ToFloat(n.Sub(1)))
			k.Set(cov.At(hpl.Idx, j2), acc)
			k.Set(cov.At(j2, hpl.Idx), acc)
		})
	})
})

// BoxFilter is the 3x3 box filter (the mean of nine points) on the
// interior of a grid with a one-point border, the nine reads written out.
var BoxFilter = hpl.MustKernel("boxfilter", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	k.Compute(func() {
		var sum hpl.Expr
		for dy := 0; dy < 3; dy++ {
			for dx := 0; dx < 3; dx++ {
				v := in.At(hpl.Idy.Add(dy), hpl.Idx.Add(dx))
				if sum.Node() == nil {
					sum = v
				} else {
					sum = sum.Add(v)
				}
			}
		}
		k.Set(out.At(hpl.Idy, hpl.Idx), sum.Mul(boxWeight))
	})
})

// boxWeight is 1/9 as the kernel's float32 constant.
const boxWeight = float32(1.0 / 9)

// SepFilter is the vertical pass of a separable filter with nk taps:
// out[y][x] = sum_i in[y+i][x]*w[i].
var SepFilter = hpl.MustKernel("sepfilter", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	w := k.Array("w", hpl.Float32, 1)
	nk := k.Scalar("nk", hpl.Int32)
	i := k.Int("i")
	k.Compute(func() {
		k.Set(out.At(hpl.Idy, hpl.Idx), 0.0)
		k.For(i, 0, nk, func() {
			k.AddTo(out.At(hpl.Idy, hpl.Idx), in.At(hpl.Idy.Add(i), hpl.Idx).Mul(w.At(i)))
		})
	})
})

// Transpose is out = in^T: out[idx][idy] = in[idy][idx].
var Transpose = hpl.MustKernel("transpose", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 2)
	in := k.Array("in", hpl.Float32, 2)
	k.Compute(func() {
		k.Set(out.At(hpl.Idx, hpl.Idy), in.At(hpl.Idy, hpl.Idx))
	})
})

// Saxpy is y = alpha*x + y on n elements, launched on a domain rounded up
// to whole work-groups, with the bounds guard if (idx < n).
var Saxpy = hpl.MustKernel("saxpy", func(k *hpl.K) {
	y := k.Array("y", hpl.Float32, 1)
	x := k.Array("x", hpl.Float32, 1)
	alpha := k.Scalar("alpha", hpl.Float32)
	n := k.Scalar("n", hpl.Int32)
	k.Compute(func() {
		k.If(hpl.Idx.Lt(n), func() {
			k.Set(y.At(hpl.Idx), alpha.Mul(x.At(hpl.Idx)).Add(y.At(hpl.Idx)))
		})
	})
})

// MatMulGuard is the matrix product as it is usually hand-written: a
// domain rounded up to whole 16x16 work-groups, a bounds guard, and a
// private accumulator stored once.
var MatMulGuard = hpl.MustKernel("mxm_guard", func(k *hpl.K) {
	c := k.Array("c", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	b := k.Array("b", hpl.Float32, 2)
	nx, ny, nk := k.Scalar("nx", hpl.Int32), k.Scalar("ny", hpl.Int32), k.Scalar("nk", hpl.Int32)
	i := k.Int("k")
	acc := k.Float("acc")
	k.Compute(func() {
		k.If(hpl.Idx.Lt(nx).And(hpl.Idy.Lt(ny)), func() {
			k.Set(acc, 0.0)
			k.For(i, 0, nk, func() {
				k.AddTo(acc, a.At(hpl.Idy, i).Mul(b.At(i, hpl.Idx)))
			})
			k.Set(c.At(hpl.Idy, hpl.Idx), acc)
		})
	})
})

// Suite returns the public suite of kernels users write, beyond the paper's
// eight, in a fixed order.
func Suite() []*Benchmark { return append([]*Benchmark(nil), suite...) }

// SuiteNames returns the suite kernels' command-line names.
func SuiteNames() []string { return names(suite) }

// sizes2 makes the size classes of a 2D kernel without loops from its
// tiny size and the side of its S, M and L squares.
func sizes2(tiny []int, s, m, l int) map[string]Size {
	return map[string]Size{"tiny": {N: tiny}, "S": {N: []int{s, s}}, "M": {N: []int{m, m}}, "L": {N: []int{l, l}}}
}

// sizesNK makes the size classes of a kernel with one loop whose S, M
// and L domains have every side n and loop length n.
func sizesNK(tiny Size, dims, s, m, l int) map[string]Size {
	c := map[string]Size{"tiny": tiny}
	for class, n := range map[string]int{"S": s, "M": m, "L": l} {
		sz := Size{K: []int{n}}
		for d := 0; d < dims; d++ {
			sz.N = append(sz.N, n)
		}
		c[class] = sz
	}
	return c
}

var suite = []*Benchmark{
	{
		Name: "mv", Kernel: MV, Dims: 1, Loops: 1,
		Doc:   "matrix-vector product y = A x (N rows, K columns)",
		Sizes: sizesNK(Size{N: []int{96}, K: []int{40}}, 1, 4096, 8192, 12288),
		setup: setupMV, limits: limitsMV,
	},
	{
		Name: "mvt", Kernel: MVT, Dims: 1, Loops: 1,
		Doc:   "transposed matrix-vector product y = A^T x (N columns, K rows)",
		Sizes: sizesNK(Size{N: []int{96}, K: []int{40}}, 1, 4096, 8192, 12288),
		setup: setupMV, limits: limitsMV,
	},
	{
		Name: "bicg", Kernel: BiCG, Dims: 1, Loops: 1,
		Doc:   "PolyBench bicg: s = A^T r and q = A p in one sweep (square, K = N)",
		Sizes: sizesNK(Size{N: []int{80}, K: []int{80}}, 1, 4096, 8192, 12288),
		setup: setupBiCG, limits: limitsSquareLoop,
	},
	{
		Name: "stencil2d", Kernel: Stencil2D, Dims: 2,
		Doc:   "5-point stencil on the interior, offsets written out: out = c0*in + c1*(4 neighbours)",
		Sizes: sizes2([]int{40, 24}, 2048, 4096, 8192),
		setup: setupStencil2D, limits: limitsBorder,
	},
	{
		Name: "jacobi2d", Kernel: Jacobi2D, Dims: 2,
		Doc:   "PolyBench jacobi-2d step: b = 0.2*(a + 4 neighbours) inside a border guard (square)",
		Sizes: sizes2([]int{36, 36}, 2048, 4096, 8192),
		setup: setupJacobi2D, limits: limitsSquare,
	},
	{
		Name: "stencil3d", Kernel: Stencil3D, Dims: 3,
		Doc: "7-point 3D stencil (heat-3d-like step) inside a border guard",
		Sizes: map[string]Size{
			"tiny": {N: []int{12, 10, 8}},
			"S":    {N: []int{128, 128, 128}},
			"M":    {N: []int{256, 256, 256}},
			"L":    {N: []int{384, 384, 384}},
		},
		setup: setupStencil3D, limits: limitsDomain,
	},
	{
		Name: "fdtd-ey", Kernel: FDTDEy, Dims: 2,
		Doc:   "PolyBench fdtd-2d ey update at time step t: row 0 = fict[t], else ey -= 0.5*(hz - hz above)",
		Sizes: sizes2([]int{40, 24}, 2048, 4096, 8192),
		setup: setupFDTDEy, limits: limitsDomain,
	},
	{
		Name: "fdtd-hz", Kernel: FDTDHz, Dims: 2,
		Doc:   "PolyBench fdtd-2d hz update: hz -= 0.7*(ex right - ex + ey below - ey), guarded",
		Sizes: sizes2([]int{40, 24}, 2048, 4096, 8192),
		setup: setupFDTDHz, limits: limitsDomain,
	},
	{
		Name: "gs-r", Kernel: GSR, Dims: 1, Loops: 1,
		Doc:   "PolyBench gramschmidt row k of R: r[k][j] = sum_i q[i][k]*a[i][j], j = idx+k+1 (N columns, K rows, k = N/4)",
		Sizes: sizesNK(Size{N: []int{24}, K: []int{40}}, 1, 2048, 4096, 8192),
		setup: setupGSR, limits: limitsMV,
	},
	{
		Name: "gs-update", Kernel: GSUpdate, Dims: 2,
		Doc:   "PolyBench gramschmidt update: a[i][j] -= q[i][k]*r[k][j] for j = idx+k+1 (N = columns x rows, k = columns/4)",
		Sizes: sizes2([]int{24, 40}, 2048, 4096, 8192),
		setup: setupGSUpdate, limits: limitsDomain,
	},
	{
		Name: "covariance", Kernel: Covariance, Dims: 2, Loops: 1,
		Doc:   "covariance of mean-centred data on the full square (N x N variables, K samples)",
		Sizes: sizesNK(Size{N: []int{24, 24}, K: []int{40}}, 2, 1024, 2048, 4096),
		setup: setupCovariance, limits: limitsCovariance,
	},
	{
		Name: "covariance-tri", Kernel: CovarianceTri, Dims: 1, Loops: 1,
		Doc:   "covariance as PolyBench's GPU version: for (j2 = j1; j2 < m; j2++), mirrored (N variables, K samples)",
		Sizes: sizesNK(Size{N: []int{24}, K: []int{40}}, 1, 1024, 2048, 4096),
		setup: setupCovariance, limits: limitsCovariance,
	},
	{
		Name: "boxfilter", Kernel: BoxFilter, Dims: 2,
		Doc:   "3x3 box filter on the interior, nine reads written out",
		Sizes: sizes2([]int{40, 24}, 2048, 4096, 8192),
		setup: setupBoxFilter, limits: limitsBorder,
	},
	{
		Name: "sepfilter", Kernel: SepFilter, Dims: 2, Loops: 1,
		Doc: "vertical pass of a separable filter: out[y][x] = sum_i in[y+i][x]*w[i] (K taps)",
		Sizes: map[string]Size{
			"tiny": {N: []int{40, 24}, K: []int{5}},
			"S":    {N: []int{2048, 2048}, K: []int{17}},
			"M":    {N: []int{4096, 4096}, K: []int{33}},
			"L":    {N: []int{8192, 8192}, K: []int{65}},
		},
		setup: setupSepFilter, limits: limitsSepFilter,
	},
	{
		Name: "transpose", Kernel: Transpose, Dims: 2,
		Doc:   "matrix transpose out[x][y] = in[y][x]",
		Sizes: sizes2([]int{40, 24}, 2048, 4096, 8192),
		setup: setupTranspose, limits: limitsDomain,
	},
	{
		Name: "saxpy", Kernel: Saxpy, Dims: 1,
		Doc: "y = alpha*x + y on N elements, domain rounded up to 64, guard if (idx < n)",
		Sizes: map[string]Size{
			"tiny": {N: []int{1000}},
			"S":    {N: []int{16_000_003}},
			"M":    {N: []int{64_000_003}},
			"L":    {N: []int{128_000_003}},
		},
		setup: setupSaxpy, limits: limitsDomain,
	},
	{
		Name: "matmul-guard", Kernel: MatMulGuard, Dims: 2, Loops: 1,
		Doc: "matrix product with a bounds guard and a private accumulator, domain rounded up to 16x16",
		Sizes: map[string]Size{
			"tiny": {N: []int{30, 20}, K: []int{17}},
			"S":    {N: []int{1000, 1000}, K: []int{1000}},
			"M":    {N: []int{2000, 2000}, K: []int{2000}},
			"L":    {N: []int{4000, 4000}, K: []int{4000}},
		},
		setup: setupMatMulGuard, limits: limitsMatMul,
	},
}
