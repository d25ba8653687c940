package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
)

// The check on the device against the check on the host: a variant whose
// outputs are the expected ones but for one element (set to exact bits)
// must get the same verdict from both, on float, double and int outputs,
// at the edge of the tolerance, with NaN, infinities and subnormals, and
// one writing past the end of its output must still fail by its guard
// zones.

const dcN = 4096

// dcProblem has three outputs (y float, d double, k int) and their
// expected contents as inputs (wy, wd, wk), which the variants copy.
func dcProblem(tol Tolerance) (*Problem, []Arg) {
	wy, wd, wk := make([]float32, dcN), make([]float64, dcN), make([]int32, dcN)
	for i := range wy {
		wy[i] = float32(math.Sin(float64(i))) * 10
		wd[i] = math.Cos(float64(i)) * 10
		wk[i] = int32(i*7919) - 1000
	}
	// The special elements: NaN, +Inf, -Inf, 0, a large one (where the
	// relative bound is the larger) and a float subnormal.
	wy[1], wy[2], wy[3], wy[4], wy[5], wy[6] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, 1e6, math.Float32frombits(3)
	wd[1], wd[2], wd[3], wd[4], wd[5] = math.NaN(), math.Inf(1), math.Inf(-1), 0, 1e12
	p := &Problem{Tolerance: tol, Args: []Arg{
		{Name: "y", Type: ast.Float, Dims: []int{dcN}, F32: make([]float32, dcN), Output: true},
		{Name: "d", Type: ast.Double, Dims: []int{dcN}, F64: make([]float64, dcN), Output: true},
		{Name: "k", Type: ast.Int, Dims: []int{dcN}, I32: make([]int32, dcN), Output: true},
		{Name: "wy", Type: ast.Float, Dims: []int{dcN}, F32: wy},
		{Name: "wd", Type: ast.Double, Dims: []int{dcN}, F64: wd},
		{Name: "wk", Type: ast.Int, Dims: []int{dcN}, I32: wk},
		{Name: "n", Scalar: true, Type: ast.Int, Value: dcN},
	}}
	want := make([]Arg, len(p.Args))
	want[0] = Arg{Name: "y", Type: ast.Float, Dims: []int{dcN}, F32: wy, Output: true}
	want[1] = Arg{Name: "d", Type: ast.Double, Dims: []int{dcN}, F64: wd, Output: true}
	want[2] = Arg{Name: "k", Type: ast.Int, Dims: []int{dcN}, I32: wk, Output: true}
	return p, want
}

// dcVariant copies the expected outputs and then runs edit in the
// work-item of index i (i < n).
func dcVariant(edit string) Variant {
	return Variant{KernelName: "put", Global: []int{dcN}, Source: `#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void put(__global float *y, __global double *d, __global int *k, __global const float *wy, __global const double *wd, __global const int *wk, int n) {
	int i = get_global_id(0);
	y[i] = wy[i];
	d[i] = wd[i];
	k[i] = wk[i];
	` + edit + `
}
`}
}

// setF32 is an edit setting y[j] to the float of bits b; setF64 and setI32
// the same for d and k.
func setF32(j int, b uint32) string {
	return fmt.Sprintf("if (i == %d) y[i] = as_float(0x%08xu);", j, b)
}

func setF64(j int, b uint64) string {
	return fmt.Sprintf("if (i == %d) d[i] = as_double(0x%016xUL);", j, b)
}

func setI32(j int, v int32) string { return fmt.Sprintf("if (i == %d) k[i] = %d;", j, v) }

// dcMeasurers returns a Measurer that checks on the device (failing the
// test where it does not) and one that checks on the host (stopped here,
// to show that the check stops cleanly), with want set.
func dcMeasurers(t *testing.T, tol Tolerance) (dev, host *Measurer, want []Arg) {
	t.Helper()
	p, want := dcProblem(tol)
	var ms [2]*Measurer
	for j := range ms {
		m, err := NewMeasurer("", p, MeasureSettings{Runs: 1, Check: CheckOnDevice})
		if err != nil {
			t.Skipf("no OpenCL device: %v", err)
		}
		t.Cleanup(func() { m.Close() })
		if j == 1 && m.dc != nil {
			m.dc.stop()
		}
		if err := m.SetExpected(want); err != nil {
			t.Fatal(err)
		}
		ms[j] = m
	}
	if !ms[0].sess.Device().HasExtension("cl_khr_fp64") {
		t.Skip("the device has no double precision: its outputs are checked on the host")
	}
	if !ms[0].dc.usable() {
		t.Fatal("the device does not check, on a device that can")
	}
	return ms[0], ms[1], want
}

