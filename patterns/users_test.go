package patterns_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// The tests of this file cover the shapes of kernels users write (issue
// 16): a bounds guard, int arguments and private ints in subscripts, data
// conditions with the array on either side, stencils, triangular loops.

// TestGuard checks that a bounds guard around the work is recorded, with
// its condition in ids and arguments, and that the loops and references
// under it are classified as if it were not there.
func TestGuard(t *testing.T) {
	for _, tc := range []struct {
		k     *hpl.Kernel
		set   patterns.Settings
		index int    // the guard's position in the compute section
		cond  string // Guard.Cond
	}{
		{guard, patterns.Settings{}, 0, "idx < n"},
		{kernels.MatMulGuard, patterns.Settings{}, 0, "idx < nx && idy < ny"},
		{kernels.GSR, patterns.Settings{Ints: map[string]int{"k": 5}}, 1, "idx + k + 1 < m"},
	} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			k := tc.k.AST()
			in, err := tc.set.Analyze(k)
			if err != nil {
				t.Fatal(err)
			}
			g := in.Guard
			if g == nil {
				t.Fatalf("no guard found:\n%s", in)
			}
			list := k.Compute().Body.List
			if g.Index != tc.index || g.Index >= len(list) || list[g.Index] != ast.Stmt(g.If) {
				t.Errorf("guard at %d, not the statement %d of the compute section", g.Index, tc.index)
			}
			if got := ast.ExprString(g.Cond); got != tc.cond {
				t.Errorf("Guard.Cond = %s, want %s", got, tc.cond)
			}
			if !in.Supported() {
				t.Errorf("not supported: %v", in.Unsupported)
			}
			for _, a := range in.Arrays {
				if a.Pattern == patterns.Unsupported {
					t.Errorf("array %s: %s", a.Name, a.Reason)
				}
			}
		})
	}
	in := analyze(t, kernels.MatMulGuard)
	checkArrays(t, in, map[string]arr{"a": {patterns.RowPat, "r"}, "b": {patterns.ColPat, "r"}, "c": {patterns.SinglePat, "w"}})
	if len(in.Loops) != 1 || in.Loops[0].Var != "k" || in.Loops[0].Depth != 0 || in.Loops[0].Parent != -1 {
		t.Errorf("mxm_guard: loops %+v; want k at depth 0", in.Loops)
	}

	// Not a guard: a condition on data, an else branch, work after the if,
	// work before it, a condition on a local id, no if at all.
	after := hpl.MustKernel("after", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		k.Compute(func() {
			k.If(hpl.Idx.Lt(n), func() { k.Set(out.At(hpl.Idx), 1.0) })
			k.AddTo(out.At(hpl.Idx), 1.0)
		})
	})
	before := hpl.MustKernel("before", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		k.Compute(func() {
			v := k.Float("v", out.At(0))
			k.If(hpl.Idx.Lt(n), func() { k.Set(out.At(hpl.Idx), v) })
		})
	})
	local := hpl.MustKernel("local_guard", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		k.Compute(func() {
			k.If(hpl.Lidx.Lt(4), func() { k.Set(out.At(hpl.Idx), 1.0) })
		})
	})
	for _, k := range []*hpl.Kernel{condition, dataLeft, kernels.FDTDEy, kernels.CovarianceTri, after, before, local, kernels.MatMul} {
		if in := analyze(t, k); in.Guard != nil {
			t.Errorf("%s: guard %s found", k.Name(), ast.ExprString(in.Guard.Cond))
		}
	}
}

