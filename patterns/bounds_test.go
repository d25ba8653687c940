package patterns_test

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/patterns"
)

// TestCheckBounds: a reference that every work-item makes is checked over
// the whole global domain and the loops' ranges, and one that provably
// leaves its array is an error naming it, the subscript's value and the
// domain (issue 18 #13: Global(200) over 100-element arrays ran, writing
// past them); guarded, data-dependent or unknown subscripts are not
// rejected.
func TestCheckBounds(t *testing.T) {
	kernel := func(body func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var)) *hpl.Kernel {
		return hpl.MustKernel("k", func(k *hpl.K) {
			x := k.Array("x", hpl.Float32, 1)
			m := k.Array("m", hpl.Float32, 2)
			n := k.Scalar("n", hpl.Int32)
			k.Compute(func() { body(k, x, m, n) })
		})
	}
	x100, m := hpl.NewArray(hpl.Float32, 100), hpl.NewArray(hpl.Float32, 8, 16) // m: 8 rows of 16
	for _, tc := range []struct {
		name   string
		body   func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var)
		global []int
		n      int
		want   string // "" for no error
	}{
		{"fits", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx), 1.0) }, []int{100}, 0, ""},
		{"global past the array", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx), 1.0) }, []int{200}, 0,
			"patterns: kernel k: x[idx] reaches x with its subscript = 199 (at idx = 199; global size [200]), outside the 100 element(s) of x"},
		{"one past", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Add(1)), 1.0) }, []int{100}, 0, "x[idx + 1] reaches x with its subscript = 100"},
		{"before the start", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Sub(1)), x.At(hpl.Idx)) }, []int{100}, 0, "x[idx - 1] reaches x with its subscript = -1 (at idx = 0"},
		{"read past", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(0), x.At(hpl.Idx.Mul(2))) }, []int{60}, 0, "x[idx * 2] reaches x with its subscript = 118"},
		{"constant", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Sub(hpl.Idx).Add(150)), 1.0) }, []int{10}, 0, "reaches x with its subscript = 150"},
		{"int argument", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Add(n)), 1.0) }, []int{90}, 11, "x[idx + n] reaches x with its subscript = 100"},
		{"int argument fits", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Add(n)), 1.0) }, []int{90}, 10, ""},
		{"global size", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Szx.Sub(hpl.Idx)), 1.0) }, []int{100}, 0, "x[szx - idx] reaches x with its subscript = 100 (at idx = 0"},
		{"second dimension", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(m.At(hpl.Idy, hpl.Idx), 1.0) }, []int{17, 8}, 0,
			"m[idy][idx] reaches m with subscript 2 = 16 (at idx = 16; global size [17 8]), outside the 16 element(s) of m along its dimension 2"},
		{"rows", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(m.At(hpl.Idy, hpl.Idx), 1.0) }, []int{16, 9}, 0, "subscript 1 = 8"},
		{"loop", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.For(j, 0, n, func() { k.AddTo(x.At(hpl.Idx), m.At(hpl.Idx, j)) })
		}, []int{8}, 17, "m[idx][j] reaches m with subscript 2 = 16 (at j = 16; global size [8])"},
		{"loop fits", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.For(j, 0, n, func() { k.AddTo(x.At(hpl.Idx), m.At(hpl.Idx, j)) })
		}, []int{8}, 16, ""},
		{"loop never runs", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.For(j, 5, n, func() { k.Set(x.At(j.Add(500)), 1.0) })
		}, []int{8}, 5, ""},
		{"stride", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.ForStep(j, 0, n, 3, func() { k.Set(x.At(j), 1.0) })
		}, []int{1}, 102, ""}, // j reaches 99
		{"stride past", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.ForStep(j, 0, n, 3, func() { k.Set(x.At(j), 1.0) })
		}, []int{1}, 103, "x[j] reaches x with its subscript = 102"},
		{"guard", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			k.If(hpl.Idx.Lt(n), func() { k.Set(x.At(hpl.Idx), 1.0) })
		}, []int{200}, 100, ""},
		{"while", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			k.While(x.At(0).Lt(0.0), func() { k.Set(x.At(hpl.Idx.Add(1000)), 1.0) })
		}, []int{10}, 0, ""},
		{"triangular loop", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			j := k.Int("j")
			k.For(j, hpl.Idx, n, func() { k.Set(x.At(j.Add(100)), 1.0) })
		}, []int{10}, 10, ""},
		{"private int", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) {
			i := k.Int("i", hpl.Idx.Add(500))
			k.Set(x.At(i), 1.0)
		}, []int{10}, 0, ""},
		{"indirect", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.ToInt(x.At(hpl.Idx))), 1.0) }, []int{100}, 0, ""},
		{"division", func(k *hpl.K, x, m hpl.ArrayVar, n hpl.Var) { k.Set(x.At(hpl.Idx.Div(2)), 1.0) }, []int{200}, 0, ""},
	} {
		kern, err := hpl.Specialize(kernel(tc.body), x100, m, tc.n)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err = patterns.CheckBounds(kern, tc.global, map[string]int{"n": tc.n})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
