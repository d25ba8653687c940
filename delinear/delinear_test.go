package delinear_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/delinear"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/patterns"
)

// parse reads an OpenCL C kernel for the tests.
func parse(t *testing.T, src string) *ast.Kernel {
	t.Helper()
	k, err := clc.Parse("k.cl", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return k
}

// describe renders each array of a result as name[e0][e1]..., with
// "linear: why" for one kept linear.
func describe(r *delinear.Result) string {
	var out []string
	for _, a := range r.Arrays {
		s := a.Name
		for _, e := range a.Extents {
			if e == nil {
				s += "[?]"
			} else {
				s += "[" + ast.ExprString(e) + "]"
			}
		}
		if a.Linear != "" {
			s += " linear: " + a.Linear
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// refs lists the references to arrays in the compute section as written.
func refs(k *ast.Kernel) string {
	var out []string
	seen := map[string]bool{}
	ast.Inspect(k.Body, func(n ast.Node) bool {
		if ix, ok := n.(*ast.Index); ok && k.Param(ix.Array) != nil {
			if s := ast.ExprString(ix); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		return true
	})
	return strings.Join(out, " ")
}

const matmul = `__kernel void mm(__global float *c, __global const float *a, __global const float *b, int M, int N, int K) {
    int row = get_global_id(1), col = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += a[row*K + k] * b[k*N + col];
    c[row*N + col] = acc;
}`

func TestDelinearize(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		values map[string]int64
		shapes map[string][]int
		refs   string // the references after delinearization
		arrays string // describe's output
	}{
		{"unguarded ids need the global size", matmul, nil, nil,
			"a[idy][k] b[k * N + idx] c[idy * N + idx]",
			"c[N * szy + szx - N] linear: cannot show that c[idy * N + idx] stays within its row: 0 <= idx < N (the values of the sizes may decide it)\n" +
				"a[szy][K]\n" +
				"b[K * N + szx - N] linear: cannot show that b[k * N + idx] stays within its row: 0 <= idx < N (the values of the sizes may decide it)"},
		{"the global size decides", matmul, map[string]int64{"M": 8, "N": 16, "K": 4, "szx": 16, "szy": 8}, nil,
			"a[idy][k] b[k][idx] c[idy][idx]",
			"c[szy][N]\na[szy][K]\nb[K][N]"},
		{"a global size larger than the row", matmul, map[string]int64{"N": 16, "K": 4, "szx": 32, "szy": 8}, nil,
			"a[idy][k] b[k * N + idx] c[idy * N + idx]",
			"c[N * szy + szx - N] linear: cannot show that c[idy * N + idx] stays within its row: 0 <= idx < N\n" +
				"a[szy][K]\n" +
				"b[K * N + szx - N] linear: cannot show that b[k * N + idx] stays within its row: 0 <= idx < N"},
		{"guards bound the ids",
			`__kernel void g(__global float *a, int n, int m) {
				int i = get_global_id(0), j = get_global_id(1);
				if (i < n && j < m) a[j*n + i] = 0.0f;
			}`, nil, nil,
			"a[idy][idx]", "a[m][n]"},
		{"an else branch bounds by the negated condition",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				for (int k = 0; k < 2*n; k++) { if (k >= n) { } else { a[i*n + k] = 1.0f; } }
			}`, nil, nil,
			"a[idx][k]", "a[szx][n]"},
		{"a guard before a loop does not hold in it",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				int k = 0;
				if (k < n) { for (k = 0; k < 2*n; k++) a[i*n + k] = 1.0f; }
			}`, nil, nil,
			"a[idx * n + k]", "a[n * szx + n] linear: cannot show that a[idx * n + k] stays within its row: 0 <= k < n"},
		{"private ints set once are followed",
			`__kernel void g(__global float *x, int nx, int ny, int nz) {
				int i = get_global_id(0), j = get_global_id(1), l = get_global_id(2);
				if (i >= nx || j >= ny || l >= nz) return;
				int plane = l * ny;
				int c = (plane + j) * nx + i;
				x[c] = 0.0f;
			}`, nil, nil,
			"x[idz][idy][idx]", "x[nz][ny][nx]"},
		{"private ints assigned again are not",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				int base = i * n;
				base += 0;
				for (int k = 0; k < n; k++) a[base + k] = 0.0f;
			}`, nil, nil,
			"a[base + k]", "a[?]"},
		{"strides that do not nest",
			`__kernel void g(__global float *a, int n, int m) {
				int i = get_global_id(0), j = get_global_id(1);
				a[i*n + j*m] = 0.0f;
			}`, nil, nil,
			"a[idx * n + idy * m]", "a[n * szx + m * szy - n - m + 1] linear: its strides m and n do not nest"},
		{"non-affine subscripts",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0), j = get_global_id(1);
				a[i*j + n] = 0.0f;
			}`, nil, nil,
			"a[idx * idy + n]", "a[?] linear: the subscript of a[idx * idy + n] is not affine in the ids and loop counters"},
		{"constant strides",
			`__kernel void g(__global float *p, __global float *q) {
				int i = get_global_id(0);
				q[2*i] = p[4*i] + p[4*i + 3];
				q[2*i + 1] = p[4*i + 1];
			}`, nil, nil,
			"q[idx][0] p[idx][0] p[idx][3] q[idx][1] p[idx][1]", "p[szx][4]\nq[szx][2]"},
		{"a constant stride too small for the offsets",
			`__kernel void g(__global float *p) {
				int i = get_global_id(0);
				p[2*i] = p[2*i + 2] + p[2*i + 3];
			}`, nil, nil,
			"p[idx][0] p[idx + 1][0] p[idx + 1][1]", "p[szx + 1][2]"},
		{"offsets along the outer dimension",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				for (int k = 0; k < n; k++) a[i*n + k] = a[(i + 1)*n + k] + a[i*n + n + k];
			}`, nil, nil,
			"a[idx][k] a[idx + 1][k]", "a[szx + 1][n]"},
		{"a triangular loop",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				if (i < n) for (int j = 0; j < i; j++) a[i*n + j] = a[j*n + i];
			}`, nil, nil,
			"a[idx][j] a[j][idx]", "a[n][n]"},
		{"a user shape keeps a linear",
			matmul, map[string]int64{"N": 16, "K": 4, "szx": 16, "szy": 8}, map[string][]int{"a": {32}},
			"a[idy * K + k] b[k][idx] c[idy][idx]", "c[szy][N]\na[32] linear: a one-dimensional shape was given\nb[K][N]"},
		{"a user shape sets the outer extent",
			matmul, map[string]int64{"N": 16, "K": 4, "szx": 16, "szy": 8}, map[string][]int{"c": {10, 16}},
			"a[idy][k] b[k][idx] c[idy][idx]", "c[10][16]\na[szy][K]\nb[K][N]"},
		{"a user shape of another rank",
			`__kernel void g(__global float *a, int n) {
				int i = get_global_id(0), j = get_global_id(1), l = get_global_id(2);
				if (i < 4 && j < 3 && l < 2) a[l*n + j*4 + i] = 0.0f;
			}`, map[string]int64{"n": 12}, map[string][]int{"a": {2, 3, 4}},
			"a[idz][idy][idx]", "a[2][3][4]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := parse(t, c.src)
			before := ast.String(k)
			r, err := delinear.Delinearize(k, delinear.Options{Values: c.values, Shapes: c.shapes})
			if err != nil {
				t.Fatal(err)
			}
			if ast.String(k) != before {
				t.Error("Delinearize changed its input")
			}
			if got := refs(r.Kernel); got != c.refs {
				t.Errorf("references\n  %s\nwant\n  %s", got, c.refs)
			}
			if got := describe(r); got != c.arrays {
				t.Errorf("arrays\n%s\nwant\n%s", got, c.arrays)
			}
			for _, p := range r.Kernel.Params {
				if a := r.Array(p.Name); a != nil && (a.Rank != p.Rank || len(a.Extents) != p.Rank) {
					t.Errorf("array %s: rank %d, %d extents, parameter rank %d", p.Name, a.Rank, len(a.Extents), p.Rank)
				}
			}
		})
	}
}

