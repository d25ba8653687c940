package patterns_test

import (
	"testing"

	"github.com/hplopt/hplopt/hpl"
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

// dslKernels lists the kernels above in a fixed order.
var dslKernels = []*hpl.Kernel{depth3d, rowcol3d, nopat, indirect, linearized, strided, triangularID, triangularLoop, stride2, condition, conditionVar, guard, while, localBound}

// analyze runs the analysis on a copy of k's syntax tree.
func analyze(t *testing.T, k *hpl.Kernel) *patterns.Info {
	t.Helper()
	in, err := patterns.Analyze(k.AST())
	if err != nil {
		t.Fatalf("Analyze(%s): %v", k.Name(), err)
	}
	return in
}
