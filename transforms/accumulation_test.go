package transforms_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// The kernels of the accumulation pass's tests: out[x] sums, over i < n,
// a[x][i]*u[i] and b[x][i]*v[i], in different ways.
var (
	// accPrivate subtracts the second product, into a private variable
	// written acc = acc + (...): split.
	accPrivate = accKernel("acc_private", func(k *hpl.K, out hpl.ArrayVar, p, q hpl.Expr, loop func(func())) {
		s := k.Float("s", 0.0)
		loop(func() { k.Set(s, s.Add(p.Sub(q))) })
		k.Set(out.At(hpl.Idx), s)
	})
	// accStrided accumulates into out[2x], an element of global memory
	// that promotion does not hold privately: left alone.
	accStrided = accKernel("acc_strided", func(k *hpl.K, out hpl.ArrayVar, p, q hpl.Expr, loop func(func())) {
		k.Set(out.At(hpl.Idx.Mul(2)), 0.0)
		loop(func() { k.AddTo(out.At(hpl.Idx.Mul(2)), p.Add(q)) })
	})
	// accTemp assigns the sum to a temporary, then accumulates it: left
	// alone (an assignment that does not accumulate, and one term).
	accTemp = accKernel("acc_temp", func(k *hpl.K, out hpl.ArrayVar, p, q hpl.Expr, loop func(func())) {
		t := k.Float("t")
		k.Set(out.At(hpl.Idx), 0.0)
		loop(func() {
			k.Set(t, p.Add(q))
			k.AddTo(out.At(hpl.Idx), t)
		})
	})
)

// accKernel makes a kernel over out, a, b, u, v and n whose compute
// section body writes, given the two products of loop counter i and the
// loop over i.
func accKernel(name string, body func(k *hpl.K, out hpl.ArrayVar, p, q hpl.Expr, loop func(func()))) *hpl.Kernel {
	return hpl.MustKernel(name, func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		b := k.Array("b", hpl.Float32, 2)
		u := k.Array("u", hpl.Float32, 1)
		v := k.Array("v", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("i")
		k.Compute(func() {
			p, q := a.At(hpl.Idx, i).Mul(u.At(i)), b.At(hpl.Idx, i).Mul(v.At(i))
			body(k, out, p, q, func(f func()) { k.For(i, 0, n, f) })
		})
	})
}

// accArgs returns the arguments of an accumulation kernel over nx points
// with n terms (random inputs from seed), and the reference out.
func accArgs(k *hpl.Kernel, nx, n int, seed uint64) (args []any, want []float32) {
	r := rand.New(rand.NewPCG(seed, 1))
	fill := func(dims ...int) *hpl.Array {
		a := hpl.NewArray(hpl.Float32, dims...)
		for i := range a.Float32s() {
			a.Float32s()[i] = r.Float32()*2 - 1
		}
		return a
	}
	outLen, stride, sign := nx, 1, 1.0
	switch k {
	case accStrided:
		outLen, stride = 2*nx, 2
	case accPrivate:
		sign = -1
	}
	a, b, u, v := fill(nx, n), fill(nx, n), fill(n), fill(n)
	av, bv, uv, vv := a.ReadFloat32s(), b.ReadFloat32s(), u.ReadFloat32s(), v.ReadFloat32s()
	want = make([]float32, outLen)
	for x := 0; x < nx; x++ {
		var sum float64
		for i := 0; i < n; i++ {
			sum += float64(av[x*n+i])*float64(uv[i]) + sign*float64(bv[x*n+i])*float64(vv[i])
		}
		want[x*stride] = float32(sum)
	}
	return []any{hpl.NewArray(hpl.Float32, outLen), a, b, u, v, int32(n)}, want
}

// accProblem is the problem of an accumulation kernel over nx points with
// n terms, for the golden tests ("test NAME").
func accProblem(k *hpl.Kernel, nx, n int) *transforms.Problem {
	args, _ := accArgs(k, nx, n, 1)
	sk, err := hpl.Specialize(k, args...)
	if err != nil {
		panic(err)
	}
	return &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
}

