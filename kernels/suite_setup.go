package kernels

import (
	"fmt"
	"math"

	"github.com/hplopt/hplopt/hpl"
)

// The suite's instances and references, written as defs.go's are: each
// setup fills the arguments in the kernel's parameter order, names the
// outputs and gives the reference at one point of the domain: every
// element the point's work-item writes, and the elements of an output that
// a guard leaves untouched (at their initial value), so that a variant
// writing where it must not is caught too.

// Size constraints and largest arrays of the suite (see Benchmark.limits).

// limitsMV: mv's a has N rows of K, mvt's and gs-r's K rows of N; gs-r's r
// is N x N.
func limitsMV(_ *Benchmark, s Size) (int, error) {
	return max(prod([]int{s.N[0], s.K[0]}), prod([]int{s.N[0], s.N[0]})), nil
}

// limitsSquareLoop: bicg's matrix is square, its loop runs over all N.
func limitsSquareLoop(b *Benchmark, s Size) (int, error) {
	if s.K[0] != s.N[0] {
		return 0, fmt.Errorf("kernels: %s works on a square matrix: -k %d must equal -n %d", b.Name, s.K[0], s.N[0])
	}
	return prod([]int{s.N[0], s.N[0]}), nil
}

// limitsBorder: the input has a one-point border around the N points.
func limitsBorder(_ *Benchmark, s Size) (int, error) {
	return prod([]int{s.N[0] + 2, s.N[1] + 2}), nil
}

func limitsSquare(b *Benchmark, s Size) (int, error) { return prod(s.N), b.square(s) }

// limitsDomain: every array has the domain's points (Validate checks them).
func limitsDomain(*Benchmark, Size) (int, error) { return 0, nil }

// limitsCovariance: data is K samples of N[0] variables; the full-square
// version's domain is square.
func limitsCovariance(b *Benchmark, s Size) (int, error) {
	if len(s.N) == 2 {
		if err := b.square(s); err != nil {
			return 0, err
		}
	}
	return max(prod([]int{s.K[0], s.N[0]}), prod([]int{s.N[0], s.N[0]})), nil
}

// limitsSepFilter: the input has N[1]+K-1 rows of N[0].
func limitsSepFilter(_ *Benchmark, s Size) (int, error) {
	return prod([]int{s.N[1] + s.K[0] - 1, s.N[0]}), nil
}

// series returns the sum of term(i) for i < n and the sum of the terms'
// magnitudes, in float64.
func series(n int, term func(i int) float64) (sum, mag float64) {
	for i := 0; i < n; i++ {
		t := term(i)
		sum += t
		mag += math.Abs(t)
	}
	return sum, mag
}

// roundUp is n rounded up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// setupMV serves mv (y = A x, a of N rows by K) and mvt (y = A^T x, a of K
// rows by N).
func setupMV(in *Instance, g *gen) {
	transposed := in.Bench.Kernel == MVT
	n, nk := in.Size.N[0], in.Size.K[0]
	rows, cols := n, nk
	if transposed {
		rows, cols = nk, n
	}
	y := hpl.NewArray(hpl.Float32, n)
	a := g.uniform(-1, 1, rows, cols)
	x := g.uniform(-1, 1, nk)
	in.Args = []any{y, a.arr, x.arr, int32(nk)}
	in.output("y", y)
	in.FLOPs = 2 * float64(rows) * float64(cols)
	in.Bytes = 4 * float64(rows*cols+rows+cols)
	av, xv := a.data, x.data
	in.point = func(p []int, emit emitFunc) {
		i := p[0]
		sum, mag := series(nk, func(j int) float64 {
			if transposed {
				return float64(av[j*cols+i]) * float64(xv[j])
			}
			return float64(av[i*cols+j]) * float64(xv[j])
		})
		emit(0, i, sum, mag)
	}
}

func setupBiCG(in *Instance, g *gen) {
	n := in.Size.N[0]
	s, q := hpl.NewArray(hpl.Float32, n), hpl.NewArray(hpl.Float32, n)
	a := g.uniform(-1, 1, n, n)
	r, p := g.uniform(-1, 1, n), g.uniform(-1, 1, n)
	in.Args = []any{s, q, a.arr, r.arr, p.arr, int32(n)}
	in.output("s", s)
	in.output("q", q)
	in.FLOPs = 4 * float64(n) * float64(n)
	in.Bytes = 4 * float64(n*n+4*n)
	av, rv, pv := a.data, r.data, p.data
	in.point = func(pt []int, emit emitFunc) {
		i := pt[0]
		sum, mag := series(n, func(j int) float64 { return float64(rv[j]) * float64(av[j*n+i]) })
		emit(0, i, sum, mag)
		sum, mag = series(n, func(j int) float64 { return float64(av[i*n+j]) * float64(pv[j]) })
		emit(1, i, sum, mag)
	}
}

