package patterns_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/transforms"
)

// problem specializes k for a domain of n points along each of dims
// dimensions: every array has extent n along each of its dimensions and
// every int scalar is m.
func problem(k *hpl.Kernel, dims, n, m int) *transforms.Problem {
	ak := k.AST()
	ints := map[string]int{}
	for _, p := range ak.Params {
		if p.Rank == 0 {
			ints[p.Name] = m
			continue
		}
		p.Extents = slices.Repeat([]int{n}, p.Rank)
	}
	return &transforms.Problem{Kernel: ak, Domain: slices.Repeat([]int{n}, dims), Ints: ints, MaxWorkGroup: 1024, LocalMem: 48 << 10}
}

// apply applies to prob the baseline setting (one point per work-item)
// changed by the name=value pairs of params, and checks the invariants of a
// variant it makes.
func apply(t *testing.T, prob *transforms.Problem, params string) (*transforms.Variant, error) {
	t.Helper()
	p := transforms.Baseline(prob)
	if err := transforms.ParseParams(params, &p); err != nil {
		t.Fatal(err)
	}
	v, err := transforms.Apply(prob, p)
	if err == nil {
		if err := transforms.Check(v.Kernel, prob.LocalMem); err != nil {
			t.Fatalf("%s: %v", params, err)
		}
	}
	return v, err
}

// stagedArrays returns the arrays a variant holds in local memory.
func stagedArrays(v *transforms.Variant) []string {
	var out []string
	for _, s := range v.Staged {
		out = append(out, strings.TrimRight(strings.TrimPrefix(s, "l_"), "0123456789"))
	}
	return out
}

// TestTransformsSkipUnsupported checks that the passes leave an array the
// analysis cannot classify in global memory, untouched, while staging the
// kernel's other arrays.
func TestTransformsSkipUnsupported(t *testing.T) {
	prob := problem(indirect, 1, 64, 16)
	v, err := apply(t, prob, "lszx=16,tw0=8,lmem=1")
	if err != nil {
		t.Fatal(err)
	}
	if got := stagedArrays(v); !slices.Contains(got, "w") || !slices.Contains(got, "b") || slices.Contains(got, "a") {
		t.Errorf("lmem=1 stages %v (%v); want w and b, not the indirect a", got, v.Staged)
	}
	// a is still read from global memory through the (staged) index.
	gather := false
	ast.Inspect(v.Kernel, func(n ast.Node) bool {
		if ix, ok := n.(*ast.Index); ok && ix.Array == "a" {
			_, gather = ix.Indices[0].(*ast.Index)
		}
		return true
	})
	if !gather {
		t.Errorf("the variant has no a[...[...]] gather:\n%s", ast.String(v.Kernel))
	}

	// out is read and written at the point's own element: private memory
	// holds it, unless a data-dependent condition guards the access.
	v, err = apply(t, problem(kernels.Conv1D, 1, 64, 4), "lszx=16")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(v.Promoted, "out") {
		t.Errorf("conv1d: out is not promoted to private memory (%v)", v.Promoted)
	}
	cond := hpl.MustKernel("cond_acc", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		m := k.Array("m", hpl.Float32, 1)
		k.Compute(func() {
			k.If(m.At(hpl.Idx).Gt(0.0), func() {
				k.AddTo(out.At(hpl.Idx), m.At(hpl.Idx))
			})
		})
	})
	v, err = apply(t, problem(cond, 1, 64, 4), "lszx=16")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Promoted) > 0 {
		t.Errorf("out under a data-dependent condition is promoted: %v", v.Promoted)
	}
}

// TestTransformsSkipUnsupportedKernel checks that a kernel-level reason
// leaves the whole compute section untransformed: tiling and local memory
// are illegal settings; the single-point distribution and coarsening, which
// run the section as written once per point, stay legal.
func TestTransformsSkipUnsupportedKernel(t *testing.T) {
	for _, tc := range []struct {
		k    *hpl.Kernel
		dims int
	}{{stride2, 2}, {while, 1}} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			prob := problem(tc.k, tc.dims, 32, 8)
			for _, params := range []string{"tw0=4", "lmem=1"} {
				_, err := apply(t, prob, params)
				if !errors.Is(err, transforms.ErrIllegal) || !strings.Contains(err.Error(), "cannot be analysed") {
					t.Errorf("%s: %v; want an illegal setting: the compute section cannot be analysed", params, err)
				}
			}
			// Coarsening repeats the whole section for each point.
			for _, params := range []string{"", "bszx=2,szx=16,lszx=8"} {
				if _, err := apply(t, prob, params); err != nil {
					t.Errorf("%q: %v", params, err)
				}
			}
		})
	}
}