// TestScalarArguments checks that an int argument in a subscript is a
// constant of the problem when its value is given, and an unsupported
// reference naming the argument when it is not.
func TestScalarArguments(t *testing.T) {
	ints := patterns.Settings{Ints: map[string]int{"n": 40, "m": 24, "k": 5, "t": 3}}
	in := analyzeWith(t, kernels.GSR, ints)
	checkArrays(t, in, map[string]arr{"a": {patterns.ColPat, "r"}, "q": {patterns.InnerPat, "r"}, "r": {patterns.SinglePat, "rw"}})
	checkRef(t, in, ref{"q[i][k]", patterns.InnerPat, []sub{ctr("i"), cst(5)}, "r"})
	checkRef(t, in, ref{"a[i][j]", patterns.ColPat, []sub{ctr("i"), id(0, 6)}, "r"})
	checkRef(t, in, ref{"r[k][j]", patterns.SinglePat, []sub{cst(5), id(0, 6)}, "w"})
	for _, r := range refs(in, "r[k][j]") {
		for i, s := range r.Subs {
			if len(s.Scalars) != 1 || s.Scalars["k"] != 1 {
				t.Errorf("r[k][j] subscript %d: Scalars %v, want k:1", i, s.Scalars)
			}
		}
	}
	if len(in.Ints) != 1 || in.Ints["k"] != 5 {
		t.Errorf("Info.Ints = %v, want the one argument used in subscripts, k=5", in.Ints)
	}

	in = analyzeWith(t, kernels.FDTDEy, ints)
	checkRef(t, in, ref{"fict[t]", patterns.NoPat, []sub{cst(3)}, "r"})

	// Without values, the references name the argument.
	in = analyze(t, kernels.GSR)
	for _, name := range []string{"a", "q", "r"} {
		if a := in.Array(name); a.Pattern != patterns.Unsupported || !strings.Contains(a.Reason, "the int argument k, whose value the analysis was not given") {
			t.Errorf("gs_r without values: %s is %v (%q)", name, a.Pattern, a.Reason)
		}
	}

	// A linearized index stays one, whether n is known or not.
	for _, set := range []patterns.Settings{{}, {Ints: map[string]int{"n": 16}}} {
		in = analyzeWith(t, linearized, set)
		if a := in.Array("a"); a.Pattern != patterns.Unsupported || !strings.Contains(a.Reason, "linearized multi-dimensional index (idy * n scales") {
			t.Errorf("linearized with %v: a is %v (%q)", set.Ints, a.Pattern, a.Reason)
		}
	}
}

// TestPrivateInts checks that a private int set once from ids, counters and
// arguments stands for its value in subscripts, and that one set twice,
// used before it is set or after the loop that sets it does not.
func TestPrivateInts(t *testing.T) {
	in := analyze(t, privates)
	checkRef(t, in, ref{"out[j - 1]", patterns.SinglePat, []sub{id(0)}, "w"})
	checkRef(t, in, ref{"a[i][l]", patterns.RadiusPat, []sub{ctr("i"), idc(0, "i", 1)}, "r"})
	for text, why := range map[string]string{
		"a[u][j]": "the subscript depends on u, assigned in the compute section", // read before u = 2
		"a[v][w]": "the subscript depends on v, assigned in the compute section", // v is set in the loop, w twice
	} {
		rs := refs(in, text)
		if len(rs) != 1 || rs[0].Pattern != patterns.Unsupported || rs[0].Reason != why {
			t.Errorf("%s: %+v; want Unsupported: %s", text, rs, why)
		}
	}
	w := refs(in, "a[v][w]")[0].Subs[1]
	if w.Kind != patterns.Other {
		t.Errorf("a[v][w]: w, set twice, is followed: %+v", w)
	}
}

// TestDataCondition checks that a condition on data makes the references
// under it unsupported whichever side of the comparison the array is on.
func TestDataCondition(t *testing.T) {
	for _, k := range []*hpl.Kernel{dataLeft, dataRight} {
		in := analyze(t, k)
		for _, name := range []string{"a", "out"} {
			if a := in.Array(name); a.Pattern != patterns.Unsupported || !strings.Contains(a.Reason, "data-dependent condition") {
				t.Errorf("%s: %s is %v (%q); want Unsupported under the data-dependent condition", k.Name(), name, a.Pattern, a.Reason)
			}
		}
		if x := in.Array("x"); x.Pattern != patterns.SinglePat {
			t.Errorf("%s: x is %v, want SinglePat", k.Name(), x.Pattern)
		}
	}
}