// The weights of the 2D and 3D stencils, exact in binary.
const (
	stencilCentre = 0.5
	stencilSide   = 0.125
	heatCentre    = 0.25
)

func setupStencil2D(in *Instance, g *gen) {
	nx, ny := in.Size.N[0], in.Size.N[1]
	w := nx + 2
	out := hpl.NewArray(hpl.Float32, ny, nx)
	src := g.uniform(-1, 1, ny+2, w)
	in.Args = []any{out, src.arr, float32(stencilCentre), float32(stencilSide)}
	in.output("out", out)
	in.FLOPs = 6 * float64(nx*ny)
	in.Bytes = 4 * float64(nx*ny+(nx+2)*(ny+2))
	v := src.data
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		c := stencilCentre * float64(v[(y+1)*w+x+1])
		sum, mag := series(4, func(i int) float64 {
			dy, dx := [4]int{0, 2, 1, 1}[i], [4]int{1, 1, 0, 2}[i]
			return stencilSide * float64(v[(y+dy)*w+x+dx])
		})
		emit(0, y*nx+x, c+sum, math.Abs(c)+mag)
	}
}

func setupJacobi2D(in *Instance, g *gen) {
	n := in.Size.N[0]
	b := hpl.NewArray(hpl.Float32, n, n)
	a := g.uniform(-1, 1, n, n)
	in.Args = []any{b, a.arr, int32(n)}
	in.output("b", b)
	in.FLOPs = 5 * float64(n) * float64(n)
	in.Bytes = 8 * float64(n) * float64(n)
	v, wt := a.data, float64(jacobiWeight)
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		if x < 1 || x >= n-1 || y < 1 || y >= n-1 {
			emit(0, y*n+x, 0, 0) // the border is not written
			return
		}
		sum, mag := series(5, func(i int) float64 {
			dy, dx := [5]int{0, 0, 0, 1, -1}[i], [5]int{0, -1, 1, 0, 0}[i]
			return wt * float64(v[(y+dy)*n+x+dx])
		})
		emit(0, y*n+x, sum, mag)
	}
}

func setupStencil3D(in *Instance, g *gen) {
	nx, ny, nz := in.Size.N[0], in.Size.N[1], in.Size.N[2]
	b := hpl.NewArray(hpl.Float32, nz, ny, nx)
	a := g.uniform(-1, 1, nz, ny, nx)
	in.Args = []any{b, a.arr, float32(heatCentre), float32(stencilSide), int32(nx), int32(ny), int32(nz)}
	in.output("b", b)
	in.FLOPs = 8 * float64(nx*ny*nz)
	in.Bytes = 8 * float64(nx*ny*nz)
	v := a.data
	at := func(z, y, x int) float64 { return float64(v[(z*ny+y)*nx+x]) }
	in.point = func(p []int, emit emitFunc) {
		x, y, z := p[0], p[1], p[2]
		off := (z*ny+y)*nx + x
		if x < 1 || x >= nx-1 || y < 1 || y >= ny-1 || z < 1 || z >= nz-1 {
			emit(0, off, 0, 0)
			return
		}
		c := heatCentre * at(z, y, x)
		sum, mag := series(6, func(i int) float64 {
			d := [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}[i]
			return stencilSide * at(z+d[0], y+d[1], x+d[2])
		})
		emit(0, off, c+sum, math.Abs(c)+mag)
	}
}

// fdtd-2d's time steps (the length of fict) and the step the instance runs.
const (
	fdtdSteps = 16
	fdtdStep  = 5
)

func setupFDTDEy(in *Instance, g *gen) {
	m, n := in.Size.N[0], in.Size.N[1]
	ey := g.uniform(-1, 1, n, m)
	hz := g.uniform(-1, 1, n, m)
	fict := g.uniform(-1, 1, fdtdSteps)
	in.Args = []any{ey.arr, hz.arr, fict.arr, int32(fdtdStep)}
	in.output("ey", ey.arr)
	ey = in.resettable(ey)
	in.FLOPs = 3 * float64(n*m)
	in.Bytes = 12 * float64(n*m)
	h, f := hz.data, float64(fict.data[fdtdStep])
	in.point = func(p []int, emit emitFunc) {
		e := ey.initial()
		x, y := p[0], p[1]
		if y == 0 {
			emit(0, x, f, math.Abs(f))
			return
		}
		i := y*m + x
		d := 0.5 * (float64(h[i]) - float64(h[i-m]))
		emit(0, i, float64(e[i])-d, math.Abs(float64(e[i]))+0.5*(math.Abs(float64(h[i]))+math.Abs(float64(h[i-m]))))
	}
}

