package transforms_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
)

// variantsOf applies the partial settings to prob (completed by
// transforms.Complete), checking the invariants after every pass; each
// variant that splits (split > 1) must launch the parts along the
// dimension after the kernel's.
func variantsOf(t *testing.T, prob *transforms.Problem, settings []string) ([]*transforms.Variant, []transforms.Params) {
	t.Helper()
	var vs []*transforms.Variant
	var ps []transforms.Params
	for _, set := range settings {
		pins, p := completed(t, prob, set)
		v, err := transforms.ApplyChecked(prob, p)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		if n := pins[transforms.Split]; n > 1 {
			d := len(prob.Domain)
			if len(v.Global) != d+1 || v.Global[d] != n || v.Local[d] != n {
				t.Fatalf("%s: launch global %v local %v; want %d parts along dimension %d", set, v.Global, v.Local, n, d)
			}
		}
		vs, ps = append(vs, v), append(ps, p)
	}
	return vs, ps
}

// sourcesRun builds the settings' variants of the benchmark kernel at
// sizes n and k, runs them on s against the reference (runBatch), and
// returns the problem and the variants' OpenCL sources.
func sourcesRun(t *testing.T, s *opencl.Session, kernel string, n, k []int, settings []string) (*transforms.Problem, []string) {
	t.Helper()
	in, size := benchInstance(t, kernel, n, k)
	prob := problemOf(t, in, s.Device)
	vs, ps := variantsOf(t, prob, settings)
	srcs := make([]string, len(vs))
	for i, v := range vs {
		src, err := codegen.Source(v.Kernel)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = src
	}
	runBatch(t, s, in, size, vs, ps)
	return prob, srcs
}

// completed parses the setting set (as --params gives it) and completes
// it for prob (transforms.Complete).
func completed(t *testing.T, prob *transforms.Problem, set string) (map[transforms.Name]int, transforms.Params) {
	t.Helper()
	pins, err := transforms.ParsePins(set)
	if err != nil {
		t.Fatal(err)
	}
	p, err := transforms.Complete(prob, pins)
	if err != nil {
		t.Fatal(err)
	}
	return pins, p
}

// wantIllegal checks that the setting set (as --params gives it) of prob
// is rejected as illegal with an error that says want.
func wantIllegal(t *testing.T, prob *transforms.Problem, set, want string) {
	t.Helper()
	_, p := completed(t, prob, set)
	_, err := transforms.ApplyChecked(prob, p)
	if !errors.Is(err, transforms.ErrIllegal) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v; want ErrIllegal with %q", set, err, want)
	}
}

// benchInstance is the instance of benchmark name at n points and k
// iterations per loop.
func benchInstance(t *testing.T, name string, n, k []int) (*kernels.Instance, kernels.Size) {
	t.Helper()
	b, err := kernels.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	size, err := b.ParseSize("", n, k)
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.Instance(size, 1)
	if err != nil {
		t.Fatal(err)
	}
	return in, size
}

