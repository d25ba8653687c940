package patterns_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
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
	}{{triangularID, 1}, {triangularLoop, 1}, {stride2, 2}, {while, 1}, {localBound, 1}} {
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
