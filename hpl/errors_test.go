package hpl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
)

// mxm is the paper's Figure 3.
var mxm = hpl.MustKernel("mxm", func(k *hpl.K) {
	c := k.Array("c", hpl.Float32, 2)
	a := k.Array("a", hpl.Float32, 2)
	b := k.Array("b", hpl.Float32, 2)
	limk := k.Scalar("limk", hpl.Int32)
	i := k.Int("k")
	k.Compute(func() {
		k.Set(c.At(hpl.Idy, hpl.Idx), 0.0)
		k.For(i, 0, limk, func() {
			k.AddTo(c.At(hpl.Idy, hpl.Idx), a.At(hpl.Idy, i).Mul(b.At(i, hpl.Idx)))
		})
	})
})

// rows sets the first column of each row: a 1D kernel on a 2D array.
var rows = hpl.MustKernel("rows", func(k *hpl.K) {
	m := k.Array("m", hpl.Float32, 2)
	k.Compute(func() { k.Set(m.At(hpl.Idx, 0), 1.0) })
})

// wantError checks that err is an *hpl.Error naming the kernel and
// containing every fragment.
func wantError(t *testing.T, err error, kernel string, fragments ...string) {
	t.Helper()
	var he *hpl.Error
	if !errors.As(err, &he) {
		t.Fatalf("got %v (%T), want an *hpl.Error", err, err)
	}
	if he.Kernel != kernel || !strings.HasPrefix(err.Error(), "hpl: kernel "+kernel+": ") {
		t.Errorf("error %q does not name kernel %s", err, kernel)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not say %q", err, f)
		}
	}
}

// The DSL mistakes of the issue, raised when the kernel is built.
func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      func(k *hpl.K)
		fragments []string
	}{
		{"subscripts", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 2)
			k.Compute(func() { k.Set(c.At(hpl.Idx), 1.0) })
		}, []string{"array c has 2 dimension(s) but is indexed with 1 subscript(s)"}},
		{"scope", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 1)
			n := k.Scalar("n", hpl.Int32)
			i := k.Int("i")
			var t hpl.Var
			k.Compute(func() {
				k.For(i, 0, n, func() { t = k.Float("t", 1.0) })
				k.Set(c.At(hpl.Idx), t)
			})
		}, []string{"t is used outside its scope"}},
		{"other kernel's variable", func(k *hpl.K) {
			var leaked hpl.Var
			hpl.MustKernel("other", func(k *hpl.K) {
				x := k.Array("x", hpl.Float32, 1)
				leaked = k.Float("q", 1.0)
				k.Compute(func() { k.Set(x.At(hpl.Idx), leaked) })
			})
			c := k.Array("c", hpl.Float32, 1)
			k.Compute(func() { k.Set(c.At(hpl.Idx), leaked) })
		}, []string{"q is not declared in this kernel"}},
		{"no compute", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 1)
			k.Set(c.At(hpl.Idx), 1.0)
		}, []string{"no Compute section"}},
		{"nested compute", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 1)
			k.Compute(func() {
				k.Compute(func() { k.Set(c.At(hpl.Idx), 1.0) })
			})
		}, []string{"Compute sections cannot be nested"}},
		{"two computes", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 1)
			k.Compute(func() { k.Set(c.At(hpl.Idx), 1.0) })
			k.Compute(func() { k.Set(c.At(hpl.Idx), 2.0) })
		}, []string{"2 Compute sections"}},
		{"compute in loop", func(k *hpl.K) {
			c := k.Array("c", hpl.Float32, 1)
			n := k.Scalar("n", hpl.Int32)
			i := k.Int("i")
			k.For(i, 0, n, func() {
				k.Compute(func() { k.Set(c.At(i), 1.0) })
			})
		}, []string{"top level"}},
		{"panic", func(k *hpl.K) {
			var m map[string]int
			m["x"] = 1
		}, []string{"panic while building"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := hpl.NewKernel("bad", tc.body)
			if k != nil {
				t.Fatal("NewKernel returned a kernel with an error")
			}
			wantError(t, err, "bad", tc.fragments...)
		})
	}
}

