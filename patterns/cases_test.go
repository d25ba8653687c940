package patterns_test

import (
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// The small kernels of these tests, each built with the DSL around one
// access shape. The table tests and the golden tables share them.

var (
	// depth3d: x[k][idy][idx], a loop counter in the third rightmost
	// dimension (DepthPat).
	depth3d = hpl.MustKernel("depth3d", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 3)
		x := k.Array("x", hpl.Float32, 3)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idz, hpl.Idy, hpl.Idx), 0.0)
			k.For(i, 0, n, func() {
				k.AddTo(out.At(hpl.Idz, hpl.Idy, hpl.Idx), x.At(i, hpl.Idy, hpl.Idx))
			})
		})
	})

	// rowcol3d: r[idz][idy][k] (RowPat) and c[idz][k][idx] (ColPat) in
	// three dimensions.
	rowcol3d = hpl.MustKernel("rowcol3d", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 3)
		r := k.Array("r", hpl.Float32, 3)
		c := k.Array("c", hpl.Float32, 3)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.For(i, 0, n, func() {
				k.AddTo(out.At(hpl.Idz, hpl.Idy, hpl.Idx), r.At(hpl.Idz, hpl.Idy, i).Mul(c.At(hpl.Idz, i, hpl.Idx)))
			})
		})
	})

	// nopat: every work-item reads the same element s[0] (NoPat); offsets
	// on ids and counters: in[idx+1] (SinglePat), w[k+2] (InnerPat),
	// in[idx-1+k] (RadiusPat).
	nopat = hpl.MustKernel("nopat", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		s := k.Array("s", hpl.Float32, 1)
		in := k.Array("in", hpl.Float32, 1)
		w := k.Array("w", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), s.At(0).Mul(in.At(hpl.Idx.Add(1))))
			k.For(i, 0, n, func() {
				k.AddTo(out.At(hpl.Idx), w.At(i.Add(2)).Mul(in.At(hpl.Idx.Sub(1).Add(i))))
			})
		})
	})

	// indirect: a[b[k]], a gather through an index array.
	indirect = hpl.MustKernel("indirect", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		b := k.Array("b", hpl.Int32, 1)
		w := k.Array("w", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, n, func() {
				k.AddTo(out.At(hpl.Idx), w.At(i).Mul(a.At(b.At(i))))
			})
		})
	})

	// linearized: a 2D array flattened and indexed as a[idy*n+idx].
	linearized = hpl.MustKernel("linearized", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 2)
		a := k.Array("a", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		k.Compute(func() {
			k.Set(out.At(hpl.Idy, hpl.Idx), a.At(hpl.Idy.Mul(n).Add(hpl.Idx)))
		})
	})

	// strided: a[k*2], a constant coefficient on the counter.
	strided = hpl.MustKernel("strided", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, n, func() {
				k.AddTo(out.At(hpl.Idx), a.At(i.Mul(2)))
			})
		})
	})

	// triangularID: for (k = 0; k < idx; k++), a bound that depends on the
	// work-item.
	triangularID = hpl.MustKernel("triangular_id", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, hpl.Idx, func() {
				k.AddTo(out.At(hpl.Idx), a.At(i))
			})
		})
	})

	// triangularLoop: for (j = 0; j < i; j++) inside the loop over i.
	triangularLoop = hpl.MustKernel("triangular_loop", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		n := k.Scalar("n", hpl.Int32)
		i, j := k.Int("i"), k.Int("j")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, n, func() {
				k.For(j, 0, i, func() {
					k.AddTo(out.At(hpl.Idx), a.At(i, j))
				})
			})
		})
	})

	// stride2: for (k = 0; k < n; k += 2) over a row a[idy][k].
	stride2 = hpl.MustKernel("stride2", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 2)
		a := k.Array("a", hpl.Float32, 2)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idy, hpl.Idx), 0.0)
			k.ForStep(i, 0, n, 2, func() {
				k.AddTo(out.At(hpl.Idy, hpl.Idx), a.At(hpl.Idy, i))
			})
		})
	})

	// condition: if (m[idx] > 0) around out[idx] and a[idx].
	condition = hpl.MustKernel("condition", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		m := k.Array("m", hpl.Float32, 1)
		k.Compute(func() {
			k.If(m.At(hpl.Idx).Gt(0.0), func() {
				k.Set(out.At(hpl.Idx), a.At(hpl.Idx))
			})
		})
	})

	// conditionVar: the same condition through a scalar: v = m[idx];
	// if (v > 0) ...
	conditionVar = hpl.MustKernel("condition_var", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		m := k.Array("m", hpl.Float32, 1)
		v := k.Float("v")
		k.Compute(func() {
			k.Set(v, m.At(hpl.Idx))
			k.If(v.Gt(0.0), func() {
				k.Set(out.At(hpl.Idx), a.At(hpl.Idx))
			})
		})
	})

	// guard: if (idx < n) depends on the work-item, not on data: the
	// references under it are classified.
	guard = hpl.MustKernel("guard", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		k.Compute(func() {
			k.If(hpl.Idx.Lt(n), func() {
				k.Set(out.At(hpl.Idx), a.At(hpl.Idx))
			})
		})
	})

	// while: a loop without a counter the analysis can follow.
	while = hpl.MustKernel("while", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		w := k.Int("w")
		k.Compute(func() {
			k.Set(w, 0)
			k.Set(out.At(hpl.Idx), 0.0)
			k.While(w.Lt(n), func() {
				k.AddTo(out.At(hpl.Idx), a.At(hpl.Idx))
				k.AddTo(w, 1)
			})
		})
	})

	// localBound: the bound m is declared in the compute section from the
	// work-item's id: a triangular loop in disguise.
	localBound = hpl.MustKernel("local_bound", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		i := k.Int("k")
		k.Compute(func() {
			m := k.Int("m", hpl.Idx)
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, m, func() {
				k.AddTo(out.At(hpl.Idx), a.At(i))
			})
		})
	})
)

