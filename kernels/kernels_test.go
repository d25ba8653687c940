package kernels_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

func TestAll(t *testing.T) {
	want := []string{"conv1d", "conv2d", "conv3d", "dcs3d", "matmul", "nbody", "syrk", "syr2k"}
	if got := strings.Join(kernels.Names(), " "); got != strings.Join(want, " ") {
		t.Fatalf("Names() = %s, want %s", got, want)
	}
	nonPow2 := false
	for _, b := range append(kernels.All(), kernels.Suite()...) {
		for _, c := range kernels.Classes {
			s, ok := b.Sizes[c]
			if !ok {
				t.Errorf("%s has no size %s", b.Name, c)
				continue
			}
			if err := b.Validate(s); err != nil {
				t.Errorf("%s %s: %v", b.Name, c, err)
			}
			for _, n := range append(append([]int(nil), s.N...), s.K...) {
				if c == "tiny" && n&(n-1) != 0 {
					nonPow2 = true
				}
			}
		}
		// The kernel's loops and dimensions are what the benchmark says (a
		// suite kernel may have a loop without a -k value, covariance-tri's
		// triangular one).
		if loops, dims := shape(b.Kernel); loops < b.Loops || b.Paper != "" && loops != b.Loops || dims != b.Dims {
			t.Errorf("%s: kernel has %d loops in %d dimensions, the benchmark says %d in %d", b.Name, loops, dims, b.Loops, b.Dims)
		}
	}
	if !nonPow2 {
		t.Error("no tiny size has an extent that is not a power of two")
	}
	if _, err := kernels.Get("gemm"); err == nil || !strings.Contains(err.Error(), "matmul") {
		t.Errorf("Get(gemm) = %v, want an error listing the names", err)
	}
}

// shape counts the loops of k and the dimensions its ids use.
func shape(k *hpl.Kernel) (loops, dims int) {
	ast.Inspect(k.AST().Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.For:
			loops++
		case *ast.Special:
			dims = max(dims, n.Dim+1)
		}
		return true
	})
	return loops, dims
}

func TestParseSize(t *testing.T) {
	mm, _ := kernels.Get("matmul")
	c2, _ := kernels.Get("conv2d")
	nb, _ := kernels.Get("nbody")
	sy, _ := kernels.Get("syrk")
	for _, tc := range []struct {
		b       *kernels.Benchmark
		class   string
		n, k    []int
		want    string // Size.String(), or an error substring
		wantErr bool
	}{
		{mm, "S", nil, nil, "n=1024x1024 k=1024", false},
		{mm, "", []int{64, 32}, []int{8}, "n=64x32 k=8", false},
		{mm, "", []int{64}, []int{8}, "n=64x64 k=8", false},
		{mm, "tiny", nil, []int{24}, "n=32x32 k=24", false},
		{c2, "", []int{100}, []int{5, 3}, "n=100x100 k=5x3", false},
		{nb, "", []int{500}, nil, "n=500 k=500", false},
		{mm, "XL", nil, nil, `no size class "XL"`, true},
		{mm, "", []int{1, 2, 3}, []int{8}, "-n takes 1 or 2 values, not 3", true},
		{mm, "", []int{64}, nil, "needs -k", true},
		{mm, "", nil, []int{8}, "needs a size", true},
		{mm, "", []int{64, 0}, []int{8}, "must be positive", true},
		{mm, "", []int{64}, []int{-1}, "must be positive", true},
		{c2, "", []int{64}, []int{1, 2, 3}, "-k takes 1 or 2 values, not 3", true},
		{nb, "", []int{500}, []int{400}, "must equal -n", true},
		{sy, "", []int{64, 32}, []int{8}, "square", true},
		{mm, "", []int{65536}, []int{65536}, "2^31-1", true},
	} {
		s, err := tc.b.ParseSize(tc.class, tc.n, tc.k)
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s ParseSize(%q, %v, %v) = %v, %v; want error containing %q", tc.b.Name, tc.class, tc.n, tc.k, s, err, tc.want)
		case !tc.wantErr && (err != nil || s.String() != tc.want):
			t.Errorf("%s ParseSize(%q, %v, %v) = %v, %v; want %s", tc.b.Name, tc.class, tc.n, tc.k, s, err, tc.want)
		}
	}
}