// fusible returns an accumulation of a sum of two products left in k (the
// shape the accumulation pass splits: acc += x*y + z*w, or acc = acc +
// (x*y + z*w)), or "".
func fusible(k *ast.Kernel) string {
	products := func(e ast.Expr) bool {
		b, ok := e.(*ast.Binary)
		if !ok || b.Op != ast.Add && b.Op != ast.Sub {
			return false
		}
		x, okx := b.X.(*ast.Binary)
		y, oky := b.Y.(*ast.Binary)
		return okx && oky && x.Op == ast.Mul && y.Op == ast.Mul
	}
	found := ""
	ast.Inspect(k.Body, func(n ast.Node) bool {
		a, ok := n.(*ast.Assign)
		if !ok || found != "" {
			return found == ""
		}
		sum := a.RHS
		if a.Op == ast.Set {
			if b, ok := a.RHS.(*ast.Binary); ok && b.Op == ast.Add && ast.ExprString(b.X) == ast.ExprString(a.LHS) {
				sum = b.Y
			}
		}
		if products(sum) {
			found = ast.ExprString(a.LHS) + " " + a.Op.String() + " " + ast.ExprString(a.RHS)
		}
		return true
	})
	return found
}

// TestAccumulationMatchesReference runs split accumulations on the OpenCL
// device: SYR2K at n=64x64 k=16 with settings of the shape the H100
// search found best (blocks of points, unrolled, vectors, staged tiles)
// and the test kernels with a few settings each, compared with the
// reference within the tolerance the property tests use. It checks too
// that the pass acted where it should (SYR2K, acc_private: no accumulation
// of a sum of products left) and not where it should not (acc_strided's
// global accumulation, acc_temp's temporary).
func TestAccumulationMatchesReference(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	apply := func(t *testing.T, prob *transforms.Problem, settings []string, split bool) ([]*transforms.Variant, []transforms.Params) {
		t.Helper()
		vs, ps := variantsOf(t, prob, settings)
		for i, set := range settings {
			code, before, _ := withAndWithout(t, prob, vs[i], ps[i], "accumulation")
			if got := fusible(vs[i].Kernel); split && got != "" {
				t.Errorf("%s: %q left in\n%s", set, got, code)
			}
			if changed := code != before; changed != split {
				t.Errorf("%s: the pass changed the code: %v, want %v:\n%s", set, changed, split, code)
			}
		}
		return vs, ps
	}
	t.Run("syr2k", func(t *testing.T) {
		b, err := kernels.Find("syr2k")
		if err != nil {
			t.Fatal(err)
		}
		size, err := b.ParseSize("", []int{64, 64}, []int{16})
		if err != nil {
			t.Fatal(err)
		}
		in, err := b.Instance(size, 1)
		if err != nil {
			t.Fatal(err)
		}
		prob := problemOf(t, in, s.Device)
		vs, ps := apply(t, prob, []string{
			"lszx=4,lszy=4",
			"lszx=4,lszy=4,bszx=2,bszy=2,tw0=8,uf=4,lmem=1",
			"lszx=4,lszy=4,bszx=8,bszy=8,fullunroll=1,interleave=1,vw=4,tw0=8,uf=8,lmem=1,vec=4,pack=1,ltrans=1",
			"lszx=8,lszy=8,bszx=4,bszy=4,fullunroll=1,interleave=1,vw=4,tw0=8,uf=8,lmem=1,vec=4,pack=1,ltrans=1,prefetch=1,warp=4,gswz=2",
		}, true)
		runBatch(t, s, in, size, vs, ps)
	})
	for _, tc := range []struct {
		k     *hpl.Kernel
		split bool
	}{{accPrivate, true}, {accStrided, false}, {accTemp, false}} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			const nx, n = 64, 24
			args, want := accArgs(tc.k, nx, n, 2)
			prob := accProblem(tc.k, nx, n)
			vs, ps := apply(t, prob, []string{"lszx=8", "lszx=8,bszx=4,tw0=8,uf=2", "lszx=8,bszx=4,fullunroll=1,vec=4,uf=4"}, tc.split)
			runBatchOn(t, s, tc.k.Params(), args, map[string][]float32{"out": want}, nx, vs, ps)
		})
	}
}

