package transforms_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// The triangular nests of TestTriangularMatchesReference: out[x] sums
// a[i][j]*b[j][x] over a triangle of (i, j), bounded by the point or by the
// outer counter, from below or from above.
var (
	// triLowerID: j from x to n (as covariance-tri's loop).
	triLowerID = triangular("tri_lower_id", func(i, x, n hpl.Expr) (any, any) { return x, n })
	// triUpperID: j from 0 to x+1 (a prefix).
	triUpperID = triangular("tri_upper_id", func(i, x, n hpl.Expr) (any, any) { return 0, x.Add(1) })
	// triLowerCounter: j from i to n.
	triLowerCounter = triangular("tri_lower_counter", func(i, x, n hpl.Expr) (any, any) { return i, n })
	// triUpperCounter: j from 0 to i+1.
	triUpperCounter = triangular("tri_upper_counter", func(i, x, n hpl.Expr) (any, any) { return 0, i.Add(1) })
)

// triangular makes out[x] = sum over i < n, lo(i, x) <= j < hi(i, x) of
// a[i][j]*b[j][x], the loop over j inside the loop over i.
func triangular(name string, bounds func(i, x, n hpl.Expr) (lo, hi any)) *hpl.Kernel {
	return hpl.MustKernel(name, func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		b := k.Array("b", hpl.Float32, 2)
		n := k.Scalar("n", hpl.Int32)
		i, j := k.Int("i"), k.Int("j")
		k.Compute(func() {
			k.Set(out.At(hpl.Idx), 0.0)
			k.For(i, 0, n, func() {
				lo, hi := bounds(i.Expr, hpl.Idx, n.Expr)
				k.For(j, lo, hi, func() {
					k.AddTo(out.At(hpl.Idx), a.At(i, j).Mul(b.At(j, hpl.Idx)))
				})
			})
		})
	})
}

// triangularProblem is the problem of a triangular kernel over nx points
// with an n x n matrix a, for the golden tests ("test NAME").
func triangularProblem(k *hpl.Kernel, n, nx int) *transforms.Problem {
	args := []any{hpl.NewArray(hpl.Float32, nx), hpl.NewArray(hpl.Float32, n, n), hpl.NewArray(hpl.Float32, n, nx), int32(n)}
	sk, err := hpl.Specialize(k, args...)
	if err != nil {
		panic(err)
	}
	return &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
}

// testKernels are the kernels of this package's tests that golden files
// name ("test NAME").
var testKernels = map[string]func() *transforms.Problem{
	"tri_lower_id":      func() *transforms.Problem { return triangularProblem(triLowerID, 21, 19) },
	"tri_lower_counter": func() *transforms.Problem { return triangularProblem(triLowerCounter, 21, 19) },
	"acc_private":       func() *transforms.Problem { return accProblem(accPrivate, 16, 8) },
	"acc_strided":       func() *transforms.Problem { return accProblem(accStrided, 16, 8) },
	"acc_temp":          func() *transforms.Problem { return accProblem(accTemp, 16, 8) },
	"split_max":         func() *transforms.Problem { return splitProblem(splitMax, 16, 8) },
}

// TestTriangularMatchesReference runs random legal settings of triangular
// nests (a loop bounded by the point's id or by the enclosing loop's
// counter, from below or above) on the OpenCL device and compares them
// with a Go reference: tiles over the work-group's range, element loops
// clipped per work-item, guarded points, staged tiles.
func TestTriangularMatchesReference(t *testing.T) {
	const n, nx = 21, 19 // n x n matrix a, b of n rows of nx (< n: j < x+1 stays in a)
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	per := 25
	if testing.Short() {
		per = 4
	}
	for _, tc := range []struct {
		k      *hpl.Kernel
		bounds func(i, x int) (int, int)
	}{
		{triLowerID, func(i, x int) (int, int) { return x, n }},
		{triUpperID, func(i, x int) (int, int) { return 0, x + 1 }},
		{triLowerCounter, func(i, x int) (int, int) { return i, n }},
		{triUpperCounter, func(i, x int) (int, int) { return 0, i + 1 }},
	} {
		t.Run(tc.k.Name(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(len(tc.k.Name()))))
			a, b := hpl.NewArray(hpl.Float32, n, n), hpl.NewArray(hpl.Float32, n, nx)
			for i := range a.Float32s() {
				a.Float32s()[i] = r.Float32()*2 - 1
			}
			for i := range b.Float32s() {
				b.Float32s()[i] = r.Float32()*2 - 1
			}
			av, bv := a.ReadFloat32s(), b.ReadFloat32s()
			want := make([]float32, nx)
			for x := range want {
				var sum float64
				for i := 0; i < n; i++ {
					lo, hi := tc.bounds(i, x)
					for j := lo; j < hi; j++ {
						sum += float64(av[i*n+j]) * float64(bv[j*nx+x])
					}
				}
				want[x] = float32(sum)
			}
			out := hpl.NewArray(hpl.Float32, nx)
			args := []any{out, a, b, int32(n)}
			k, err := hpl.Specialize(tc.k, args...)
			if err != nil {
				t.Fatal(err)
			}
			prob := &transforms.Problem{Kernel: k, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 256, LocalMem: 32 << 10}
			if err := prob.Analyze(); err != nil {
				t.Fatal(err)
			}
			if len(prob.Info.Unsupported) > 0 {
				t.Fatalf("unsupported: %v", prob.Info.Unsupported)
			}
			size := []int{nx}
			var batch []*transforms.Variant
			var settings []transforms.Params
			for tries := 0; len(batch) < per && tries < 100*per; tries++ {
				p := randomParams(r, kernels.Size{N: size, K: []int{n, n}})
				v, err := transforms.ApplyChecked(prob, p)
				if errors.Is(err, transforms.ErrIllegal) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				batch, settings = append(batch, v), append(settings, p)
			}
			runBatchOn(t, s, tc.k.Params(), args, map[string][]float32{"out": want}, size, batch, settings)
			run := len(batch)
			if run < per {
				t.Errorf("only %d legal settings found, want %d", run, per)
			}
		})
	}
}
