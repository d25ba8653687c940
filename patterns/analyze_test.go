package patterns_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// sub is an expected subscript: dim matters for ID and IDCounter, loop
// (the counter's name) for Counter and IDCounter.
type sub struct {
	kind patterns.IndexKind
	dim  int
	loop string
	off  int64
}

func cst(c int64) sub                { return sub{kind: patterns.Const, off: c} }
func id(d int, off ...int64) sub     { return sub{kind: patterns.ID, dim: d, off: sum(off)} }
func ctr(l string, off ...int64) sub { return sub{kind: patterns.Counter, loop: l, off: sum(off)} }
func other() sub                     { return sub{kind: patterns.Other} }

func idc(d int, l string, off ...int64) sub {
	return sub{kind: patterns.IDCounter, dim: d, loop: l, off: sum(off)}
}

func sum(xs []int64) (s int64) {
	for _, x := range xs {
		s += x
	}
	return s
}

func (s sub) String() string {
	return fmt.Sprintf("%v dim %d loop %q %+d", s.kind, s.dim, s.loop, s.off)
}

// arr is an array's expected classification.
type arr struct {
	pattern patterns.Pattern
	access  string // "r", "w" or "rw"
}

// ref is the expected classification of every reference spelled text (as
// ast.ExprString prints it); access, if set, is that of the first one.
type ref struct {
	text    string
	pattern patterns.Pattern
	subs    []sub
	access  string
}