// The kernels of the factor and order tests: out[x] sums, over i < n,
// products of a[x][i]*u[i], b[x][i]*v[i] and the scalar argument w.
var (
	// facOutput accumulates w*p + w*q into out[x], which promotion holds
	// privately: w is taken out of the loop.
	facOutput = facKernel("fac_output", func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func())) {
		k.Set(out.At(hpl.Idx), 0.0)
		loop(func() { k.AddTo(out.At(hpl.Idx), w.Mul(p).Add(w.Mul(q))) })
	})
	// facAfter starts out[x] at t, which the loop then changes: w is
	// taken out, but out's start stays before the loop (deferInit).
	facAfter = facKernel("fac_after", func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func())) {
		t := k.Float("t")
		k.Set(t, 1.0)
		k.Set(out.At(hpl.Idx), t)
		loop(func() {
			k.Set(t, t.Add(p))
			k.AddTo(out.At(hpl.Idx), w.Mul(p).Add(w.Mul(q)))
		})
	})
	// facVarying scales by t, which the loop assigns: left alone.
	facVarying = facKernel("fac_varying", func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func())) {
		t := k.Float("t")
		k.Set(out.At(hpl.Idx), 0.0)
		loop(func() {
			k.Set(t, w.Mul(2.0))
			k.AddTo(out.At(hpl.Idx), t.Mul(p).Add(t.Mul(q)))
		})
	})
	// facMixed scales one term only: left alone.
	facMixed = facKernel("fac_mixed", func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func())) {
		k.Set(out.At(hpl.Idx), 0.0)
		loop(func() { k.AddTo(out.At(hpl.Idx), w.Mul(p).Add(q)) })
	})
	// facSum adds w after two products: reordered to w + p + q.
	facSum = facKernel("fac_sum", func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func())) {
		t := k.Float("t")
		k.Set(out.At(hpl.Idx), 0.0)
		loop(func() {
			k.Set(t, p.Add(q).Add(w))
			k.AddTo(out.At(hpl.Idx), t)
		})
	})
)

// facKernel makes a kernel over out, a, b, u, v, n and w whose compute
// section body writes, given w, the two products of loop counter i and
// the loop over i.
func facKernel(name string, body func(k *hpl.K, out hpl.ArrayVar, w hpl.Var, p, q hpl.Expr, loop func(func()))) *hpl.Kernel {
	return hpl.MustKernel(name, func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		b := k.Array("b", hpl.Float32, 2)
		u := k.Array("u", hpl.Float32, 1)
		v := k.Array("v", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		w := k.Scalar("w", hpl.Float32)
		i := k.Int("i")
		k.Compute(func() {
			p, q := a.At(hpl.Idx, i).Mul(u.At(i)), b.At(hpl.Idx, i).Mul(v.At(i))
			body(k, out, w, p, q, func(f func()) { k.For(i, 0, n, f) })
		})
	})
}

// withAndWithout returns the code of v, made from prob with p, and that of
// the variant made with p without the pass named pass, and that variant.
func withAndWithout(t *testing.T, prob *transforms.Problem, v *transforms.Variant, p transforms.Params, pass string) (code, before string, without *transforms.Variant) {
	t.Helper()
	code, err := codegen.Source(v.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if without, err = transforms.ApplyWithout(prob, p, pass); err != nil {
		t.Fatal(err)
	}
	if before, err = codegen.Source(without.Kernel); err != nil {
		t.Fatal(err)
	}
	return code, before, without
}

// startsAfter reports whether code sets the private accumulator of out
// (p_out, an element of it, or its unrolled scalars) after its last
// accumulation into u_p_out: the start deferred past the loop.
func startsAfter(code string) bool {
	lines := strings.Split(code, "\n")
	last := -1
	for i, l := range lines {
		if strings.Contains(l, "u_p_out") && strings.Contains(l, "+=") && !strings.Contains(l, "w * u_p_out") {
			last = i
		}
	}
	for _, l := range lines[last+1:] {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "p_out") && strings.Contains(l, " = ") && !strings.Contains(l, "+=") {
			return true
		}
	}
	return false
}