// TestSplitMatchesReference runs split variants on the OpenCL device and
// compares their outputs with the reference: 1DCONV (with a domain that
// the blocks do not divide, and with several blocks per work-group) and
// 2D kernels (MATMUL, 2DCONV), with 2 to 8 parts, without and with local
// memory, tiles, blocks of points, prefetch of both kinds, packed reads,
// transposed tiles and the warp and gswz layouts.
func TestSplitMatchesReference(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name     string
		bench    string
		n, k     []int
		settings []string
	}{
		{"conv1d", "conv1d", []int{256}, []int{64}, []string{
			"lszx=16,split=2",
			"lszx=16,bszx=4,split=4",
			"lszx=8,bszx=4,fullunroll=1,uf=4,split=8",
			"lszx=16,bszx=4,tw0=8,lmem=1,split=4",
			"lszx=16,bszx=4,tw0=4,lmem=1,lcopy=1,prefetch=1,split=8",
			"lszx=16,bszx=4,tw0=8,lmem=1,prefetch=2,split=2",
			"lszx=8,bszx=4,fullunroll=1,interleave=1,tw0=8,uf=4,lmem=1,pack=1,split=4",
			"lszx=8,bszx=4,fullunroll=1,tw0=8,uf=8,lmem=1,pack=1,prefetch=1,split=2",
			"lszx=8,bszx=2,szx=32,tw0=8,lmem=1,split=4", // several blocks per group
			"lszx=8,bszx=2,szx=32,split=4",
			"lszx=16,bszx=4,lmem=1,split=4", // one tile a part
		}},
		{"conv1d-guarded", "conv1d", []int{250}, []int{32}, []string{
			"lszx=16,bszx=4,split=4",
			"lszx=16,bszx=4,tw0=4,lmem=1,prefetch=1,split=4",
		}},
		{"matmul", "matmul", []int{64, 32}, []int{64}, []string{
			"lszx=8,lszy=8,split=2",
			"lszx=8,lszy=4,bszx=2,bszy=2,tw0=8,lmem=1,split=4",
			"lszx=8,lszy=4,bszx=2,bszy=2,fullunroll=1,tw0=8,uf=8,lmem=1,lcopy=1,prefetch=1,split=8",
			"lszx=8,lszy=8,bszx=4,bszy=2,fullunroll=1,interleave=1,vw=2,tw0=4,uf=4,lmem=1,pack=1,ltrans=1,prefetch=2,split=2",
			"lszx=8,lszy=8,bszx=2,bszy=2,tw0=8,lmem=1,warp=4,gswz=2,split=4",
		}},
		{"conv2d", "conv2d", []int{32, 16}, []int{8, 4}, []string{
			"lszx=8,lszy=4,split=2",
			"lszx=8,lszy=2,bszx=2,bszy=2,tw1=2,lmem=1,split=4",
			"lszx=8,lszy=2,bszx=4,tw0=2,tw1=2,uf=2,lmem=1,prefetch=1,split=2",
			"lszx=4,lszy=4,bszx=2,bszy=2,tw0=1,lmem=1,prefetch=2,split=8",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, size := benchInstance(t, tc.bench, tc.n, tc.k)
			prob := problemOf(t, in, s.Device)
			vs, ps := variantsOf(t, prob, tc.settings)
			runBatch(t, s, in, size, vs, ps)
		})
	}
}

// The kernels of the illegal cases: out[x] over i < n of a[x][i]*u[i],
// reduced other than by a sum.
var (
	// splitMax keeps the largest product.
	splitMax = splitKernel("split_max", func(k *hpl.K, acc hpl.Var, p hpl.Expr) { k.Set(acc, hpl.Max(acc, p)) })
	// splitProduct multiplies the products.
	splitProduct = splitKernel("split_product", func(k *hpl.K, acc hpl.Var, p hpl.Expr) { k.MulBy(acc, p) })
	// splitReads scales the sum by itself as it goes.
	splitReads = splitKernel("split_reads", func(k *hpl.K, acc hpl.Var, p hpl.Expr) {
		k.AddTo(acc, p)
		k.Set(acc, acc.Mul(0.5))
	})
)

// splitKernel makes a kernel over out, a, u and n whose loop body, given
// the private accumulator acc (set to 0 before the loop, stored after it)
// and the product p of iteration i, body writes.
func splitKernel(name string, body func(k *hpl.K, acc hpl.Var, p hpl.Expr)) *hpl.Kernel {
	return hpl.MustKernel(name, func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		a := k.Array("a", hpl.Float32, 2)
		u := k.Array("u", hpl.Float32, 1)
		n := k.Scalar("n", hpl.Int32)
		i := k.Int("i")
		k.Compute(func() {
			acc := k.Float("acc", 0.0)
			k.For(i, 0, n, func() { body(k, acc, a.At(hpl.Idx, i).Mul(u.At(i))) })
			k.Set(out.At(hpl.Idx), acc)
		})
	})
}