func setupFDTDHz(in *Instance, g *gen) {
	m, n := in.Size.N[0], in.Size.N[1]
	hz := g.uniform(-1, 1, n, m)
	ex := g.uniform(-1, 1, n, m)
	ey := g.uniform(-1, 1, n, m)
	in.Args = []any{hz.arr, ex.arr, ey.arr, int32(n), int32(m)}
	in.output("hz", hz.arr)
	hz = in.resettable(hz)
	in.FLOPs = 5 * float64(n*m)
	in.Bytes = 16 * float64(n*m)
	ev, yv, wt := ex.data, ey.data, float64(fdtdHzWeight)
	in.point = func(p []int, emit emitFunc) {
		h := hz.initial()
		x, y := p[0], p[1]
		i := y*m + x
		h0 := float64(h[i])
		if y >= n-1 || x >= m-1 {
			emit(0, i, h0, math.Abs(h0))
			return
		}
		d, mag := series(4, func(k int) float64 {
			return [4]float64{float64(ev[i+1]), -float64(ev[i]), float64(yv[i+m]), -float64(yv[i])}[k]
		})
		emit(0, i, h0-wt*d, math.Abs(h0)+wt*mag)
	}
}

// gsColumn is the column k of the Gram-Schmidt instances: a quarter of the
// way through the columns.
func gsColumn(columns int) int { return columns / 4 }

func setupGSR(in *Instance, g *gen) {
	m, n := in.Size.N[0], in.Size.K[0]
	k := gsColumn(m)
	r := hpl.NewArray(hpl.Float32, m, m)
	q := g.uniform(-1, 1, n, m)
	a := g.uniform(-1, 1, n, m)
	in.Args = []any{r, q.arr, a.arr, int32(n), int32(m), int32(k)}
	in.output("r", r)
	in.FLOPs = 2 * float64(n) * float64(m-k-1)
	in.Bytes = 4 * float64(n*(m-k)+n+m)
	qv, av := q.data, a.data
	in.point = func(p []int, emit emitFunc) {
		if j := p[0] + k + 1; j < m {
			sum, mag := series(n, func(i int) float64 { return float64(qv[i*m+k]) * float64(av[i*m+j]) })
			emit(0, k*m+j, sum, mag)
		}
		if p[0] <= k {
			emit(0, k*m+p[0], 0, 0) // row k before its column k+1 stays 0
		}
	}
}

func setupGSUpdate(in *Instance, g *gen) {
	m, n := in.Size.N[0], in.Size.N[1]
	k := gsColumn(m)
	a := g.uniform(-1, 1, n, m)
	q := g.uniform(-1, 1, n, m)
	r := g.uniform(-1, 1, m, m)
	in.Args = []any{a.arr, q.arr, r.arr, int32(m), int32(k)}
	in.output("a", a.arr)
	a = in.resettable(a)
	in.FLOPs = 2 * float64(n) * float64(m-k-1)
	in.Bytes = 4 * float64(2*n*(m-k)+n+m)
	qv, rv := q.data, r.data
	in.point = func(p []int, emit emitFunc) {
		av := a.initial()
		x, y := p[0], p[1]
		if j := x + k + 1; j < m {
			a0, t := float64(av[y*m+j]), float64(qv[y*m+k])*float64(rv[k*m+j])
			emit(0, y*m+j, a0-t, math.Abs(a0)+math.Abs(t))
		}
		if x <= k {
			a0 := float64(av[y*m+x])
			emit(0, y*m+x, a0, math.Abs(a0))
		}
	}
}