// TestFactorAndOrder runs the factor and order rewrites of the
// accumulation pass on the OpenCL device, compared with the reference, and
// checks where they acted: w taken out of fac_output's sum (accumulated
// unscaled, out += w * the sum after the loop, out's start moved after the
// loop too) and of fac_after's (whose start reads t, which the loop
// changes: it stays before the loop), fac_sum's w moved first,
// fac_varying and fac_mixed left as the split makes them.
func TestFactorAndOrder(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const nx, n, w = 64, 24, 0.75
	for _, tc := range []struct {
		k        *hpl.Kernel
		want     string // in the code, or "" when the rewrites leave it as without them
		ref      func(p, q float64) float64
		splitToo bool    // the split acts
		start    float64 // out's value before the loop
		deferred bool    // out's start moves after the loop, beside out += w * u_p_out
	}{
		{facOutput, "+= w * u_p_out", func(p, q float64) float64 { return w*p + w*q }, true, 0, true},
		{facAfter, "+= w * u_p_out", func(p, q float64) float64 { return w*p + w*q }, true, 1, false},
		{facVarying, "", func(p, q float64) float64 { return 2*w*p + 2*w*q }, true, 0, false},
		{facMixed, "", func(p, q float64) float64 { return w*p + q }, true, 0, false},
		{facSum, "= w + ", func(p, q float64) float64 { return p + q + w }, false, 0, false},
	} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 1))
			fill := func(dims ...int) *hpl.Array {
				a := hpl.NewArray(hpl.Float32, dims...)
				for i := range a.Float32s() {
					a.Float32s()[i] = r.Float32()*2 - 1
				}
				return a
			}
			a, b, u, v := fill(nx, n), fill(nx, n), fill(n), fill(n)
			av, bv, uv, vv := a.ReadFloat32s(), b.ReadFloat32s(), u.ReadFloat32s(), v.ReadFloat32s()
			want := make([]float32, nx)
			for x := range nx {
				sum := tc.start
				for i := range n {
					sum += tc.ref(float64(av[x*n+i])*float64(uv[i]), float64(bv[x*n+i])*float64(vv[i]))
				}
				want[x] = float32(sum)
			}
			args := []any{hpl.NewArray(hpl.Float32, nx), a, b, u, v, int32(n), float32(w)}
			sk, err := hpl.Specialize(tc.k, args...)
			if err != nil {
				t.Fatal(err)
			}
			prob := &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
			settings := []string{"lszx=8", "lszx=8,bszx=4,tw0=8,uf=2", "lszx=8,bszx=4,fullunroll=1,vec=4,uf=4,tw0=8,lmem=1"}
			vs, ps := variantsOf(t, prob, settings)
			for i, set := range settings {
				code, before, _ := withAndWithout(t, prob, vs[i], ps[i], "accumulation")
				switch {
				case tc.want != "" && !strings.Contains(code, tc.want):
					t.Errorf("%s: no %q in\n%s", set, tc.want, code)
				case tc.want == "" && strings.Contains(code, "u_p_out"):
					t.Errorf("%s: a factor taken out:\n%s", set, code)
				case (code != before) != (tc.want != "" || tc.splitToo):
					t.Errorf("%s: the pass changed the code: %v:\n%s", set, code != before, code)
				case strings.Contains(tc.want, "u_p_out") && startsAfter(code) != tc.deferred:
					t.Errorf("%s: out's start after the loop: %v, want %v:\n%s", set, !tc.deferred, tc.deferred, code)
				}
			}
			runBatchOn(t, s, tc.k.Params(), args, map[string][]float32{"out": want}, nx, vs, ps)
		})
	}
}

// TestSpecialFunctions: ftz can act on kernels that call rsqrt or divide
// floats, not on one of products and sums.
func TestSpecialFunctions(t *testing.T) {
	div := hpl.MustKernel("div", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		k.Compute(func() { k.Set(out.At(hpl.Idx), a.At(hpl.Idx).Div(3.0)) })
	})
	rs := hpl.MustKernel("rs", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		k.Compute(func() { k.Set(out.At(hpl.Idx), hpl.Rsqrt(a.At(hpl.Idx))) })
	})
	const nx, n = 64, 8
	for _, tc := range []struct {
		k    *hpl.Kernel
		args []any
		want bool
	}{
		{facOutput, []any{hpl.NewArray(hpl.Float32, nx), hpl.NewArray(hpl.Float32, nx, n), hpl.NewArray(hpl.Float32, nx, n), hpl.NewArray(hpl.Float32, n), hpl.NewArray(hpl.Float32, n), int32(n), float32(1)}, false},
		{div, []any{hpl.NewArray(hpl.Float32, nx), hpl.NewArray(hpl.Float32, nx)}, true},
		{rs, []any{hpl.NewArray(hpl.Float32, nx), hpl.NewArray(hpl.Float32, nx)}, true},
	} {
		sk, err := hpl.Specialize(tc.k, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		prob := &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}}
		if got := transforms.SpecialFunctions(prob); got != tc.want {
			t.Errorf("%s: SpecialFunctions %v, want %v", tc.k.Name(), got, tc.want)
		}
		p, err := transforms.Complete(prob, map[transforms.Name]int{transforms.FTZ: 1})
		if err != nil {
			t.Fatal(err)
		}
		v, err := transforms.Apply(prob, p)
		if err != nil {
			t.Fatal(err)
		}
		if v.Kernel.Options != transforms.DenormsAreZero {
			t.Errorf("%s with ftz=1: the kernel's options %q", tc.k.Name(), v.Kernel.Options)
		}
	}
}