// splitProblem is the problem of a splitKernel over nx points and n
// iterations.
func splitProblem(k *hpl.Kernel, nx, n int) *transforms.Problem {
	sk, err := hpl.Specialize(k, hpl.NewArray(hpl.Float32, nx), hpl.NewArray(hpl.Float32, nx, n), hpl.NewArray(hpl.Float32, n), int32(n))
	if err != nil {
		panic(err)
	}
	return &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
}

// TestSplitIllegal checks that the settings split cannot realize are
// rejected with an error wrapping ErrIllegal that says why.
func TestSplitIllegal(t *testing.T) {
	conv := func(n, k int) *transforms.Problem {
		return benchProblem(t, mustFind(t, "conv1d"), kernels.Size{N: []int{n}, K: []int{k}})
	}
	small := conv(4096, 1024)
	small.LocalMem = 16 << 10
	for _, tc := range []struct {
		name string
		prob *transforms.Problem
		set  string
		want string // in the error
	}{
		{"parts not dividing the loop", conv(256, 60), "lszx=16,split=8", "split=8 does not divide the 60 iterations of loop j"},
		{"tile not dividing a part", conv(256, 64), "lszx=16,tw0=16,split=8", "tw0=16 exceeds the 8 iterations of a part"},
		{"tile not dividing a part evenly", conv(256, 96), "lszx=16,tw0=16,split=4", "tw0=16 does not divide the 24 iterations of a part"},
		{"local memory", small, "lszx=64,bszx=8,tw0=256,lmem=1,split=4", "bytes of local memory"},
		{"local memory of the partial sums", small, "lszx=128,bszx=16,split=4", "for their partial sums"},
		{"work-group", conv(4096, 64), "lszx=256,split=8", "work-groups of 2048 work-items (split=8 parts of 256)"},
		{"max", splitProblem(splitMax, 64, 32), "lszx=16,split=2", "acc = max(acc, a[b_x][i] * u[i]) is neither a linear accumulation"},
		{"product", splitProblem(splitProduct, 64, 32), "lszx=16,split=2", "acc *= a[b_x][i] * u[i] is not a linear accumulation"},
		{"read in the body", splitProblem(splitReads, 64, 32), "lszx=16,split=2", "acc = acc * 0.5f is neither a linear accumulation"},
		{"3D", benchProblem(t, mustFind(t, "conv3d"), kernels.Size{N: []int{8, 8, 8}, K: []int{4, 4, 4}}), "lszx=8,split=2", "the kernel has 3"},
		{"vec", conv(256, 64), "lszx=16,bszx=4,vec=4,split=2", "split=2 with vec=4"},
		{"tiles from the split loop's counter", triangularProblem(triLowerCounter, 21, 19), "lszx=4,bszx=4,tw1=3,lmem=1,split=3", "the tiles of loop j are bounded by the counter of loop i"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantIllegal(t, tc.prob, tc.set, tc.want) })
	}
}