// TestNeighbourhood checks that a stencil's reads at constant offsets
// around the same ids are RadiusPat with the halo they span, and that no
// benchmark array gets a halo.
func TestNeighbourhood(t *testing.T) {
	in := analyze(t, kernels.Stencil2D)
	checkArrays(t, in, map[string]arr{"in": {patterns.RadiusPat, "r"}, "out": {patterns.SinglePat, "w"}})
	checkRef(t, in, ref{"in[idy][idx + 1]", patterns.RadiusPat, []sub{id(1), id(0, 1)}, "r"})
	checkRef(t, in, ref{"in[idy + 1][idx + 1 + 1]", patterns.RadiusPat, []sub{id(1, 1), id(0, 2)}, "r"})
	if got, want := in.Array("in").Halo, []patterns.Span{{0, 2}, {0, 2}}; !slices.Equal(got, want) {
		t.Errorf("stencil2d: in has the halo %v, want %v", got, want)
	}
	in = analyze(t, kernels.FDTDEy)
	checkArrays(t, in, map[string]arr{"ey": {patterns.SinglePat, "rw"}, "hz": {patterns.RadiusPat, "r"}, "fict": {patterns.Unsupported, "r"}})
	if got, want := in.Array("hz").Halo, []patterns.Span{{-1, 0}, {0, 0}}; !slices.Equal(got, want) {
		t.Errorf("fdtd_ey: hz has the halo %v, want %v", got, want)
	}
	if in.Array("ey").Halo != nil {
		t.Errorf("fdtd_ey: ey (ey[0][idx] and ey[idy][idx], two shapes) has the halo %v", in.Array("ey").Halo)
	}
	for _, b := range kernels.All() {
		for _, a := range analyze(t, b.Kernel).Arrays {
			if a.Halo != nil {
				t.Errorf("%s: %s has the halo %v", b.Name, a.Name, a.Halo)
			}
		}
	}
}

// TestTriangular checks that, with Settings.Triangular, a loop whose bound
// is a global id or an enclosing counter plus a constant is accepted with
// that bound recorded, and the references that use its counter are
// classified; without it, the loop stays a kernel-level reason.
func TestTriangular(t *testing.T) {
	tri := patterns.Settings{Triangular: true}
	for _, tc := range []struct {
		k            *hpl.Kernel
		loop         int
		lower, upper *sub
		refs         []ref
	}{
		{k: triangularID, loop: 0, upper: &sub{kind: patterns.ID}, refs: []ref{{"a[k]", patterns.InnerPat, []sub{ctr("k")}, "r"}}},
		{k: localBound, loop: 0, upper: &sub{kind: patterns.ID}, refs: []ref{{"a[k]", patterns.InnerPat, []sub{ctr("k")}, "r"}}},
		{k: triangularLoop, loop: 1, upper: &sub{kind: patterns.Counter, loop: "i"}, refs: []ref{{"a[i][j]", patterns.InnerPat, []sub{ctr("i"), ctr("j")}, "r"}}},
		{k: kernels.CovarianceTri, loop: 0, lower: &sub{kind: patterns.ID}, refs: []ref{
			{"data[i][idx]", patterns.ColPat, []sub{ctr("i"), id(0)}, "r"},
			{"data[i][j2]", patterns.InnerPat, []sub{ctr("i"), ctr("j2")}, "r"},
			{"cov[idx][j2]", patterns.RowPat, []sub{id(0), ctr("j2")}, "w"},
			{"cov[j2][idx]", patterns.ColPat, []sub{ctr("j2"), id(0)}, "w"},
		}},
	} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			in := analyzeWith(t, tc.k, tri)
			if !in.Supported() {
				t.Fatalf("not supported: %v", in.Unsupported)
			}
			for i, l := range in.Loops {
				want := i == tc.loop
				if l.Triangular() != want {
					t.Errorf("loop %s: Triangular() = %v, want %v", l.Var, l.Triangular(), want)
				}
			}
			l := in.Loops[tc.loop]
			for _, b := range []struct {
				name      string
				got       *patterns.Subscript
				want      *sub
				threshold string
			}{{"Lower", l.Lower, tc.lower, ast.ExprString(l.Lo)}, {"Upper", l.Upper, tc.upper, ast.ExprString(l.Hi)}} {
				switch {
				case (b.got == nil) != (b.want == nil):
					t.Errorf("loop %s: %s = %+v, want %+v", l.Var, b.name, b.got, b.want)
				case b.got != nil:
					got := sub{kind: b.got.Kind, off: b.got.Offset}
					if b.got.Kind == patterns.Counter {
						got.loop = in.Loops[b.got.Loop].Var
					}
					if got != *b.want {
						t.Errorf("loop %s: %s (%s) is %s, want %s", l.Var, b.name, b.threshold, got, *b.want)
					}
				}
			}
			for _, w := range tc.refs {
				checkRef(t, in, w)
			}
			if in := analyze(t, tc.k); in.Supported() {
				t.Error("without Settings.Triangular the kernel is supported")
			}
		})
	}
	// A bound the analysis cannot describe stays a reason.
	in := analyzeWith(t, triangularScaled, tri)
	if in.Supported() || !strings.Contains(in.Unsupported[0], "loop k has the bound idx * 2, which depends on the work-item") {
		t.Errorf("triangular_scaled: %v", in.Unsupported)
	}
}