// setupCovariance serves covariance (the full square, cov, data, n) and
// covariance-tri (cov, data, m, n): N[0] variables, K samples, the data
// centred on each variable's mean.
func setupCovariance(in *Instance, g *gen) {
	m, n := in.Size.N[0], in.Size.K[0]
	tri := in.Bench.Kernel == CovarianceTri
	cov := hpl.NewArray(hpl.Float32, m, m)
	data := g.uniform(-1, 1, n, m)
	d := data.arr.Float32s()
	for j := 0; j < m; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += float64(d[i*m+j])
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			d[i*m+j] = float32(float64(d[i*m+j]) - mean)
		}
	}
	copy(data.data, d)
	in.Args = []any{cov, data.arr, int32(n)}
	if tri {
		in.Args = []any{cov, data.arr, int32(m), int32(n)}
	}
	in.output("cov", cov)
	in.FLOPs = 2 * float64(m) * float64(m) * float64(n)
	if tri {
		in.FLOPs = float64(m) * float64(m+1) * float64(n)
	}
	in.Bytes = 4 * float64(m*m+n*m)
	dv, div := data.data, float64(n-1)
	entry := func(y, x int) (float64, float64) {
		sum, mag := series(n, func(i int) float64 { return float64(dv[i*m+y]) * float64(dv[i*m+x]) })
		return sum / div, mag / div
	}
	in.point = func(p []int, emit emitFunc) {
		if !tri {
			x, y := p[0], p[1]
			v, mag := entry(y, x)
			emit(0, y*m+x, v, mag)
			return
		}
		j1 := p[0]
		for j2 := j1; j2 < m; j2++ {
			v, mag := entry(j1, j2)
			emit(0, j1*m+j2, v, mag)
			if j2 != j1 {
				emit(0, j2*m+j1, v, mag)
			}
		}
	}
}

func setupBoxFilter(in *Instance, g *gen) {
	nx, ny := in.Size.N[0], in.Size.N[1]
	w := nx + 2
	out := hpl.NewArray(hpl.Float32, ny, nx)
	src := g.uniform(-1, 1, ny+2, w)
	in.Args = []any{out, src.arr}
	in.output("out", out)
	in.FLOPs = 9 * float64(nx*ny)
	in.Bytes = 4 * float64(nx*ny+(nx+2)*(ny+2))
	v, wt := src.data, float64(boxWeight)
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		sum, mag := series(9, func(i int) float64 { return wt * float64(v[(y+i/3)*w+x+i%3]) })
		emit(0, y*nx+x, sum, mag)
	}
}

func setupSepFilter(in *Instance, g *gen) {
	nx, ny, nk := in.Size.N[0], in.Size.N[1], in.Size.K[0]
	out := hpl.NewArray(hpl.Float32, ny, nx)
	src := g.uniform(-1, 1, ny+nk-1, nx)
	w := g.uniform(-1, 1, nk)
	in.Args = []any{out, src.arr, w.arr, int32(nk)}
	in.output("out", out)
	in.FLOPs = 2 * float64(nx*ny) * float64(nk)
	in.Bytes = 4 * float64(nx*ny+(ny+nk-1)*nx+nk)
	v, wv := src.data, w.data
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		sum, mag := series(nk, func(i int) float64 { return float64(v[(y+i)*nx+x]) * float64(wv[i]) })
		emit(0, y*nx+x, sum, mag)
	}
}

func setupTranspose(in *Instance, g *gen) {
	nx, ny := in.Size.N[0], in.Size.N[1]
	out := hpl.NewArray(hpl.Float32, nx, ny)
	src := g.uniform(-1, 1, ny, nx)
	in.Args = []any{out, src.arr}
	in.output("out", out)
	in.FLOPs = 0
	in.Bytes = 8 * float64(nx*ny)
	v := src.data
	in.point = func(p []int, emit emitFunc) {
		x, y := p[0], p[1]
		t := float64(v[y*nx+x])
		emit(0, x*ny+y, t, math.Abs(t))
	}
}

// saxpyAlpha is saxpy's scalar, exact in binary.
const saxpyAlpha = 1.5

func setupSaxpy(in *Instance, g *gen) {
	n := in.Size.N[0]
	y := g.uniform(-1, 1, n)
	x := g.uniform(-1, 1, n)
	in.Args = []any{y.arr, x.arr, float32(saxpyAlpha), int32(n)}
	in.Global = []int{roundUp(n, 64)}
	in.output("y", y.arr)
	y = in.resettable(y)
	in.FLOPs = 2 * float64(n)
	in.Bytes = 12 * float64(n)
	xv := x.data
	in.point = func(p []int, emit emitFunc) {
		yv := y.initial()
		i := p[0]
		t, y0 := saxpyAlpha*float64(xv[i]), float64(yv[i])
		emit(0, i, t+y0, math.Abs(t)+math.Abs(y0))
	}
}

// setupMatMulGuard is matmul's instance with the sizes as arguments and the
// domain rounded up to whole 16x16 work-groups.
func setupMatMulGuard(in *Instance, g *gen) {
	setupMatMul(in, g)
	nx, ny, nk := in.Size.N[0], in.Size.N[1], in.Size.K[0]
	in.Args = append(in.Args[:3:3], int32(nx), int32(ny), int32(nk))
	in.Global = []int{roundUp(nx, 16), roundUp(ny, 16)}
}