// The shapes users write around their subscripts (issue 16) that the
// suite's kernels (kernels.Suite) do not show on their own: private ints
// that cannot be followed, conditions on data with the array on either
// side, a triangular bound the analysis cannot describe. The suite's
// kernels serve for the others: a bounds guard (kernels.MatMulGuard), int
// arguments and private ints in subscripts (kernels.GSR, kernels.FDTDEy),
// stencils (kernels.Stencil2D), a triangular loop (kernels.CovarianceTri).
var (
	// privates: private ints in subscripts, followed where they hold one
	// value (j, and l set from j inside the loop) and not where they do not
	// (w set twice, u used before it is set, v set in a loop and used
	// after it).
	privates = hpl.MustKernel("privates", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("i")
		u, v, w := k.Int("u"), k.Int("v"), k.Int("w")
		k.Compute(func() {
			j := k.Int("j", hpl.Idx.Add(1))
			k.Set(w, hpl.Idx)
			k.Set(out.At(j.Sub(1)), a.At(u, j))
			k.Set(u, 2)
			k.For(i, 0, n, func() {
				l := k.Int("l", i.Add(j))
				k.AddTo(out.At(hpl.Idx), a.At(i, l))
				k.Set(v, i)
			})
			k.AddTo(w, 1)
			k.AddTo(out.At(hpl.Idx), a.At(v, w))
		})
	})

	// dataLeft, dataRight: the same data-dependent condition with the
	// array on the left (x[idx] > t) and on the right (t < x[idx]).
	dataLeft  = dataCond("data_left", true)
	dataRight = dataCond("data_right", false)

	// triangularScaled: for (k = 0; k < 2*idx; k++), a triangular bound
	// the analysis cannot describe as a subscript.
	triangularScaled = hpl.MustKernel("triangular_scaled", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, hpl.Idx.Mul(2), func() {
				k.AddTo(out.At(hpl.Idx), a.At(i))
			})
		})
	})
)

// dataCond is out[idx] = a[idx] under a condition on x[idx] and the
// argument t, with x on the left or on the right of the comparison.
func dataCond(name string, left bool) *hpl.Kernel {
	return hpl.MustKernel(name, func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		x := k.Array("x", hpl.Float32, 1)
		t := k.Scalar("t", hpl.Float32)
		cond := t.Lt(x.At(hpl.Idx))
		if left {
			cond = x.At(hpl.Idx).Gt(t)
		}
		k.Compute(func() {
			k.If(cond, func() {
				k.Set(out.At(hpl.Idx), a.At(hpl.Idx))
			})
		})
	})
}

// dslKernels lists the kernels above in a fixed order.
var dslKernels = []*hpl.Kernel{depth3d, rowcol3d, nopat, indirect, linearized, strided, triangularID, triangularLoop, stride2, condition, conditionVar, guard, while, localBound,
	privates, dataLeft, dataRight, triangularScaled}

// suiteKernels are the kernels of the suite whose tables the golden file
// pins, with and without Settings.
var suiteKernels = []*hpl.Kernel{kernels.MatMulGuard, kernels.GSR, kernels.FDTDEy, kernels.Stencil2D, kernels.CovarianceTri}

// settled lists kernels analysed with Settings, for the golden tables.
var settled = []struct {
	name string
	k    *hpl.Kernel
	set  patterns.Settings
}{
	{"gs_r+ints", kernels.GSR, patterns.Settings{Ints: map[string]int{"n": 40, "m": 24, "k": 5}}},
	{"fdtd_ey+ints", kernels.FDTDEy, patterns.Settings{Ints: map[string]int{"t": 3}}},
	{"triangular_id+triangular", triangularID, patterns.Settings{Triangular: true}},
	{"triangular_loop+triangular", triangularLoop, patterns.Settings{Triangular: true}},
	{"covariance_tri+triangular", kernels.CovarianceTri, patterns.Settings{Triangular: true}},
	{"triangular_scaled+triangular", triangularScaled, patterns.Settings{Triangular: true}},
	{"local_bound+triangular", localBound, patterns.Settings{Triangular: true}},
}

// analyze runs the analysis on a copy of k's syntax tree.
func analyze(t *testing.T, k *hpl.Kernel) *patterns.Info {
	t.Helper()
	return analyzeWith(t, k, patterns.Settings{})
}

// analyzeWith runs the analysis with set on a copy of k's syntax tree.
func analyzeWith(t *testing.T, k *hpl.Kernel, set patterns.Settings) *patterns.Info {
	t.Helper()
	in, err := set.Analyze(k.AST())
	if err != nil {
		t.Fatalf("Analyze(%s): %v", k.Name(), err)
	}
	return in
}