// The Eval mistakes of the issue, raised before any device is involved.
func TestEvalErrors(t *testing.T) {
	c := hpl.NewArray(hpl.Float32, 32, 64)
	a := hpl.NewArray(hpl.Float32, 32, 8)
	b := hpl.NewArray(hpl.Float32, 8, 64)
	a64 := hpl.NewArray(hpl.Float64, 32, 8)
	v := hpl.NewArray(hpl.Float32, 256)
	for _, tc := range []struct {
		name      string
		eval      *hpl.Evaluation
		args      []any
		fragments []string
	}{
		{"too few", hpl.Eval(mxm), []any{c, a, b},
			[]string{"3 argument(s) given, the kernel takes 4: (float32 c[][], float32 a[][], float32 b[][], int32 limk)"}},
		{"too many", hpl.Eval(mxm), []any{c, a, b, 8, 9}, []string{"5 argument(s) given, the kernel takes 4"}},
		{"scalar for array", hpl.Eval(mxm), []any{c, 3, b, 8}, []string{"argument 2 (a) is a 2-dimensional float32 array; got int 3"}},
		{"nil array", hpl.Eval(mxm), []any{c, (*hpl.Array)(nil), b, 8}, []string{"argument 2 (a)", "a nil *Array"}},
		{"element type", hpl.Eval(mxm), []any{c, a64, b, 8}, []string{"argument 2 (a) is an array of float32; got float64[32][8]"}},
		{"rank", hpl.Eval(mxm), []any{c, v, b, 8}, []string{"argument 2 (a) has 2 dimension(s); got float32[256]"}},
		{"array for scalar", hpl.Eval(mxm), []any{c, a, b, v}, []string{"argument 4 (limk): a scalar int32; got the array float32[256]"}},
		{"float for int", hpl.Eval(mxm), []any{c, a, b, 8.5}, []string{"argument 4 (limk): an int32; got the float64 8.5"}},
		{"string for int", hpl.Eval(mxm), []any{c, a, b, "8"}, []string{"argument 4 (limk): a scalar int32; got string"}},
		{"int too big", hpl.Eval(mxm), []any{c, a, b, int64(1) << 40}, []string{"does not fit in int32"}},
		{"global count", hpl.Eval(mxm).Global(64), []any{c, a, b, 8}, []string{"global size [64] has 1 dimension(s), the kernel uses 2 (idx, idy)"}},
		{"global zero", hpl.Eval(mxm).Global(64, 0), []any{c, a, b, 8}, []string{"size 0 in dimension y is not positive"}},
		{"global past the arrays", hpl.Eval(mxm).Global(65, 32), []any{c, a, b, 8},
			[]string{"c[idy][idx] reaches c with subscript 2 = 64 (at idx = 64; global size [65 32]), outside the 64 element(s) of c along its dimension 2"}},
		{"loop past the arrays", hpl.Eval(mxm), []any{c, a, b, 9}, []string{"a[idy][k] reaches a with subscript 2 = 8 (at k = 8"}},
		{"global 2^31", hpl.Eval(mxm).Global(1<<31, 32), []any{c, a, b, 8}, []string{"size 2147483648 in dimension x exceeds the largest supported, 2^31-1"}},
		{"local count", hpl.Eval(mxm).Global(64, 32).Local(8), []any{c, a, b, 8}, []string{"local size [8] has 1 dimension(s)"}},
		{"local divides", hpl.Eval(mxm).Global(64, 32).Local(8, 5), []any{c, a, b, 8},
			[]string{"the local size 5 does not divide the global size 32 in dimension y"}},
		{"local zero", hpl.Eval(mxm).Global(64, 32).Local(0, 4), []any{c, a, b, 8}, []string{"size 0 in dimension x is not positive"}},
		{"default global", hpl.Eval(rows), []any{c}, []string{"no global size: call Global with 1 size", "float32[32][64], has 2 dimension(s)"}},
		{"nil kernel", hpl.Eval(nil), []any{c}, []string{"Eval of a nil kernel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kernel := "mxm"
			switch tc.name {
			case "nil kernel":
				kernel = "?"
			case "default global":
				kernel = "rows"
			}
			wantError(t, tc.eval.Run(tc.args...), kernel, tc.fragments...)
		})
	}
}