// agree measures v on both Measurers and fails unless both give outcome o
// with the same error; it also checks the device's verdict directly
// (checkOnDevice), since a wrong one would be overruled by the host's.
func agree(t *testing.T, what string, dev, host *Measurer, v Variant, o autotune.Outcome) {
	t.Helper()
	ctx := context.Background()
	hr := host.Measure(ctx, v)
	if hr.Outcome != o {
		t.Fatalf("%s: on the host %v (%v), want %v", what, hr.Outcome, hr.Err, o)
	}
	r := dev.run(ctx, v, runOptions{})
	if r.res.Outcome == autotune.OK {
		ok, err := dev.checkOnDevice()
		if err != nil {
			t.Fatalf("%s: checking on the device: %v", what, err)
		}
		if ok != (o == autotune.OK) {
			t.Fatalf("%s: the device says right = %v, the host %v (%v)", what, ok, hr.Outcome, hr.Err)
		}
	}
	before := dev.dc.disagreed
	dr := dev.Measure(ctx, v)
	if dr.Outcome != o || fmt.Sprint(dr.Err) != fmt.Sprint(hr.Err) {
		t.Fatalf("%s: with the device's check %v (%v), on the host %v (%v)", what, dr.Outcome, dr.Err, hr.Outcome, hr.Err)
	}
	if dev.dc.disagreed != before || !dev.dc.usable() {
		t.Fatalf("%s: the device disagreed with the host", what)
	}
}

// edge returns the float32 values around w + bound (bound > 0): the largest
// within tol of w and the next one up, by the host's rule.
func edge(tol Tolerance, w float32) (in, out float32) {
	rel, abs := tol.bounds()
	g := float32(float64(w) + max(abs, rel*math.Abs(float64(w))))
	for !tol.Close(float64(g), float64(w)) {
		g = math.Nextafter32(g, w)
	}
	for tol.Close(float64(math.Nextafter32(g, float32(math.Inf(1)))), float64(w)) {
		g = math.Nextafter32(g, float32(math.Inf(1)))
	}
	return g, math.Nextafter32(g, float32(math.Inf(1)))
}

// edge64 is edge for a double.
func edge64(tol Tolerance, w float64) (in, out float64) {
	rel, abs := tol.bounds()
	g := w + max(abs, rel*math.Abs(w))
	for !tol.Close(g, w) {
		g = math.Nextafter(g, w)
	}
	for tol.Close(math.Nextafter(g, math.Inf(1)), w) {
		g = math.Nextafter(g, math.Inf(1))
	}
	return g, math.Nextafter(g, math.Inf(1))
}

func TestDeviceCheck(t *testing.T) {
	dev, host, want := dcMeasurers(t, Tolerance{})
	f32, f64 := math.Float32bits, math.Float64bits
	nan32, inf32 := uint32(0x7fc00000), f32(float32(math.Inf(1)))
	same := func(what, edit string, o autotune.Outcome) {
		t.Helper()
		agree(t, what, dev, host, dcVariant(edit), o)
	}
	same("right", "", autotune.OK)
	// The tolerance's edge, scaled by the rms of y, where the absolute
	// bound is the larger (y[10]) and where the relative one is (y[5]).
	for _, j := range []int{10, 5} {
		in, out := edge(dev.tols[0], want[0].F32[j])
		same(fmt.Sprintf("y[%d] at the edge", j), setF32(j, f32(in)), autotune.OK)
		same(fmt.Sprintf("y[%d] past the edge", j), setF32(j, f32(out)), autotune.Wrong)
	}
	for _, j := range []int{10, 5} {
		in, out := edge64(dev.tols[1], want[1].F64[j])
		same(fmt.Sprintf("d[%d] at the edge", j), setF64(j, f64(in)), autotune.OK)
		same(fmt.Sprintf("d[%d] past the edge", j), setF64(j, f64(out)), autotune.Wrong)
	}
	same("NaN for a number", setF32(10, nan32), autotune.Wrong)
	same("NaN for a number (double)", setF64(10, 0x7ff8000000000000), autotune.Wrong)
	same("another NaN for NaN", setF32(1, 0xffc00001), autotune.OK)
	same("a number for NaN", setF32(1, 0), autotune.Wrong)
	same("another NaN for NaN (double)", setF64(1, 0xfff8000000000001), autotune.OK)
	same("a number for NaN (double)", setF64(1, 0), autotune.Wrong)
	same("+Inf for -Inf", setF32(3, inf32), autotune.Wrong)
	same("NaN for +Inf", setF32(2, nan32), autotune.Wrong)
	same("the largest float for +Inf", setF32(2, f32(math.MaxFloat32)), autotune.Wrong)
	same("+Inf for a number", setF32(10, inf32), autotune.Wrong)
	same("+Inf for a number (double)", setF64(10, f64(math.Inf(1))), autotune.Wrong)
	same("-0 for 0", setF32(4, 0x80000000), autotune.OK)
	same("an int off by one", setI32(10, want[2].I32[10]+1), autotune.Wrong)
	same("an int right", setI32(10, want[2].I32[10]), autotune.OK)
	same("every element off", "y[i] = wy[i] + 1000.0f;", autotune.Wrong)
	same("the last element off", setI32(dcN-1, 0), autotune.Wrong)
	same("right after", "", autotune.OK)
	// Guard zones: right outputs and a write past the end of y (or before
	// the start of d) fail alike; the next variant passes.
	same("one past the end of y", "if (i == n - 1) y[n] = 1.0f;", autotune.Wrong)
	same("right after the write past the end", "", autotune.OK)
	same("before the start of d", "if (i == 0) d[-1] = 1.0;", autotune.Wrong)
	same("right after the write before the start", "", autotune.OK)
}

