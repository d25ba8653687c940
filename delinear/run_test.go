package delinear_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/delinear"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/opencl"
)

// DSL kernels written with linearized subscripts, as a C programmer
// would write them with the DSL.
var (
	dslMatMul = hpl.MustKernel("mxm_linear", func(k *hpl.K) {
		c := k.Array("c", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 1)
		b := k.Array("b", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		p := k.Scalar("p", hpl.Int32)
		i := k.Int("i")
		k.Compute(func() {
			acc := k.Float("acc", 0.0)
			k.For(i, 0, p, func() {
				k.AddTo(acc, a.At(hpl.Idy.Mul(p).Add(i)).Mul(b.At(i.Mul(n).Add(hpl.Idx))))
			})
			k.Set(c.At(hpl.Idy.Mul(n).Add(hpl.Idx)), acc)
		})
	})
	dslJacobi = hpl.MustKernel("jacobi_linear", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		in := k.Array("in", hpl.Float32, 1)
		nx := k.Scalar("nx", hpl.Int32)
		ny := k.Scalar("ny", hpl.Int32)
		k.Compute(func() {
			row := k.Int("row", hpl.Idy.Mul(nx))
			k.If(hpl.Idx.Gt(0).And(hpl.Idx.Lt(nx.Sub(1))).And(hpl.Idy.Gt(0)).And(hpl.Idy.Lt(ny.Sub(1))), func() {
				c := row.Add(hpl.Idx)
				k.Set(out.At(c), in.At(c.Sub(1)).Add(in.At(c.Add(1))).Add(in.At(c.Sub(nx))).Add(in.At(c.Add(nx))).Mul(float32(0.25)))
			})
		})
	})
)

// TestSameResults runs kernels as written and delinearized on the device,
// on the same random data, and compares every array: a delinearization
// never changes what a kernel computes. It also checks, for every
// work-item, that the delinearized subscripts stay within their extents.
func TestSameResults(t *testing.T) {
	cases := []struct {
		name    string
		kernel  *ast.Kernel
		global  []int
		scalars map[string]float64
		shapes  map[string][]int
	}{
		{"dsl matmul", dslMatMul.AST(), []int{16, 8}, map[string]float64{"n": 16, "p": 5}, nil},
		{"dsl jacobi", dslJacobi.AST(), []int{12, 10}, map[string]float64{"nx": 12, "ny": 10}, nil},
		{"constant strides", parse(t, `__kernel void g(__global float *p, __global float *q) {
				int i = get_global_id(0);
				q[2*i] = p[4*i] + p[4*i + 3];
				q[2*i + 1] = p[4*i + 1];
			}`), []int{9}, map[string]float64{}, nil},
		{"offsets in the outer dimension", parse(t, `__kernel void g(__global float *p) {
				int i = get_global_id(0);
				p[2*i] = p[2*i + 2] + p[2*i + 3];
			}`), []int{7}, map[string]float64{}, nil},
		{"triangular", parse(t, `__kernel void g(__global float *a, int n) {
				int i = get_global_id(0);
				if (i < n) for (int j = 0; j < i; j++) a[i*n + j] += a[j*n + i];
			}`), []int{8}, map[string]float64{"n": 6}, nil},
		{"else branch", parse(t, `__kernel void g(__global float *a, __global float *b, int n) {
				int i = get_global_id(0);
				for (int k = 0; k < 2*n; k++) { if (k >= n) { b[i] += 1.0f; } else { a[i*n + k] = (float)k; } }
			}`), []int{5}, map[string]float64{"n": 3}, nil},
		{"private ints", parse(t, `__kernel void g(__global float *x, __global const float *y, int nx, int ny) {
				int i = get_global_id(0), j = get_global_id(1), l = get_global_id(2);
				int plane = l * ny;
				int c = (plane + j) * nx + i;
				x[c] = y[c] * 2.0f + (float)c;
			}`), []int{4, 3, 2}, map[string]float64{"nx": 4, "ny": 3}, nil},
		{"a shape of another rank", parse(t, `__kernel void g(__global float *a, int n) {
				int i = get_global_id(0), j = get_global_id(1), l = get_global_id(2);
				if (i < 4 && j < 3 && l < 2) a[l*n + j*4 + i] = (float)(i + 10*j + 100*l);
			}`), []int{4, 3, 2}, map[string]float64{"n": 12}, map[string][]int{"a": {2, 3, 4}}},
	}
	// Every kernel, as written and delinearized, goes into one program:
	// one build.
	type run struct {
		name      string
		orig, del *ast.Kernel
		want, got []any
		global    []int
	}
	var runs []*run
	var src strings.Builder
	rng := rand.New(rand.NewPCG(3, 4))
	for i, c := range cases {
		values := map[string]int64{}
		for name, v := range c.scalars {
			values[name] = int64(v)
		}
		for d, g := range c.global {
			values[(&ast.Special{Kind: ast.GlobalSize, Dim: d}).Name()] = int64(g)
		}
		r, err := delinear.Delinearize(c.kernel, delinear.Options{Values: values, Shapes: c.shapes})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		shapes, err := r.Shapes(values)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		orig, del := ast.Clone(c.kernel), ast.Clone(r.Kernel)
		orig.Name = fmt.Sprintf("k%d_written", i)
		del.Name = fmt.Sprintf("k%d_delinearized", i)
		flat := map[string][]int{}
		multi := false
		for _, p := range del.Params {
			if p.Rank > 0 {
				p.Extents = shapes[p.Name]
				n := 1
				for _, e := range shapes[p.Name] {
					n *= e
				}
				flat[p.Name] = []int{n}
				multi = multi || p.Rank > 1
			}
		}
		if !multi {
			t.Fatalf("%s: no array was delinearized:\n%s", c.name, describe(r))
		}
		for _, p := range orig.Params {
			if p.Rank > 0 {
				p.Extents = flat[p.Name]
			}
		}
		for _, k := range []*ast.Kernel{orig, del} {
			s, err := codegen.Source(k)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			src.WriteString(s)
		}
		b := &bounds{k: del, global: c.global, values: values}
		if b.run(); len(b.errs) > 0 {
			t.Errorf("%s: %s", c.name, strings.Join(b.errs, "\n"))
		}
		want, err := clc.Inputs(orig, flat, c.scalars, rng)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		runs = append(runs, &run{name: c.name, orig: orig, del: del, want: want, got: clc.Copy(want), global: c.global})
	}
	if testing.Short() {
		t.Skip("builds a program on the device")
	}
	s, err := opencl.Open("")
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	defer s.Close()
	prog, err := clc.Build(s, src.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, src.String())
	}
	defer prog.Close()
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			for _, x := range []struct {
				k    *ast.Kernel
				args []any
			}{{r.orig, r.want}, {r.del, r.got}} {
				if _, err := prog.Run(x.k.Name, x.args, r.global, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := clc.Compare(r.orig, r.want, r.got, 0); err != nil {
				t.Errorf("%v\n%s", err, ast.String(r.del))
			}
		})
	}
}
