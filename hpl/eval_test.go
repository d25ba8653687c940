package hpl_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
)

// device skips the test when the machine has no OpenCL device.
func device(t *testing.T) hpl.DeviceInfo {
	t.Helper()
	info, err := hpl.Eval(mxm).DeviceInfo()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	return info
}

// TestBenchmarks runs the eight single-point kernels at their tiny sizes on
// the default device and checks every output element against the CPU
// reference.
func TestBenchmarks(t *testing.T) {
	device(t)
	for _, b := range kernels.All() {
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
			if ev.Elapsed() <= 0 {
				t.Errorf("Elapsed() = %v", ev.Elapsed())
			}
			if err := in.Check(0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCoherence(t *testing.T) {
	device(t)
	const n, nk = 16, 8
	c := hpl.NewArray(hpl.Float32, n, n)
	a := hpl.NewArray(hpl.Float32, n, nk)
	b := hpl.NewArray(hpl.Float32, nk, n)
	av, bv := a.Float32s(), b.Float32s()
	for i := range av {
		av[i] = float32(i % 7)
	}
	for i := range bv {
		bv[i] = float32(i%5) - 2
	}
	want := func(y, x int) float32 {
		var s float32
		for k := 0; k < nk; k++ {
			s += av[y*nk+k] * bv[k*n+x]
		}
		return s
	}
	transfers := func(name string, arr *hpl.Array, up, back int) {
		t.Helper()
		if u, r := arr.Transfers(); u != up || r != back {
			t.Errorf("%s: %d uploads, %d readbacks; want %d, %d", name, u, r, up, back)
		}
	}
	ev := hpl.Eval(mxm) // the global domain defaults to c's shape
	run := func() {
		t.Helper()
		if err := ev.Run(c, a, b, nk); err != nil {
			t.Fatal(err)
		}
	}

	run()
	transfers("a", a, 1, 0)
	transfers("c", c, 1, 0)
	run() // nothing changed on the host: nothing moves
	transfers("a", a, 1, 0)
	transfers("b", b, 1, 0)
	transfers("c", c, 1, 0)

	// Reading the result brings it back once; a read-only look keeps the
	// device copy valid.
	if got := c.ReadFloat32s()[3*n+5]; got != want(3, 5) {
		t.Errorf("c[3][5] = %g, want %g", got, want(3, 5))
	}
	c.ReadFloat32s()
	transfers("c", c, 1, 1)
	run()
	transfers("c", c, 1, 1)

	// Writing an input on the host uploads it again, and only it.
	a.Float32s()[0] = 100
	av[0] = 100
	run()
	transfers("a", a, 2, 0)
	transfers("b", b, 1, 0)
	if got := c.ReadFloat32s()[5]; got != want(0, 5) {
		t.Errorf("after changing a: c[0][5] = %g, want %g", got, want(0, 5))
	}
	transfers("c", c, 1, 2)

	// Release keeps the data; the next run allocates and uploads again.
	c.Release()
	a.Release()
	run()
	transfers("a", a, 3, 0)
	if got := c.ReadFloat32s()[n*n-1]; got != want(n-1, n-1) {
		t.Errorf("after Release: c[%d][%d] = %g, want %g", n-1, n-1, got, want(n-1, n-1))
	}
}

// TestDeviceErrors covers the launch mistakes found against the device's
// limits, before OpenCL sees them.
func TestDeviceErrors(t *testing.T) {
	info := device(t)
	c := hpl.NewArray(hpl.Float32, 64, 64)
	a := hpl.NewArray(hpl.Float32, 64, 4)
	b := hpl.NewArray(hpl.Float32, 4, 64)

	// A work-group of twice the device's largest, within the per-dimension
	// limits: lx by 2.
	lx := 1
	for 2*lx <= info.MaxWorkGroup && (len(info.MaxItems) == 0 || 2*lx <= info.MaxItems[0]) {
		lx *= 2
	}
	if lx == info.MaxWorkGroup && (len(info.MaxItems) < 2 || info.MaxItems[1] >= 2) {
		c2, b2 := hpl.NewArray(hpl.Float32, 2, lx), hpl.NewArray(hpl.Float32, 4, lx)
		err := hpl.Eval(mxm).Global(lx, 2).Local(lx, 2).Run(c2, a, b2, 4)
		wantError(t, err, "mxm", fmt.Sprintf("makes work-groups of %d work-items, %s allows %d", 2*lx, info.Name, info.MaxWorkGroup))
	} else {
		t.Errorf("cannot make a work-group too large for %+v", info)
	}
	if len(info.MaxItems) > 0 && info.MaxItems[0] < 1<<20 {
		x := hpl.NewArray(hpl.Float32, 2*info.MaxItems[0])
		err := hpl.Eval(fill).Global(2 * info.MaxItems[0]).Local(2 * info.MaxItems[0]).Run(x)
		wantError(t, err, "fill", "work-items in dimension x")
	}

	huge := hpl.MustKernel("huge", func(k *hpl.K) {
		out := k.Array("out", hpl.Float32, 1)
		tile := k.LocalArray("tile", hpl.Float32, hpl.Local, int(info.LocalMem/4+1))
		k.Compute(func() {
			k.Set(tile.At(hpl.Lidx), 1.0)
			k.Barrier()
			k.Set(out.At(hpl.Idx), tile.At(hpl.Lidx))
		})
	})
	err := hpl.Eval(huge).Run(hpl.NewArray(hpl.Float32, 64))
	wantError(t, err, "huge", "bytes of local memory")

	if err := hpl.Eval(mxm).Device("no such device").Run(c, a, b, 4); err == nil || !strings.Contains(err.Error(), "hpl: kernel mxm:") {
		t.Errorf("unknown device: %v", err)
	}
	wantError(t, hpl.Eval(mxm).On(nil).Run(c, a, b, 4), "mxm", "On(nil)")
}

// fill sets every element of x to its index.
var fill = hpl.MustKernel("fill", func(k *hpl.K) {
	x := k.Array("x", hpl.Float32, 1)
	k.Compute(func() { k.Set(x.At(hpl.Idx), hpl.ToFloat(hpl.Idx)) })
})

func TestOnAndLocal(t *testing.T) {
	device(t)
	dev, err := opencl.Select("")
	if err != nil {
		t.Fatal(err)
	}
	x := hpl.NewArray(hpl.Float32, 96)
	ev := hpl.Eval(fill).On(dev).Global(96).Local(32)
	if err := ev.Build(x); err != nil {
		t.Fatal(err)
	}
	if err := ev.Run(x); err != nil {
		t.Fatal(err)
	}
	for i, v := range x.ReadFloat32s() {
		if v != float32(i) {
			t.Fatalf("x[%d] = %g", i, v)
		}
	}
	// Double scalars and arrays.
	axpy := hpl.MustKernel("daxpy", func(k *hpl.K) {
		y := k.Array("y", hpl.Float64, 1)
		x := k.Array("x", hpl.Float64, 1)
		a := k.Scalar("a", hpl.Float64)
		k.Compute(func() { k.Set(y.At(hpl.Idx), a.Mul(x.At(hpl.Idx)).Add(y.At(hpl.Idx))) })
	})
	y := hpl.FromFloat64s([]float64{1, 2, 3, 4})
	xd := hpl.FromFloat64s([]float64{1, 1, 1, 1})
	if err := hpl.Eval(axpy).Run(y, xd, 0.5); err != nil {
		if strings.Contains(err.Error(), "fp64") || strings.Contains(err.Error(), "double") {
			t.Skipf("no double support: %v", err)
		}
		t.Fatal(err)
	}
	if got := y.ReadFloat64s(); math.Abs(got[3]-4.5) > 1e-12 {
		t.Errorf("daxpy: y = %v", got)
	}
}

// TestConcurrentEvaluations runs Evaluations of one kernel from several
// goroutines: the program is built once, the launches serialize.
func TestConcurrentEvaluations(t *testing.T) {
	device(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	xs := make([]*hpl.Array, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs[i] = hpl.NewArray(hpl.Float32, 128)
			errs[i] = hpl.Eval(fill).Run(xs[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if v := xs[i].ReadFloat32s()[127]; v != 127 {
			t.Errorf("goroutine %d: x[127] = %g", i, v)
		}
	}
}
