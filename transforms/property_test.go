package transforms_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/transforms"
)

// problemOf specializes a benchmark instance for the transforms.
func problemOf(t testing.TB, in *kernels.Instance) *transforms.Problem {
	t.Helper()
	k, err := hpl.Specialize(in.Bench.Kernel, in.Args...)
	if err != nil {
		t.Fatal(err)
	}
	ints := map[string]int{}
	for i, p := range k.Params {
		if v, ok := in.Args[i].(int32); ok {
			ints[p.Name] = int(v)
		}
	}
	return &transforms.Problem{Kernel: k, Domain: in.Global, Ints: ints, MaxWorkGroup: 256, MaxWorkItems: [3]int{256, 256, 64}, LocalMem: 48 << 10}
}

// randomParams draws a setting, legal or not, biased towards the shapes
// the tuner explores: powers of two and a few odd values.
func randomParams(r *rand.Rand, dims int, loops []int) transforms.Params {
	var p transforms.Params
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	for d := 0; d < dims; d++ {
		n := 0
		p.Local[d] = pick(1, 2, 4, 8, 16)
		p.Block[d] = pick(1, 1, 2, 3, 4)
		_ = n
	}
	p.FullUnroll = r.IntN(2) == 0
	p.Interleave = r.IntN(2) == 0
	for i, l := range loops {
		p.Tile[i] = pick(0, 0, 1, 2, 3, 4, 8, l)
	}
	if len(loops) > 0 {
		p.Unroll = pick(1, 1, 2, 3, 4)
		p.LocalMem = r.IntN(2) == 0
	}
	return p
}

// settingsPerKernel is how many legal settings each kernel is checked with
// in each size; HPLOPT_PROPERTY_SETTINGS overrides it.
func settingsPerKernel() int {
	if n, err := strconv.Atoi(os.Getenv("HPLOPT_PROPERTY_SETTINGS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 8
	}
	return 110
}

// TestRandomSettingsMatchReference is the correctness bar of the passes:
// random legal settings of each of the eight kernels, at its tiny size and at
// an odd size that tiles and blocks do not divide, run on the OpenCL device
// and match the CPU reference.
func TestRandomSettingsMatchReference(t *testing.T) {
	perSize := settingsPerKernel()
	for _, b := range kernels.All() {
		t.Run(b.Name, func(t *testing.T) {
			sizes := []kernels.Size{b.Sizes["tiny"], oddSize(b.Sizes["tiny"])}
			r := rand.New(rand.NewPCG(uint64(len(b.Name)), 7))
			legal, illegal := 0, 0
			for si, size := range sizes {
				in, err := b.Instance(size, int64(si)+1)
				if err != nil {
					t.Fatal(err)
				}
				prob := problemOf(t, in)
				loops := loopLengths(t, prob, size)
				want := in.Reference()
				for tries := 0; legal < perSize*(si+1) && tries < 200*perSize; tries++ {
					p := randomParams(r, len(size.N), loops)
					// global sizes: every block once, or in two cyclic rounds
					for d := range size.N {
						blocks := (size.N[d] + p.Block[d] - 1) / p.Block[d]
						if r.IntN(3) == 0 {
							blocks = (blocks + 1) / 2
						}
						p.Global[d] = (blocks + p.Local[d] - 1) / p.Local[d] * p.Local[d]
					}
					v, err := transforms.Apply(prob, p)
					if errors.Is(err, transforms.ErrIllegal) {
						illegal++
						continue
					}
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					legal++
					if err := transforms.Check(v.Kernel, prob.LocalMem); err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					for _, name := range in.Outputs {
						clear(in.Array(name).Float32s())
					}
					if b.Name == "syrk" || b.Name == "syr2k" {
						in, _ = b.Instance(size, int64(si)+1) // c is read: start afresh
					}
					err = hpl.Eval(b.Kernel).Variant(v.Kernel).Global(v.Global...).Local(v.Local...).Run(in.Args...)
					if err != nil {
						t.Fatalf("%s %s: %v", size, p, err)
					}
					if err := in.Check(0); err != nil {
						src, _ := hpl.Eval(b.Kernel).Variant(v.Kernel).Source(in.Args...)
						t.Fatalf("%s %s: %v\n%s", size, p, err, src)
					}
					_ = want
				}
			}
			t.Logf("%d legal settings checked, %d illegal rejected", legal, illegal)
			if legal < perSize {
				t.Errorf("only %d legal settings found", legal)
			}
		})
	}
}

// oddSize grows every extent of s to an odd number that powers of two do
// not divide.
func oddSize(s kernels.Size) kernels.Size {
	out := kernels.Size{}
	for _, n := range s.N {
		out.N = append(out.N, n+n/4+3|1)
	}
	for _, k := range s.K {
		out.K = append(out.K, k+2|1)
	}
	return out
}

func loopLengths(t testing.TB, prob *transforms.Problem, s kernels.Size) []int {
	t.Helper()
	n, err := transforms.Loops(prob)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(s.K) {
		t.Fatalf("the main loop nest has %d loops; the size has %d loop lengths", n, len(s.K))
	}
	return s.K
}

var _ = fmt.Sprint
