package opencl

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func session(t *testing.T) *Session {
	t.Helper()
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const saxpy = `__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}`

// runSaxpy computes y = a*x + y on the device and returns y.
func runSaxpy(t testing.TB, s *Session, prog *Program, x, y []float32, a float32, local int) []float32 {
	n := len(x)
	bx, err := s.Context.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer bx.Close()
	by, err := s.Context.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer by.Close()
	if err := errors.Join(WriteSlice(s.Queue, bx, x), WriteSlice(s.Queue, by, y)); err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("saxpy")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if err := errors.Join(k.SetArgBuffer(0, by), k.SetArgBuffer(1, bx), k.SetArgFloat32(2, a), k.SetArgInt32(3, int32(n))); err != nil {
		t.Fatal(err)
	}
	global := (n + local - 1) / local * local
	ns, err := s.Queue.Run(k, []int{global}, []int{local})
	if err != nil {
		t.Fatal(err)
	}
	if ns <= 0 {
		t.Errorf("kernel time %d ns", ns)
	}
	out := make([]float32, n)
	if err := ReadSlice(s.Queue, by, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSaxpyMillion(t *testing.T) {
	s := session(t)
	prog, err := s.Context.Build(saxpy, "")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	const n = 1_000_000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i%997)*0.5, float32(i%13)
	}
	got := runSaxpy(t, s, prog, x, y, 3, 64)
	for i := range got {
		if want := 3*x[i] + y[i]; math.Abs(float64(got[i]-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}

// TestCopy copies a buffer on the device and checks the copy and the
// size check.
func TestCopy(t *testing.T) {
	s := session(t)
	src, err := s.Context.NewBuffer(4 * 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := s.Context.NewBuffer(4 * 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	in := make([]int32, 1000)
	for i := range in {
		in[i] = int32(i * 7)
	}
	if err := WriteSlice(s.Queue, src, in); err != nil {
		t.Fatal(err)
	}
	if err := s.Queue.Copy(dst, src, 4*1000); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, 1000)
	if err := ReadSlice(s.Queue, dst, out); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i] != in[i] {
			t.Fatalf("copy[%d] = %d, want %d", i, out[i], in[i])
		}
	}
	if err := s.Queue.Copy(dst, src, 4*1001); err == nil {
		t.Error("a copy past the buffers' end was accepted")
	}
}

func TestBuildErrorHasLog(t *testing.T) {
	s := session(t)
	_, err := s.Context.Build("__kernel void broken(__global float *y) { y[0] = undeclared_thing; }", "")
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("Build of broken source: %v, want a *BuildError", err)
	}
	if !strings.Contains(be.Log, "undeclared_thing") {
		t.Errorf("the build log does not name the error:\n%s", be.Log)
	}
	var ce Error
	if !errors.As(err, &ce) || ce.Name() != "CL_BUILD_PROGRAM_FAILURE" {
		t.Errorf("the error is %v, want CL_BUILD_PROGRAM_FAILURE", err)
	}
}

// saxpyKernel builds saxpy in s and returns the program and its kernel
// set to run over n elements of one buffer, released when the test ends.
func saxpyKernel(t *testing.T, s *Session, n int) (*Program, *Kernel) {
	t.Helper()
	prog, err := s.Context.Build(saxpy, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Close() })
	k, err := prog.Kernel("saxpy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	b, err := s.Context.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := errors.Join(k.SetArgBuffer(0, b), k.SetArgBuffer(1, b), k.SetArgFloat32(2, 1), k.SetArgInt32(3, int32(n))); err != nil {
		t.Fatal(err)
	}
	return prog, k
}

func TestIllegalLocalSize(t *testing.T) {
	s := session(t)
	prog, k := saxpyKernel(t, s, 64)
	_, err := s.Queue.Run(k, []int{64}, []int{48}) // 48 does not divide 64
	var ce Error
	if !errors.As(err, &ce) || ce.Name() != "CL_INVALID_WORK_GROUP_SIZE" || ce.Call != "clEnqueueNDRangeKernel" {
		t.Errorf("local 48 for global 64: %v, want clEnqueueNDRangeKernel: CL_INVALID_WORK_GROUP_SIZE", err)
	}
	if !strings.Contains(err.Error(), "clEnqueueNDRangeKernel: CL_INVALID_WORK_GROUP_SIZE") {
		t.Errorf("message %q", err)
	}
	if _, err := prog.Kernel("nope"); err == nil || !strings.Contains(err.Error(), "CL_INVALID_KERNEL_NAME") {
		t.Errorf("unknown kernel: %v", err)
	}
}

func TestErrorNames(t *testing.T) {
	for code, name := range map[int32]string{-54: "CL_INVALID_WORK_GROUP_SIZE", -1001: "CL_PLATFORM_NOT_FOUND_KHR", -5: "CL_OUT_OF_RESOURCES", -12345: "CL_ERROR(-12345)"} {
		if got := CodeName(code); got != name {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, name)
		}
	}
	if !strings.Contains(ErrNoPlatform.Error(), "pocl-opencl-icd") {
		t.Errorf("ErrNoPlatform does not say what to install: %v", ErrNoPlatform)
	}
}

// synthetic is a machine with PoCL and an NVIDIA GPU, as the H100 host has.
func synthetic() []*Device {
	pocl := &Platform{Index: 0, Name: "Portable Computing Language"}
	nv := &Platform{Index: 1, Name: "NVIDIA CUDA"}
	return []*Device{
		{Platform: pocl, Index: 0, Name: "cpu-skylake-avx512-Intel(R) Xeon(R)", Type: CPU},
		{Platform: nv, Index: 0, Name: "NVIDIA H100 80GB HBM3", Type: GPU},
		{Platform: nv, Index: 1, Name: "NVIDIA H100 80GB HBM3", Type: GPU},
	}
}

