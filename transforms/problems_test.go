package transforms_test

import (
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/transforms"
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

// matmulProblem specializes mxm for c[n][m] = a[n][kk] * b[kk][m].
func matmulProblem(m, n, kk int) *transforms.Problem {
	k := mxm.AST()
	ext := map[string][]int{"c": {n, m}, "a": {n, kk}, "b": {kk, m}}
	for _, p := range k.Params {
		p.Extents = ext[p.Name]
	}
	return &transforms.Problem{Kernel: k, Domain: []int{m, n}, Ints: map[string]int{"limk": kk}, MaxWorkGroup: 1024, LocalMem: 48 << 10}
}

// problemOf specializes a benchmark instance for the transforms, with the
// limits of device dev, or with matmulProblem's when dev is nil.
func problemOf(t testing.TB, in *kernels.Instance, dev *opencl.Device) *transforms.Problem {
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
	prob := &transforms.Problem{Kernel: k, Domain: in.Global, Ints: ints, MaxWorkGroup: 1024, LocalMem: 48 << 10}
	if dev != nil {
		prob.MaxWorkGroup, prob.LocalMem = min(256, dev.MaxWorkGroupSize), dev.LocalMemSize
		for d := 0; d < 3 && d < len(dev.MaxWorkItemSizes); d++ {
			prob.MaxWorkItems[d] = dev.MaxWorkItemSizes[d]
		}
	}
	return prob
}

// benchProblem is the problem of benchmark b at size, without a device.
func benchProblem(t testing.TB, b *kernels.Benchmark, size kernels.Size) *transforms.Problem {
	t.Helper()
	in, err := b.Instance(size, 1)
	if err != nil {
		t.Fatal(err)
	}
	return problemOf(t, in, nil)
}