func mustFind(t *testing.T, name string) *kernels.Benchmark {
	t.Helper()
	b, err := kernels.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSplitDefault checks that split=1 (and split unset) leaves the code
// as the pipeline without the split pass makes it, and that the launch
// keeps the kernel's dimensions; the golden files of the other passes,
// unchanged since the pass was added, pin the rest.
func TestSplitDefault(t *testing.T) {
	for _, tc := range []struct {
		bench    string
		size     kernels.Size
		settings []string
	}{
		{"conv1d", kernels.Size{N: []int{256}, K: []int{64}}, []string{"lszx=16", "lszx=16,bszx=4,tw0=8,lmem=1,prefetch=1,split=1", "lszx=8,bszx=4,fullunroll=1,tw0=8,uf=8,lmem=1,pack=1,prefetch=2"}},
		{"matmul", kernels.Size{N: []int{64, 32}, K: []int{64}}, []string{"lszx=8,lszy=8,split=1", "lszx=16,lszy=4,bszx=2,bszy=2,fullunroll=1,interleave=1,tw0=8,uf=8,lmem=1,pack=1,ltrans=1,prefetch=2,warp=8,gswz=2"}},
		{"syrk", kernels.Size{N: []int{32, 32}, K: []int{16}}, []string{"lszx=8,lszy=4,bszx=2,bszy=2,tw0=8,lmem=1,split=1"}},
		{"conv3d", kernels.Size{N: []int{8, 8, 8}, K: []int{4, 4, 4}}, []string{"lszx=8,lszy=2,bszx=2,tw0=2,lmem=1"}},
	} {
		prob := benchProblem(t, mustFind(t, tc.bench), tc.size)
		vs, ps := variantsOf(t, prob, tc.settings)
		for i, v := range vs {
			got, want, without := withAndWithout(t, prob, v, ps[i], "split")
			if got != want {
				t.Errorf("%s %s: split=1 changed the code:\n%s\nwant\n%s", tc.bench, tc.settings[i], got, want)
			}
			if len(v.Global) != len(prob.Domain) || v.LocalBytes != without.LocalBytes {
				t.Errorf("%s %s: launch %v, %d bytes; want %d dimensions, %d bytes", tc.bench, tc.settings[i], v.Global, v.LocalBytes, len(prob.Domain), without.LocalBytes)
			}
		}
	}
}

// TestSplitAfterAccumulation splits the loops of kernels whose
// accumulations the accumulation pass has rewritten: SYRK (c = beta*c +
// alpha*sum: alpha taken out into a new accumulator, the parts' sums of
// which are added before part 0 scales them) and fac_output (w taken out),
// compared with the reference on the OpenCL device.
func TestSplitAfterAccumulation(t *testing.T) {
	s, err := opencl.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(t *testing.T, vs []*transforms.Variant, ps []transforms.Params, want string) {
		t.Helper()
		for i, v := range vs {
			code, err := codegen.Source(v.Kernel)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(code, want) {
				t.Errorf("%s: no %q in\n%s", ps[i], want, code)
			}
		}
	}
	t.Run("syrk", func(t *testing.T) {
		in, size := benchInstance(t, "syrk", []int{32, 32}, []int{32})
		prob := problemOf(t, in, s.Device)
		vs, ps := variantsOf(t, prob, []string{
			"lszx=8,lszy=4,split=4",
			"lszx=8,lszy=4,bszx=2,bszy=2,tw0=4,uf=4,lmem=1,split=2",
			"lszx=4,lszy=4,bszx=4,bszy=2,fullunroll=1,interleave=1,tw0=4,uf=4,lmem=1,pack=1,ltrans=1,prefetch=1,split=4",
		})
		check(t, vs, ps, "+= alpha * u_")
		runBatch(t, s, in, size, vs, ps)
	})
	t.Run("fac_output", func(t *testing.T) {
		const nx, n, w = 64, 24, 0.75
		args, want := accArgs(facOutput, nx, n, 5)
		args = append(args, float32(w))
		for i := range want {
			want[i] *= w
		}
		sk, err := hpl.Specialize(facOutput, args...)
		if err != nil {
			t.Fatal(err)
		}
		prob := &transforms.Problem{Kernel: sk, Domain: []int{nx}, Ints: map[string]int{"n": n}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
		vs, ps := variantsOf(t, prob, []string{"lszx=8,split=2", "lszx=8,bszx=4,tw0=4,uf=2,split=3", "lszx=8,bszx=4,fullunroll=1,tw0=4,uf=4,lmem=1,split=2"})
		check(t, vs, ps, "+= w * u_p_out")
		runBatchOn(t, s, facOutput.Params(), args, map[string][]float32{"out": want}, nx, vs, ps)
	})
}