func TestChoose(t *testing.T) {
	devs := synthetic()
	for spec, want := range map[string]string{
		"": "1:0", "GPU": "1:0", "gpu": "1:0", "CPU": "0:0", "1:1": "1:1", "0:0": "0:0",
		"h100": "1:0", "xeon": "0:0", "nvidia cuda": "1:0", "portable": "0:0",
	} {
		d, err := Choose(devs, spec)
		if err != nil || d.Spec() != want {
			t.Errorf("Choose(%q) = %v, %v; want device %s", spec, d, err, want)
		}
	}
	for _, spec := range []string{"ACCELERATOR", "2:0", "1:5", "radeon"} {
		_, err := Choose(devs, spec)
		if err == nil || !strings.Contains(err.Error(), "devices found") || !strings.Contains(err.Error(), "NVIDIA H100") {
			t.Errorf("Choose(%q): %v, want an error listing the devices", spec, err)
		}
	}
	cpuOnly := devs[:1]
	if d, err := Choose(cpuOnly, ""); err != nil || d.Type != CPU {
		t.Errorf("default without a GPU: %v, %v", d, err)
	}
}

func TestSelectReal(t *testing.T) {
	devs, err := AllDevices()
	if err != nil {
		t.Fatal(err)
	}
	d := devs[0]
	for _, spec := range []string{"", d.Spec(), d.Type.String(), d.Name[:min(6, len(d.Name))]} {
		if _, err := Select(spec); err != nil {
			t.Errorf("Select(%q): %v", spec, err)
		}
	}
	if _, err := Select("no-such-device-anywhere"); err == nil {
		t.Error("an unknown device was selected")
	}
	if d.MaxWorkGroupSize <= 0 || d.LocalMemSize <= 0 || len(d.MaxWorkItemSizes) == 0 || d.ComputeUnits <= 0 {
		t.Errorf("device properties not read: %+v", d)
	}
}

func rss(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(data))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestMemoryFlat builds and runs kernels hundreds of times, releasing
// everything with Close: the process's memory must not grow with them.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 300 programs")
	}
	s := session(t)
	x, y := make([]float32, 4096), make([]float32, 4096)
	var at50 int64
	for i := 0; i < 300; i++ {
		prog, err := s.Context.Build(saxpy, "")
		if err != nil {
			t.Fatal(err)
		}
		runSaxpy(t, s, prog, x, y, 2, 64)
		prog.Close()
		prog.Close() // Close is idempotent
		if i == 50 {
			at50 = rss(t)
		}
	}
	if grown := rss(t) - at50; grown > 30<<20 {
		t.Errorf("memory grew by %d MiB over 250 build-and-run cycles", grown>>20)
	}
}

func TestBuildLogKeepsWarnings(t *testing.T) {
	s := session(t)
	prog, err := s.Context.Build("#warning hplopt-log-check\n"+saxpy, "")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	if log := prog.Log(); !strings.Contains(log, "hplopt-log-check") {
		t.Fatalf("build log %q does not hold the #warning", log)
	}
}

// TestBinary builds saxpy, takes its binary, makes a program of it in
// another session (another context, as another process would) and checks
// that it computes what the source does; a damaged binary is refused with
// an error, not a crash.
func TestBinary(t *testing.T) {
	s := session(t)
	prog, err := s.Context.Build(saxpy, "")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	x, y := []float32{1, 2, 3, 4, 5, 6, 7, 8}, []float32{8, 7, 6, 5, 4, 3, 2, 1}
	// A launch first: PoCL compiles a work-group size at its first launch,
	// and the binary then holds that code too.
	want := runSaxpy(t, s, prog, x, y, 2, 4)
	bin, err := prog.Binary()
	if err != nil {
		t.Fatal(err)
	}
	if len(bin) == 0 {
		t.Fatal("Binary returned no bytes")
	}
	other := session(t)
	loaded, err := other.Context.BuildBinary(bin, "")
	if err != nil {
		t.Fatalf("BuildBinary of the program's own binary: %v", err)
	}
	defer loaded.Close()
	got := runSaxpy(t, other, loaded, x, y, 2, 4)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("y[%d] = %v from the binary, %v from the source", i, got[i], want[i])
		}
	}
	if again, err := loaded.Binary(); err != nil || len(again) == 0 {
		t.Errorf("Binary of a program made from a binary: %d bytes, %v", len(again), err)
	}

	if _, err := other.Context.BuildBinary(nil, ""); err == nil {
		t.Error("BuildBinary(nil): no error")
	}
	if p, err := other.Context.BuildBinary([]byte("not a binary of any device"), ""); err == nil {
		p.Close()
		t.Error("BuildBinary of garbage: no error")
	} else {
		t.Logf("garbage binary: %v", err)
	}
}

// TestStart launches saxpy without waiting, watches its status until it
// completes, and takes its time.
func TestStart(t *testing.T) {
	s := session(t)
	_, k := saxpyKernel(t, s, 1024)
	ev, err := s.Queue.Start(k, []int{1024}, []int{64})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	for st := Queued; st != Complete; {
		if st, err = ev.Status(); err != nil {
			t.Fatal(err)
		}
		if st != Queued && st != Submitted && st != Running && st != Complete {
			t.Fatalf("Status() = %d", st)
		}
	}
	if ns, err := ev.Wait(); err != nil || ns <= 0 {
		t.Errorf("Wait() = %d, %v", ns, err)
	}
}