// checkArrays checks that in has exactly the arrays of want.
func checkArrays(t *testing.T, in *patterns.Info, want map[string]arr) {
	t.Helper()
	var names []string
	for _, a := range in.Arrays {
		names = append(names, a.Name)
		w, ok := want[a.Name]
		if !ok {
			t.Errorf("%s: unexpected array %s", in.Kernel, a.Name)
			continue
		}
		if a.Pattern != w.pattern || a.Access() != w.access {
			t.Errorf("%s: array %s is %v %s, want %v %s", in.Kernel, a.Name, a.Pattern, a.Access(), w.pattern, w.access)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("%s: arrays not sorted by name: %v", in.Kernel, names)
	}
	for name := range want {
		if in.Array(name) == nil {
			t.Errorf("%s: array %s missing", in.Kernel, name)
		}
	}
}

// checkRef checks every reference spelled w.text.
func checkRef(t *testing.T, in *patterns.Info, w ref) {
	t.Helper()
	found := 0
	for _, a := range in.Arrays {
		for _, r := range a.Refs {
			if ast.ExprString(r.Node) != w.text {
				continue
			}
			if r.Array != a.Name {
				t.Errorf("%s: %s is listed under array %s", in.Kernel, w.text, a.Name)
			}
			if found == 0 && w.access != "" && r.Access() != w.access {
				t.Errorf("%s: %s is %s, want %s", in.Kernel, w.text, r.Access(), w.access)
			}
			found++
			if r.Pattern != w.pattern {
				t.Errorf("%s: %s is %v, want %v (reason %q)", in.Kernel, w.text, r.Pattern, w.pattern, r.Reason)
			}
			if w.subs == nil {
				continue
			}
			if len(r.Subs) != len(w.subs) {
				t.Errorf("%s: %s has %d subscripts, want %d", in.Kernel, w.text, len(r.Subs), len(w.subs))
				continue
			}
			for i, s := range r.Subs {
				got := sub{kind: s.Kind, off: s.Offset}
				if s.Kind == patterns.ID || s.Kind == patterns.IDCounter {
					got.dim = s.Dim
				}
				if s.Kind == patterns.Counter || s.Kind == patterns.IDCounter {
					got.loop = in.Loops[s.Loop].Var
					if !slices.Contains(r.Loops, s.Loop) {
						t.Errorf("%s: %s subscript %d uses loop %d, which does not enclose it (%v)", in.Kernel, w.text, i, s.Loop, r.Loops)
					}
				}
				if s.Kind == patterns.Other {
					got.off = 0
				}
				if got != w.subs[i] {
					t.Errorf("%s: %s subscript %d (%s) is %s, want %s", in.Kernel, w.text, i, ast.ExprString(s.Expr), got, w.subs[i])
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("%s: no reference %s", in.Kernel, w.text)
	}
}

// TestBenchmarks pins the classification of the eight benchmarks: for
// MATMUL the paper's own (c SinglePat, a RowPat, b ColPat).
func TestBenchmarks(t *testing.T) {
	tests := []struct {
		name   string
		arrays map[string]arr
		refs   []ref
		loops  []string // counters, source order; each nested in the previous
	}{
		{
			name:   "conv1d",
			arrays: map[string]arr{"out": {patterns.SinglePat, "rw"}, "in": {patterns.RadiusPat, "r"}, "filt": {patterns.InnerPat, "r"}},
			refs: []ref{
				{"out[idx]", patterns.SinglePat, []sub{id(0)}, "w"},
				{"in[idx + j]", patterns.RadiusPat, []sub{idc(0, "j")}, "r"},
				{"filt[j]", patterns.InnerPat, []sub{ctr("j")}, "r"},
			},
			loops: []string{"j"},
		},
		{
			name:   "conv2d",
			arrays: map[string]arr{"out": {patterns.SinglePat, "rw"}, "in": {patterns.RadiusPat, "r"}, "filt": {patterns.InnerPat, "r"}},
			refs: []ref{
				{"out[idy][idx]", patterns.SinglePat, []sub{id(1), id(0)}, "w"},
				{"in[idy + i][idx + j]", patterns.RadiusPat, []sub{idc(1, "i"), idc(0, "j")}, "r"},
				{"filt[i][j]", patterns.InnerPat, []sub{ctr("i"), ctr("j")}, "r"},
			},
			loops: []string{"i", "j"},
		},
		{
			name:   "conv3d",
			arrays: map[string]arr{"out": {patterns.SinglePat, "rw"}, "in": {patterns.RadiusPat, "r"}, "filt": {patterns.InnerPat, "r"}},
			refs: []ref{
				{"out[idz][idy][idx]", patterns.SinglePat, []sub{id(2), id(1), id(0)}, "w"},
				{"in[idz + h][idy + i][idx + j]", patterns.RadiusPat, []sub{idc(2, "h"), idc(1, "i"), idc(0, "j")}, "r"},
				{"filt[h][i][j]", patterns.InnerPat, []sub{ctr("h"), ctr("i"), ctr("j")}, "r"},
			},
			loops: []string{"h", "i", "j"},
		},
		{
			name:   "dcs3d",
			arrays: map[string]arr{"energy": {patterns.SinglePat, "rw"}, "atoms": {patterns.InnerPat, "r"}},
			refs: []ref{
				{"energy[idz][idy][idx]", patterns.SinglePat, []sub{id(2), id(1), id(0)}, "w"},
				{"atoms[a][0]", patterns.InnerPat, []sub{ctr("a"), cst(0)}, "r"},
				{"atoms[a][3]", patterns.InnerPat, []sub{ctr("a"), cst(3)}, "r"},
			},
			loops: []string{"a"},
		},
		{
			name:   "matmul",
			arrays: map[string]arr{"c": {patterns.SinglePat, "rw"}, "a": {patterns.RowPat, "r"}, "b": {patterns.ColPat, "r"}},
			refs: []ref{
				{"c[idy][idx]", patterns.SinglePat, []sub{id(1), id(0)}, "w"},
				{"a[idy][k]", patterns.RowPat, []sub{id(1), ctr("k")}, "r"},
				{"b[k][idx]", patterns.ColPat, []sub{ctr("k"), id(0)}, "r"},
			},
			loops: []string{"k"},
		},
		{
			name: "nbody",
			arrays: map[string]arr{
				"pos": {patterns.InnerPat, "r"}, "vel": {patterns.SinglePat, "r"},
				"newpos": {patterns.SinglePat, "w"}, "newvel": {patterns.SinglePat, "w"},
			},
			refs: []ref{
				{"pos[j][0]", patterns.InnerPat, []sub{ctr("j"), cst(0)}, "r"},
				{"pos[j][3]", patterns.InnerPat, []sub{ctr("j"), cst(3)}, "r"},
				{"pos[idx][0]", patterns.SinglePat, []sub{id(0), cst(0)}, "r"},
				{"pos[idx][3]", patterns.SinglePat, []sub{id(0), cst(3)}, "r"},
				{"vel[idx][1]", patterns.SinglePat, []sub{id(0), cst(1)}, "r"},
				{"newpos[idx][2]", patterns.SinglePat, []sub{id(0), cst(2)}, "w"},
				{"newvel[idx][3]", patterns.SinglePat, []sub{id(0), cst(3)}, "w"},
			},
			loops: []string{"j"},
		},
		{
			name:   "syrk",
			arrays: map[string]arr{"c": {patterns.SinglePat, "rw"}, "a": {patterns.RowPat, "r"}},
			refs: []ref{
				{"c[idy][idx]", patterns.SinglePat, []sub{id(1), id(0)}, "r"}, // beta*c[idy][idx] is read first
				{"a[idy][k]", patterns.RowPat, []sub{id(1), ctr("k")}, "r"},
				{"a[idx][k]", patterns.RowPat, []sub{id(0), ctr("k")}, "r"},
			},
			loops: []string{"k"},
		},
		{
			name:   "syr2k",
			arrays: map[string]arr{"c": {patterns.SinglePat, "rw"}, "a": {patterns.RowPat, "r"}, "b": {patterns.RowPat, "r"}},
			refs: []ref{
				{"a[idy][k]", patterns.RowPat, []sub{id(1), ctr("k")}, "r"},
				{"a[idx][k]", patterns.RowPat, []sub{id(0), ctr("k")}, "r"},
				{"b[idy][k]", patterns.RowPat, []sub{id(1), ctr("k")}, "r"},
				{"b[idx][k]", patterns.RowPat, []sub{id(0), ctr("k")}, "r"},
			},
			loops: []string{"k"},
		},
	}
	if len(tests) != len(kernels.All()) {
		t.Fatalf("%d cases for %d benchmarks", len(tests), len(kernels.All()))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := kernels.Get(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			in := analyze(t, b.Kernel)
			if in.Kernel != b.Kernel.Name() {
				t.Errorf("Info.Kernel = %q, want %q", in.Kernel, b.Kernel.Name())
			}
			if !in.Supported() {
				t.Errorf("not supported: %v", in.Unsupported)
			}
			checkArrays(t, in, tc.arrays)
			for _, w := range tc.refs {
				checkRef(t, in, w)
			}
			// The array's pattern is the most complex of its references',
			// and its access the union of theirs.
			for _, a := range in.Arrays {
				var p patterns.Pattern
				var read, write bool
				for _, r := range a.Refs {
					p = max(p, r.Pattern)
					read, write = read || r.Read, write || r.Write
					if r.Reason != "" {
						t.Errorf("%s: unsupported: %s", ast.ExprString(r.Node), r.Reason)
					}
				}
				if a.Pattern != p || a.Read != read || a.Written != write || a.Reason != "" {
					t.Errorf("array %s: %v r=%v w=%v %q; its references give %v r=%v w=%v", a.Name, a.Pattern, a.Read, a.Written, a.Reason, p, read, write)
				}
			}
			if len(in.Loops) != len(tc.loops) || len(in.Loops) != b.Loops {
				t.Fatalf("%d loops, want %v (Benchmark.Loops %d)", len(in.Loops), tc.loops, b.Loops)
			}
			for i, l := range in.Loops {
				if l.Var != tc.loops[i] || l.Depth != i || l.Parent != i-1 || ast.ExprString(l.Lo) != "0" || ast.ExprString(l.Step) != "1" {
					t.Errorf("loop %d: %s from %s step %s, depth %d, parent %d; want %s from 0 step 1, depth %d, parent %d",
						i, l.Var, ast.ExprString(l.Lo), ast.ExprString(l.Step), l.Depth, l.Parent, tc.loops[i], i, i-1)
				}
				if patterns.LoopOf(in, l.For) != i {
					t.Errorf("LoopOf(loop %d) = %d", i, patterns.LoopOf(in, l.For))
				}
			}
		})
	}
}

// TestClassify covers the patterns the benchmarks do not show: DepthPat,
// RowPat and ColPat in three dimensions, NoPat, and constant offsets.
func TestClassify(t *testing.T) {
	tests := []struct {
		k      *hpl.Kernel
		arrays map[string]arr
		refs   []ref
	}{
		{
			k:      depth3d,
			arrays: map[string]arr{"out": {patterns.SinglePat, "rw"}, "x": {patterns.DepthPat, "r"}},
			refs:   []ref{{"x[k][idy][idx]", patterns.DepthPat, []sub{ctr("k"), id(1), id(0)}, "r"}},
		},
		{
			k:      rowcol3d,
			arrays: map[string]arr{"out": {patterns.SinglePat, "rw"}, "r": {patterns.RowPat, "r"}, "c": {patterns.ColPat, "r"}},
			refs: []ref{
				{"r[idz][idy][k]", patterns.RowPat, []sub{id(2), id(1), ctr("k")}, "r"},
				{"c[idz][k][idx]", patterns.ColPat, []sub{id(2), ctr("k"), id(0)}, "r"},
				{"out[idz][idy][idx]", patterns.SinglePat, []sub{id(2), id(1), id(0)}, "rw"},
			},
		},
		{
			k: nopat,
			arrays: map[string]arr{
				"out": {patterns.SinglePat, "rw"}, "s": {patterns.NoPat, "r"},
				"in": {patterns.RadiusPat, "r"}, "w": {patterns.InnerPat, "r"},
			},
			refs: []ref{
				{"s[0]", patterns.NoPat, []sub{cst(0)}, "r"},
				{"in[idx + 1]", patterns.SinglePat, []sub{id(0, 1)}, "r"},
				{"w[k + 2]", patterns.InnerPat, []sub{ctr("k", 2)}, "r"},
				{"in[idx - 1 + k]", patterns.RadiusPat, []sub{idc(0, "k", -1)}, "r"},
			},
		},
		{
			k:      guard,
			arrays: map[string]arr{"out": {patterns.SinglePat, "w"}, "a": {patterns.SinglePat, "r"}},
			refs:   []ref{{"a[idx]", patterns.SinglePat, []sub{id(0)}, "r"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.k.Name(), func(t *testing.T) {
			in := analyze(t, tc.k)
			if !in.Supported() {
				t.Errorf("not supported: %v", in.Unsupported)
			}
			checkArrays(t, in, tc.arrays)
			for _, w := range tc.refs {
				checkRef(t, in, w)
			}
		})
	}
}

// TestUnsupported covers every reason a reference or the kernel cannot be
// classified. The reason is reported on the reference and the array, and a
// kernel-level one in Info.Unsupported; the other arrays keep their
// patterns, and the kernel stays Supported when only an array is not.
func TestUnsupported(t *testing.T) {
	tests := []struct {
		k         *hpl.Kernel
		bad       []string          // the Unsupported arrays
		why       string            // in the reason of each bad array and its unsupported refs
		kernelWhy string            // in Info.Unsupported; "" for a Supported kernel
		ok        map[string]arr    // arrays still classified
		refs      []ref             // some references
		reasons   map[string]string // reference text -> phrase of its reason
	}{
		{
			k: indirect, bad: []string{"a"}, why: "indirect indexing through b[k]",
			ok:   map[string]arr{"b": {patterns.InnerPat, "r"}, "w": {patterns.InnerPat, "r"}, "out": {patterns.SinglePat, "rw"}},
			refs: []ref{{"a[b[k]]", patterns.Unsupported, []sub{other()}, "r"}, {"b[k]", patterns.InnerPat, []sub{ctr("k")}, "r"}},
		},
		{
			k: linearized, bad: []string{"a"}, why: "linearized multi-dimensional index (idy * n scales",
			ok:   map[string]arr{"out": {patterns.SinglePat, "w"}},
			refs: []ref{{"a[idy * n + idx]", patterns.Unsupported, []sub{other()}, "r"}},
		},
		{
			k: strided, bad: []string{"a"}, why: "the subscript k * 2 has the coefficient 2 (a linearized or strided index)",
			ok: map[string]arr{"out": {patterns.SinglePat, "rw"}},
		},
		{
			k: triangularID, bad: []string{"a"}, why: "loop k has the bound idx, which depends on the work-item (a triangular loop)",
			kernelWhy: "loop k has the bound idx, which depends on the work-item (a triangular loop)",
			ok:        map[string]arr{"out": {patterns.SinglePat, "rw"}},
			refs:      []ref{{"a[k]", patterns.Unsupported, []sub{ctr("k")}, "r"}},
		},
		{
			k: triangularLoop, bad: []string{"a"}, why: "loop j has the bound i, which depends on the enclosing loop i (a triangular loop)",
			kernelWhy: "loop j has the bound i, which depends on the enclosing loop i (a triangular loop)",
			ok:        map[string]arr{"out": {patterns.SinglePat, "rw"}},
			refs:      []ref{{"a[i][j]", patterns.Unsupported, []sub{ctr("i"), ctr("j")}, "r"}},
		},
		{
			k: stride2, bad: []string{"a"}, why: "loop k has the non-unit stride 2",
			kernelWhy: "loop k has the non-unit stride 2",
			ok:        map[string]arr{"out": {patterns.SinglePat, "rw"}},
			refs:      []ref{{"a[idy][k]", patterns.Unsupported, []sub{id(1), ctr("k")}, "r"}},
		},
		{
			k: condition, bad: []string{"a", "out"}, why: "it is under the data-dependent condition m[idx] > 0.0f",
			ok:   map[string]arr{"m": {patterns.SinglePat, "r"}},
			refs: []ref{{"a[idx]", patterns.Unsupported, []sub{id(0)}, "r"}, {"m[idx]", patterns.SinglePat, []sub{id(0)}, "r"}},
		},
		{
			k: conditionVar, bad: []string{"a", "out"}, why: "it is under the data-dependent condition v > 0.0f",
			ok: map[string]arr{"m": {patterns.SinglePat, "r"}},
		},
		{
			k: while, bad: []string{"a", "out"}, why: "it is inside a while loop",
			kernelWhy: "a while loop (while w < n) has no counter the analysis can follow",
			refs:      []ref{{"a[idx]", patterns.Unsupported, []sub{id(0)}, "r"}},
			// out[idx] = 0 before the loop is classified; the array is not.
			reasons: map[string]string{"out[idx]": "inside a while loop"},
		},
		{
			k: localBound, bad: []string{"a"}, why: "loop k has the bound m (= idx), which depends on the work-item (a triangular loop)",
			kernelWhy: "loop k has the bound m (= idx), which depends on the work-item (a triangular loop)",
			ok:        map[string]arr{"out": {patterns.SinglePat, "rw"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.k.Name(), func(t *testing.T) {
			in := analyze(t, tc.k)
			if got, want := in.Supported(), tc.kernelWhy == ""; got != want {
				t.Errorf("Supported() = %v, want %v (kernel reasons %q)", got, want, in.Unsupported)
			}
			if tc.kernelWhy != "" && !slices.ContainsFunc(in.Unsupported, func(s string) bool { return strings.Contains(s, tc.kernelWhy) }) {
				t.Errorf("kernel reasons %q lack %q", in.Unsupported, tc.kernelWhy)
			}
			if tc.kernelWhy == "" && len(in.Unsupported) > 0 {
				t.Errorf("kernel reasons %q; want none", in.Unsupported)
			}
			for _, name := range tc.bad {
				a := in.Array(name)
				if a == nil {
					t.Fatalf("no array %s", name)
				}
				if a.Pattern != patterns.Unsupported || !strings.Contains(a.Reason, tc.why) {
					t.Errorf("array %s: %v, reason %q; want Unsupported, %q", name, a.Pattern, a.Reason, tc.why)
				}
				for _, r := range a.Refs {
					if r.Pattern == patterns.Unsupported && !strings.Contains(r.Reason, tc.why) {
						t.Errorf("%s: reason %q, want %q", ast.ExprString(r.Node), r.Reason, tc.why)
					}
					if (r.Pattern == patterns.Unsupported) != (r.Reason != "") {
						t.Errorf("%s: pattern %v with reason %q", ast.ExprString(r.Node), r.Pattern, r.Reason)
					}
				}
			}
			for name, w := range tc.ok {
				a := in.Array(name)
				if a == nil || a.Pattern != w.pattern || a.Access() != w.access || a.Reason != "" {
					t.Errorf("array %s: %+v; want %v %s", name, a, w.pattern, w.access)
				}
			}
			for _, w := range tc.refs {
				checkRef(t, in, w)
			}
			for text, why := range tc.reasons {
				if !slices.ContainsFunc(refs(in, text), func(r *patterns.Ref) bool { return strings.Contains(r.Reason, why) }) {
					t.Errorf("no reference %s gives the reason %q", text, why)
				}
			}
		})
	}
}

// refs returns the references spelled text.
func refs(in *patterns.Info, text string) []*patterns.Ref {
	var out []*patterns.Ref
	for _, a := range in.Arrays {
		for _, r := range a.Refs {
			if ast.ExprString(r.Node) == text {
				out = append(out, r)
			}
		}
	}
	return out
}

// TestNodes checks that Ref.Node and Loop.For point into the analysed tree,
// which the passes rewrite by identity.
func TestNodes(t *testing.T) {
	k := kernels.MatMul.AST()
	in, err := patterns.Analyze(k)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[ast.Node]bool{}
	ast.Inspect(k, func(n ast.Node) bool {
		nodes[n] = true
		return true
	})
	for _, a := range in.Arrays {
		for _, r := range a.Refs {
			if !nodes[r.Node] {
				t.Errorf("%s: Node is not in the kernel", ast.ExprString(r.Node))
			}
			for i, s := range r.Subs {
				if s.Expr != r.Node.Indices[i] {
					t.Errorf("%s: subscript %d's Expr is not the node's", ast.ExprString(r.Node), i)
				}
			}
		}
	}
	for _, l := range in.Loops {
		if !nodes[l.For] {
			t.Errorf("loop %s: For is not in the kernel", l.Var)
		}
	}
	if patterns.LoopOf(in, &ast.For{}) != -1 {
		t.Error("LoopOf of a foreign loop is not -1")
	}
}

func TestNoCompute(t *testing.T) {
	k := kernels.MatMul.AST()
	var body []ast.Stmt
	for _, s := range k.Body.List {
		if _, ok := s.(*ast.Compute); !ok {
			body = append(body, s)
		}
	}
	k.Body.List = body
	if _, err := patterns.Analyze(k); !errors.Is(err, patterns.ErrNoCompute) || !strings.Contains(err.Error(), "mxm") {
		t.Errorf("Analyze without compute: %v; want ErrNoCompute naming the kernel", err)
	}
}
