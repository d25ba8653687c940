package transforms_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/transforms"
)

// stepped is a host loop's kernel: a time step t used only in arithmetic,
// a loop bound n, and a float scalar.
var stepped = hpl.MustKernel("stepped", func(k *hpl.K) {
	out := k.Array("out", hpl.Float32, 1)
	in := k.Array("in", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	step := k.Scalar("step", hpl.Int32)
	dt := k.Scalar("dt", hpl.Float32)
	j := k.Int("j")
	k.Compute(func() {
		k.Set(out.At(hpl.Idx), 0.0)
		k.For(j, 0, n, func() {
			k.AddTo(out.At(hpl.Idx), in.At(hpl.Idx.Add(j)).Mul(dt).Mul(step))
		})
	})
})

// TestBoundInts checks which int arguments the passes read: the compute
// loops' bounds of every benchmark, and not a time step used only in
// arithmetic, whose value leaves every variant's code unchanged.
func TestBoundInts(t *testing.T) {
	for _, b := range kernels.All() {
		prob := benchProblem(t, b, b.Sizes["tiny"])
		got, err := transforms.BoundInts(prob)
		if err != nil {
			t.Fatal(err)
		}
		var ints []string
		for n := range prob.Ints {
			ints = append(ints, n)
		}
		slices.Sort(ints)
		if !slices.Equal(got, ints) {
			t.Errorf("%s: BoundInts %v, want every int argument (all loop bounds): %v", b.Name, got, ints)
		}
	}

	problem := func(n, step int) *transforms.Problem {
		k := stepped.AST()
		for _, p := range k.Params {
			if p.Rank > 0 {
				p.Extents = []int{96} // room for n up to 32
			}
		}
		return &transforms.Problem{Kernel: k, Domain: []int{64}, Ints: map[string]int{"n": n, "step": step}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
	}
	got, err := transforms.BoundInts(problem(16, 1))
	if err != nil || !slices.Equal(got, []string{"n"}) {
		t.Fatalf("BoundInts = %v, %v; want [n]", got, err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	size := kernels.Size{N: []int{64}, K: []int{16}}
	legal, differs := 0, false
	for range 40 {
		p := randomParams(r, size)
		a, errA := applySource(problem(16, 1), p)
		b, errB := applySource(problem(16, 7), p)
		if a != b || errText(errA) != errText(errB) {
			t.Fatalf("%v: the time step changed the variant:\n%s%v\n---\n%s%v", p, a, errA, b, errB)
		}
		if errA == nil {
			legal++
			c, _ := applySource(problem(32, 1), p)
			differs = differs || c != a
		}
	}
	if legal == 0 || !differs {
		t.Errorf("%d legal settings; the loop bound changed some variant: %v", legal, differs)
	}
}