// TestCounterAssignedInBody checks a DSL kernel whose loop body assigns
// its counter: the counter has no range, and a private int computed from
// it before the assignment is not followed (b[t + idx] is not b[j][idx]).
func TestCounterAssignedInBody(t *testing.T) {
	k := hpl.MustKernel("skip", func(k *hpl.K) {
		a := k.Array("a", hpl.Float32, 1)
		b := k.Array("b", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		j := k.Int("j")
		k.Compute(func() {
			k.For(j, 0, n, func() {
				t := k.Int("t", j.Mul(n))
				k.AddTo(j, 1)
				k.Set(a.At(hpl.Idx.Mul(n).Add(j)), 1.0)
				k.Set(b.At(t.Add(hpl.Idx)), 2.0)
			})
		})
	})
	r, err := delinear.Delinearize(k.AST(), delinear.Options{Values: map[string]int64{"n": 8, "szx": 8}})
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Array("a"); a.Rank != 1 || a.Linear == "" {
		t.Errorf("a is %d-dimensional, want linear:\n%s", a.Rank, describe(r))
	}
	if got := refs(r.Kernel); got != "a[idx * n + j] b[t + idx]" {
		t.Errorf("references %s", got)
	}
}

// TestDSLPatterns checks that the paper's MATMUL written with the DSL on
// flat arrays, delinearized, gets the access-pattern table of the
// benchmark written on two-dimensional arrays.
func TestDSLPatterns(t *testing.T) {
	flat := hpl.MustKernel("mxm", func(k *hpl.K) {
		c := k.Array("c", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		b := k.Array("b", hpl.Float32, 1)
		limk := k.Scalar("limk", hpl.Int32)
		i := k.Int("k")
		k.Compute(func() {
			k.Set(c.At(hpl.Idy.Mul(hpl.Szx).Add(hpl.Idx)), 0.0)
			k.For(i, 0, limk, func() {
				k.AddTo(c.At(hpl.Idy.Mul(hpl.Szx).Add(hpl.Idx)), a.At(hpl.Idy.Mul(limk).Add(i)).Mul(b.At(i.Mul(hpl.Szx).Add(hpl.Idx))))
			})
		})
	})
	r, err := delinear.Delinearize(flat.AST(), delinear.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := patterns.Analyze(r.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	want, err := patterns.Analyze(kernels.MatMul.AST())
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("the flat kernel's table\n%s\nthe benchmark's\n%s", got, want)
	}
}