// TestInstances checks the arguments of every tiny instance against the
// kernel's parameters, and that the same seed makes the same data.
func TestInstances(t *testing.T) {
	for _, b := range kernels.All() {
		in, err := b.Instance(b.Sizes["tiny"], 7)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hpl.Specialize(b.Kernel, in.Args...); err != nil {
			t.Errorf("%s: %v", b.Name, err)
		}
		if len(in.Outputs) == 0 || in.FLOPs <= 0 || in.Bytes <= 0 {
			t.Errorf("%s: outputs %v, FLOPs %g, bytes %g", b.Name, in.Outputs, in.FLOPs, in.Bytes)
		}
		again, _ := b.Instance(b.Sizes["tiny"], 7)
		other, _ := b.Instance(b.Sizes["tiny"], 8)
		for i, a := range in.Args {
			if a, ok := a.(*hpl.Array); ok {
				x, y, z := a.ReadFloat32s(), again.Args[i].(*hpl.Array).ReadFloat32s(), other.Args[i].(*hpl.Array).ReadFloat32s()
				if !equal(x, y) {
					t.Errorf("%s: argument %d differs for the same seed", b.Name, i)
				}
				if equal(x, z) && !zero(x) {
					t.Errorf("%s: argument %d is the same for different seeds", b.Name, i)
				}
			}
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func zero(a []float32) bool {
	for _, v := range a {
		if v != 0 {
			return false
		}
	}
	return true
}

// TestReference compares the references with naive loops written from the
// kernels' definitions, for a few kernels.
func TestReference(t *testing.T) {
	t.Run("matmul", func(t *testing.T) {
		b, _ := kernels.Get("matmul")
		in, _ := b.Instance(kernels.Size{N: []int{5, 3}, K: []int{4}}, 1)
		a, bb := in.Array("a").ReadFloat32s(), in.Array("b").ReadFloat32s()
		got := in.Reference()["c"]
		for y := 0; y < 3; y++ {
			for x := 0; x < 5; x++ {
				var s float64
				for k := 0; k < 4; k++ {
					s += float64(a[y*4+k]) * float64(bb[k*5+x])
				}
				near(t, "c", got[y*5+x], s)
			}
		}
	})
	t.Run("conv2d", func(t *testing.T) {
		b, _ := kernels.Get("conv2d")
		in, _ := b.Instance(kernels.Size{N: []int{6, 4}, K: []int{3, 2}}, 1)
		src, f := in.Array("in").ReadFloat32s(), in.Array("filt").ReadFloat32s()
		if d := in.Array("in").Dims(); d[0] != 6 || d[1] != 7 {
			t.Fatalf("in is %v, want [6 7]", d)
		}
		got := in.Reference()["out"]
		for y := 0; y < 4; y++ {
			for x := 0; x < 6; x++ {
				var s float64
				for i := 0; i < 3; i++ {
					for j := 0; j < 2; j++ {
						s += float64(src[(y+i)*7+x+j]) * float64(f[i*2+j])
					}
				}
				near(t, "out", got[y*6+x], s)
			}
		}
	})
	t.Run("syr2k", func(t *testing.T) {
		b, _ := kernels.Get("syr2k")
		in, _ := b.Instance(kernels.Size{N: []int{4, 4}, K: []int{3}}, 1)
		c, a, bb := in.Array("c").ReadFloat32s(), in.Array("a").ReadFloat32s(), in.Array("b").ReadFloat32s()
		got := in.Reference()["c"]
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				s := 0.75 * float64(c[y*4+x])
				for k := 0; k < 3; k++ {
					s += 1.25*float64(a[y*3+k])*float64(bb[x*3+k]) + 1.25*float64(bb[y*3+k])*float64(a[x*3+k])
				}
				near(t, "c", got[y*4+x], s)
			}
		}
	})
	t.Run("dcs3d", func(t *testing.T) {
		b, _ := kernels.Get("dcs3d")
		in, _ := b.Instance(kernels.Size{N: []int{3, 2, 2}, K: []int{5}}, 1)
		at := in.Array("atoms").ReadFloat32s()
		got := in.Reference()["energy"]
		for z := 0; z < 2; z++ {
			for y := 0; y < 2; y++ {
				for x := 0; x < 3; x++ {
					var s float64
					for a := 0; a < 5; a++ {
						dx, dy, dz := 0.5*float64(x)-float64(at[4*a]), 0.5*float64(y)-float64(at[4*a+1]), 0.5*float64(z)-float64(at[4*a+2])
						r := math.Sqrt(dx*dx + dy*dy + dz*dz)
						if r < 0.2 {
							t.Fatalf("atom %d is %g from grid point (%d,%d,%d)", a, r, x, y, z)
						}
						s += float64(at[4*a+3]) / r
					}
					near(t, "energy", got[(z*2+y)*3+x], s)
				}
			}
		}
	})
}

func near(t *testing.T, name string, got float32, want float64) {
	t.Helper()
	if math.Abs(float64(got)-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: reference %g, want %g", name, got, want)
	}
}

// TestCheck writes the reference into the outputs on the host and checks
// that Check accepts it and rejects a changed element.
func TestCheck(t *testing.T) {
	for _, b := range kernels.All() {
		in, err := b.Instance(b.Sizes["tiny"], 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Check(0); err == nil {
			t.Errorf("%s: Check accepts untouched outputs", b.Name)
		}
		ref := in.Reference()
		for _, name := range in.Outputs {
			copy(in.Array(name).Float32s(), ref[name])
		}
		if err := in.Check(0); err != nil {
			t.Errorf("%s: Check rejects the reference: %v", b.Name, err)
		}
		if err := in.Check(10); err != nil {
			t.Errorf("%s: sampled Check rejects the reference: %v", b.Name, err)
		}
		out := in.Array(in.Outputs[0]).Float32s()
		out[len(out)-1] += 0.5
		err = in.Check(10)
		var ce *kernels.CheckError
		if !errors.As(err, &ce) || ce.Bad != 1 || ce.Worst[0].Array != in.Outputs[0] {
			t.Errorf("%s: Check after changing the last element = %v", b.Name, err)
		}
	}
}

func TestReset(t *testing.T) {
	b, _ := kernels.Get("syrk")
	in, _ := b.Instance(b.Sizes["tiny"], 1)
	c := in.Array("c")
	c0 := append([]float32(nil), c.ReadFloat32s()...)
	c.Float32s()[7] = 99
	in.Reset()
	if !equal(c.ReadFloat32s(), c0) {
		t.Error("Reset did not restore syrk's c")
	}
}