// TestTransformsTileTriangular checks that the passes take the loops the
// analysis accepts as triangular (a bound that is a global id or an
// enclosing loop's counter plus a constant, also through a private int):
// tiling, unrolling and, where an array is read along the loop, local
// memory are legal settings (package transforms runs them on the device).
func TestTransformsTileTriangular(t *testing.T) {
	for _, tc := range []struct {
		k      *hpl.Kernel
		params []string
	}{
		{triangularID, []string{"tw0=4", "uf=2", "tw0=4,lmem=1", "bszx=2,szx=16,lszx=8,tw0=4,lmem=1"}},
		{triangularLoop, []string{"tw0=4", "tw1=2", "uf=2"}},
		{localBound, []string{"tw0=4", "uf=2", "bszx=4,szx=8,lszx=8,tw0=4,interleave=1"}},
	} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			prob := problem(tc.k, 1, 32, 8)
			for _, params := range tc.params {
				if _, err := apply(t, prob, params); err != nil {
					t.Errorf("%s: %v", params, err)
				}
			}
		})
	}
}

// shifted reads through private ints: j = idx + 1 before the loop and
// l = k + j inside it, so a[l] is a[idx + k + 1] (RadiusPat) once the
// analysis follows them.
var shifted = hpl.MustKernel("shifted", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 1)
	a := k.Array("a", hpl.Float32, 1)
	w := k.Array("w", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	i := k.Int("k")
	k.Compute(func() {
		j := k.Int("j", hpl.Idx.Add(1))
		k.Set(out.At(hpl.Idx), 0.0)
		k.For(i, 0, n, func() {
			l := k.Int("l", i.Add(j))
			k.AddTo(out.At(hpl.Idx), a.At(l).Mul(w.At(i)))
		})
	})
})

// TestTransformsFollowPrivateInts runs variants of a kernel whose
// references go through private ints, now classified, with tiling, local
// memory, coarsening and unrolling, on the OpenCL device, and compares
// their output with the kernel as written.
func TestTransformsFollowPrivateInts(t *testing.T) {
	if _, err := hpl.Eval(shifted).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	const n, taps = 96, 12
	a, w := hpl.NewArray(hpl.Float32, n+taps), hpl.NewArray(hpl.Float32, taps)
	for i := range a.Float32s() {
		a.Float32s()[i] = float32(i%7) - 3
	}
	for i := range w.Float32s() {
		w.Float32s()[i] = float32(i%5) - 2
	}
	want := hpl.NewArray(hpl.Float32, n)
	if err := hpl.Eval(shifted).Global(n).Run(want, a, w, taps); err != nil {
		t.Fatal(err)
	}
	k, err := hpl.Specialize(shifted, want, a, w, taps)
	if err != nil {
		t.Fatal(err)
	}
	in, err := patterns.Analyze(k)
	if err != nil {
		t.Fatal(err)
	}
	if arr := in.Array("a"); arr.Pattern != patterns.RadiusPat {
		t.Fatalf("a is %v (%s), want RadiusPat", arr.Pattern, arr.Reason)
	}
	prob := &transforms.Problem{Kernel: k, Domain: []int{n}, Ints: map[string]int{"n": taps}, MaxWorkGroup: 256, LocalMem: 32 << 10}
	for _, params := range []string{"lszx=16", "lszx=16,tw0=4,lmem=1", "szx=48,lszx=16,bszx=2,tw0=6,lmem=1,uf=2", "szx=16,lszx=8,bszx=4,interleave=1,fullunroll=1,tw0=4,lmem=1,uf=4"} {
		v, err := apply(t, prob, params)
		if err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if params != "lszx=16" && !slices.Contains(stagedArrays(v), "a") {
			t.Errorf("%s: a is not staged (%v)", params, v.Staged)
		}
		got := hpl.NewArray(hpl.Float32, n)
		if err := hpl.Eval(shifted).Global(v.Global...).Local(v.Local...).Variant(v.Kernel).Run(got, a, w, taps); err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		if g, w := got.ReadFloat32s(), want.ReadFloat32s(); !slices.Equal(g, w) {
			t.Errorf("%s: the variant computes %v, the kernel %v", params, g[:8], w[:8])
		}
	}
}
