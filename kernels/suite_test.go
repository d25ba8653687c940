package kernels_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

// TestSuite checks the suite's registry (TestAll checks its sizes and
// shapes with the eight's): at least twelve kernels with names of their
// own, found by Find and not by Get, instances that specialize the kernel
// and depend on the seed.
func TestSuite(t *testing.T) {
	suite := kernels.Suite()
	if len(suite) < 12 {
		t.Errorf("the suite has %d kernels, want at least 12", len(suite))
	}
	if got := kernels.SuiteNames(); len(got) != len(suite) {
		t.Errorf("SuiteNames() = %v", got)
	}
	seen := map[string]bool{}
	for _, n := range kernels.Names() {
		seen[n] = true
	}
	for _, b := range suite {
		if seen[b.Name] {
			t.Errorf("%s: name used twice", b.Name)
		}
		seen[b.Name] = true
		if f, err := kernels.Find(b.Name); err != nil || f != b {
			t.Errorf("Find(%s) = %v, %v", b.Name, f, err)
		}
		if _, err := kernels.Get(b.Name); err == nil {
			t.Errorf("Get(%s) finds a suite kernel among the eight", b.Name)
		}
		if b.Doc == "" || b.Paper != "" {
			t.Errorf("%s: Doc %q, Paper %q", b.Name, b.Doc, b.Paper)
		}
		in, err := b.Instance(b.Sizes["tiny"], 7)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hpl.Specialize(b.Kernel, in.Args...); err != nil {
			t.Errorf("%s: %v", b.Name, err)
		}
		if len(in.Outputs) == 0 || in.Bytes <= 0 || len(in.Global) != b.Dims {
			t.Errorf("%s: outputs %v, bytes %g, global %v", b.Name, in.Outputs, in.Bytes, in.Global)
		}
		for d, g := range in.Global {
			if g < in.Size.N[d] {
				t.Errorf("%s: global %v smaller than the domain %v", b.Name, in.Global, in.Size.N)
			}
		}
		other, _ := b.Instance(b.Sizes["tiny"], 8)
		same := true
		for i, a := range in.Args {
			if a, ok := a.(*hpl.Array); ok && !zero(a.ReadFloat32s()) {
				same = same && equal(a.ReadFloat32s(), other.Args[i].(*hpl.Array).ReadFloat32s())
			}
		}
		if same {
			t.Errorf("%s: the inputs are the same for different seeds", b.Name)
		}
	}
	if _, err := kernels.Find("gemm"); err == nil || !strings.Contains(err.Error(), "matmul") || !strings.Contains(err.Error(), "stencil2d") {
		t.Errorf("Find(gemm) = %v, want an error listing both registries", err)
	}
	if b, err := kernels.Find("matmul"); err != nil || b.Name != "matmul" {
		t.Errorf("Find(matmul) = %v, %v", b, err)
	}
}

// TestSuiteSizes checks the suite's own size constraints.
func TestSuiteSizes(t *testing.T) {
	for _, tc := range []struct {
		name string
		n, k []int
		want string // Size.String(), or an error substring
	}{
		{"mv", []int{64}, []int{32}, "n=64 k=32"},
		{"stencil2d", []int{64}, nil, "n=64x64 k="},
		{"bicg", []int{64}, []int{32}, "-k 32 must equal -n 64"},
		{"jacobi2d", []int{64, 32}, nil, "square matrix"},
		{"covariance", []int{64, 32}, []int{8}, "square matrix"},
		{"stencil2d", []int{64}, []int{3}, "no compute loop: -k takes no value"},
		{"mv", []int{65536}, []int{65536}, "2^31-1"},
	} {
		b, err := kernels.Find(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := b.ParseSize("", tc.n, tc.k)
		got := s.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s ParseSize(%v, %v) = %q, want %q", tc.name, tc.n, tc.k, got, tc.want)
		}
	}
}

// TestSuiteRuns runs every suite kernel as written (single point) at its
// tiny size on the OpenCL device and checks every output element against
// the Go reference; the kernels that update an output in place run again
// after Reset.
func TestSuiteRuns(t *testing.T) {
	if _, err := hpl.Eval(kernels.MV).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	for _, b := range kernels.Suite() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel() // the builds overlap; the launches are serialized
			in, err := b.Instance(b.Sizes["tiny"], 1)
			if err != nil {
				t.Fatal(err)
			}
			ev := hpl.Eval(b.Kernel).Global(in.Global...)
			if err := ev.Run(in.Args...); err != nil {
				t.Fatal(err)
			}
			if err := in.Check(0); err != nil {
				t.Fatal(err)
			}
			in.Reset()
			if err := ev.Run(in.Args...); err != nil {
				t.Fatal(err)
			}
			if err := in.Check(0); err != nil {
				t.Fatalf("after Reset: %v", err)
			}
		})
	}
}

// TestSuiteCheck checks that Check accepts each suite kernel's reference
// and rejects outputs one off everywhere.
func TestSuiteCheck(t *testing.T) {
	for _, b := range kernels.Suite() {
		in, err := b.Instance(b.Sizes["tiny"], 3)
		if err != nil {
			t.Fatal(err)
		}
		ref := in.Reference()
		for _, name := range in.Outputs {
			copy(in.Array(name).Float32s(), ref[name])
		}
		if err := in.Check(0); err != nil {
			t.Errorf("%s: Check rejects the reference: %v", b.Name, err)
		}
		name := in.Outputs[len(in.Outputs)-1]
		out := in.Array(name).Float32s()
		for i := range out {
			out[i]++
		}
		var ce *kernels.CheckError
		if err := in.Check(0); !errors.As(err, &ce) || ce.Bad == 0 || !slices.ContainsFunc(ce.Worst, func(m kernels.Mismatch) bool { return m.Array == name }) {
			t.Errorf("%s: Check after changing %s = %v", b.Name, name, err)
		}
	}
}