// TestDeviceCheckExact: with no tolerance, a float subnormal is not 0 (a
// device that flushes subnormals would take it for 0) and a double one
// bit off is wrong.
func TestDeviceCheckExact(t *testing.T) {
	dev, host, want := dcMeasurers(t, Tolerance{Rel: -1, Abs: -1})
	same := func(what, edit string, o autotune.Outcome) {
		t.Helper()
		agree(t, what, dev, host, dcVariant(edit), o)
	}
	same("right", "", autotune.OK)
	same("a subnormal for 0", setF32(4, 1), autotune.Wrong)
	same("0 for a subnormal", setF32(6, 0), autotune.Wrong)
	same("another subnormal", setF32(6, 2), autotune.Wrong)
	same("a double one bit off", setF64(10, math.Float64bits(want[1].F64[10])+1), autotune.Wrong)
	same("a float one bit off", setF32(10, math.Float32bits(want[0].F32[10])+1), autotune.Wrong)
}

// TestDeviceCheckDamaged: when the device's copy of the expected outputs
// is damaged (a variant wrote far outside its output), the host's check
// decides, the copy is made again, and after maxDisagreements the host
// checks alone.
func TestDeviceCheckDamaged(t *testing.T) {
	dev, _, _ := dcMeasurers(t, Tolerance{})
	ctx := context.Background()
	damage := func() {
		t.Helper()
		if err := dev.dc.want[2].writeAt(0, []byte{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
	}
	right := dcVariant("")
	// A variant that writes outside its output may have damaged the copy:
	// it is made again before the next check, which agrees with the
	// host's.
	damage()
	if r := dev.Measure(ctx, dcVariant("if (i == n - 1) k[n] = 1;")); r.Outcome != autotune.Wrong {
		t.Fatalf("a write past the end of k: %v (%v)", r.Outcome, r.Err)
	}
	if r := dev.Measure(ctx, right); r.Outcome != autotune.OK || dev.dc.disagreed != 0 {
		t.Fatalf("right after a stray write with the copy damaged: %v (%v), %d disagreements, want none", r.Outcome, r.Err, dev.dc.disagreed)
	}
	for n := 1; n <= maxDisagreements; n++ {
		damage()
		if r := dev.Measure(ctx, right); r.Outcome != autotune.OK {
			t.Fatalf("a right variant with the device's copy damaged: %v (%v)", r.Outcome, r.Err)
		}
		if dev.dc.disagreed != n {
			t.Fatalf("disagreed = %d, want %d", dev.dc.disagreed, n)
		}
		if n < maxDisagreements {
			if ok, err := dev.checkOnDevice(); !ok || err != nil {
				t.Fatalf("after the copy is made again, the device says right = %v (%v)", ok, err)
			}
		}
	}
	if dev.dc.usable() {
		t.Fatalf("after %d disagreements the device still checks", maxDisagreements)
	}
	r := dev.Measure(ctx, dcVariant(setI32(7, 0)))
	if r.Outcome != autotune.Wrong || !strings.Contains(fmt.Sprint(r.Err), "k") {
		t.Fatalf("a wrong variant on the host alone: %v (%v)", r.Outcome, r.Err)
	}
}

// BenchmarkCheck times the check of a right variant's output of 16M floats
// (MATMUL L's, 64 MiB) on the host and on the device:
//
//	go test ./runner -run '^$' -bench Check -benchtime 20x
func BenchmarkCheck(b *testing.B) {
	const n = 16 << 20
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(math.Sin(float64(i)))
	}
	p := &Problem{Args: []Arg{
		{Name: "y", Type: ast.Float, Dims: []int{n}, F32: make([]float32, n), Output: true},
		{Name: "w", Type: ast.Float, Dims: []int{n}, F32: w},
	}}
	want := []Arg{{Name: "y", Type: ast.Float, Dims: []int{n}, F32: w, Output: true}, {}}
	v := Variant{KernelName: "cp", Global: []int{n}, Source: `__kernel void cp(__global float *y, __global const float *w) {
	y[get_global_id(0)] = w[get_global_id(0)];
}
`}
	for _, c := range []CheckOn{CheckOnHost, CheckOnDevice} {
		b.Run(c.String(), func(b *testing.B) {
			m, err := NewMeasurer("", p, MeasureSettings{Runs: 1, Check: c})
			if err != nil {
				b.Skipf("no OpenCL device: %v", err)
			}
			defer m.Close()
			if err := m.SetExpected(want); err != nil {
				b.Fatal(err)
			}
			if c == CheckOnDevice && !m.dc.usable() {
				b.Skip("the device cannot check")
			}
			r := m.run(context.Background(), v, runOptions{})
			if r.res.Outcome != autotune.OK {
				b.Fatal(r.res.Err)
			}
			b.ResetTimer()
			for range b.N {
				if res := m.check(r.res); res.Outcome != autotune.OK {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