func TestVariantMismatch(t *testing.T) {
	other := hpl.MustKernel("other", func(k *hpl.K) {
		c := k.Array("c", hpl.Float32, 2)
		k.Compute(func() { k.Set(c.At(hpl.Idy, hpl.Idx), 1.0) })
	})
	c := hpl.NewArray(hpl.Float32, 4, 4)
	_, err := hpl.Eval(mxm).Variant(other.AST()).Specialize(c, c, c, 4)
	wantError(t, err, "mxm", "the variant does not match the kernel: 1 parameters, the kernel has 4")

	v, err := hpl.Specialize(mxm, c, c, c, 4)
	if err != nil {
		t.Fatal(err)
	}
	big := hpl.NewArray(hpl.Float32, 8, 8)
	_, err = hpl.Eval(mxm).Variant(v).Specialize(big, big, big, 8)
	wantError(t, err, "mxm", "argument 1 (c): the variant was specialized for extents [4 4]; got float32[8][8]")
}

func TestSpecialize(t *testing.T) {
	c := hpl.NewArray(hpl.Float32, 32, 64)
	a := hpl.NewArray(hpl.Float32, 32, 8)
	b := hpl.NewArray(hpl.Float32, 8, 64)
	k, err := hpl.Eval(mxm).Specialize(c, a, b, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]int{{32, 64}, {32, 8}, {8, 64}, nil} {
		if got := k.Params[i].Extents; len(got) != len(want) || len(want) > 0 && (got[0] != want[0] || got[1] != want[1]) {
			t.Errorf("param %s extents %v, want %v", k.Params[i].Name, got, want)
		}
	}
	if mxm.AST().Params[0].Extents != nil {
		t.Error("Specialize changed the kernel")
	}
	// Any Go integer converts to an int32 argument, any number to a float.
	for _, x := range []any{8, int32(8), int64(8), uint8(8)} {
		if _, err := hpl.Specialize(mxm, c, a, b, x); err != nil {
			t.Errorf("limk = %T: %v", x, err)
		}
	}
	src, err := hpl.Eval(mxm).Source(c, a, b, 8)
	if err != nil || !strings.Contains(src, "c[idy * 64 + idx] += a[idy * 8 + k] * b[k * 64 + idx];") {
		t.Errorf("Source = %q, %v", src, err)
	}
}

// TestFromAST makes kernels of syntax trees: a copy of a well-formed one,
// and errors for a tree without one top-level compute section, a bad
// name or an array specialized already.
func TestFromAST(t *testing.T) {
	k, err := hpl.FromAST(mxm.AST())
	if err != nil {
		t.Fatal(err)
	}
	if ast.Hash(k.AST()) != ast.Hash(mxm.AST()) || k.Name() != "mxm" {
		t.Errorf("FromAST(mxm.AST()) is another kernel:\n%s", ast.String(k.AST()))
	}
	noCompute := mxm.AST()
	noCompute.Body = noCompute.Body.List[len(noCompute.Body.List)-1].(*ast.Compute).Body
	badName := mxm.AST()
	badName.Name = "2mxm"
	specialized := mxm.AST()
	specialized.Params[0].Extents = []int{4, 4}
	for _, c := range []struct {
		k    *ast.Kernel
		want string
	}{
		{nil, "FromAST of a nil kernel"},
		{noCompute, "the kernel has 0 compute sections"},
		{badName, "a kernel name must be a C identifier"},
		{specialized, "parameter c: want a scalar or an array of 1 to 3 dimensions without extents"},
	} {
		if _, err := hpl.FromAST(c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromAST: error %v, want %q", err, c.want)
		}
	}
}
