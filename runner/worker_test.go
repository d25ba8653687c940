package runner_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// TestMain lets the test binary serve as a measurement worker: the
// Workers of these tests start it again, marked as a worker.
func TestMain(m *testing.M) {
	runner.MaybeWorker()
	os.Exit(m.Run())
}

// axpyHang never ends: it spins until x[i] < -1e30, which no element is,
// and the compiler cannot know.
var axpyHang = runner.Variant{
	KernelName: "axpy",
	Global:     []int{axpyN},
	Source: `__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	for (;;) {
		if (x[i] < -1e30f)
			break;
		y[i] += a;
	}
}
`,
}

// Marks in a variant's source that make the worker fail on purpose (the
// faults injected by startWorker): crashMark makes it exit with status 3
// when it is asked to measure the variant, as a crashing OpenCL driver
// would end it; hangBuildMark makes it hang before the build, as a
// compiler that never returns would.
const (
	crashMark     = "plant-crash"
	hangBuildMark = "plant-hung-build"
)

// startWorker starts a worker for the axpy problem with a 3 s run limit
// and a 6 s build limit (PoCL builds axpy in well under a second, but make
// test runs packages side by side on 2 cores, and a 2 s limit once failed
// a build that was merely slow), skipping the test when there is no OpenCL device.
func startWorker(t *testing.T, ref runner.Variant) (*runner.Worker, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts worker processes and waits for time limits")
	}
	p := axpyProblem()
	newMeasurer(t, p, runner.MeasureSettings{}).Close() // skips without a device
	set := runner.WorkerSettings{
		Timeout:        3 * time.Second,
		TimeoutFactor:  -1,
		CompileTimeout: 6 * time.Second,
	}
	runner.InjectFaults(&set,
		runner.Fault{At: runner.AtBuild, Match: crashMark, Action: runner.ExitProcess},
		runner.Fault{At: runner.AtBuild, Match: hangBuildMark, Action: runner.Hang})
	return runner.StartWorker(context.Background(), p, &ref, set)
}

func TestWorker(t *testing.T) {
	w, err := startWorker(t, axpyRef)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if b, err := w.Baseline(); err != nil || !(b > 0) {
		t.Fatalf("Baseline() = %v, %v; want a positive time", b, err)
	}
	t.Logf("device %s, baseline %.3f ms", w.Device(), must(w.Baseline()))

	if w.Ready(axpyCoarse("w1")) {
		t.Error("Ready before Prepare")
	}
	w.Prepare(axpyCoarse("w1"))
	w.Prepare(axpyWrong)
	// The worker reports prepared builds as they end.
	for deadline := time.Now().Add(30 * time.Second); !w.Ready(axpyCoarse("w1")); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a prepared variant never became ready")
		}
	}
	if w.Ready(axpyCoarse("never prepared")) {
		t.Error("Ready for a variant never prepared")
	}
	res := w.Measure(ctx, axpyCoarse("w1"))
	expect(t, "coarse", res, autotune.OK)
	// Where the time went crosses from the worker: six launches of a
	// kernel that ran, a reset before each, a check of 2^18 floats.
	if c := res.Cost; !(c.Kernels > 0 && c.Run > c.Kernels && c.Check > 0 && c.Build >= 0) {
		t.Errorf("cost of a measured variant: %+v", c)
	}
	expect(t, "wrong", w.Measure(ctx, axpyWrong), autotune.Wrong, "y[999]")
	expect(t, "broken", w.Measure(ctx, axpyBroken), autotune.Compile, "undeclared_variable")
	// The builders built those prepared; the measuring worker, with
	// nothing else to do, built the one that was not.
	if st := w.Pool(); st.Builders != runner.DefaultBuilders() || st.Builds < 1 || !(st.Busy > 0) {
		t.Errorf("Pool() = %+v after 3 variants, 2 prepared, with %d builders", st, runner.DefaultBuilders())
	}

	// Its limit is 3 s, plus the build's 6 s where the device compiles at
	// its first launch (PoCL) and no builder made that launch.
	start := time.Now()
	hang := w.Measure(ctx, axpyHang)
	expect(t, "hang", hang, autotune.Timeout, "ran past its limit of")
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("hanging variant took %v to fail", d)
	}
	expect(t, "coarse after a hang", w.Measure(ctx, axpyCoarse("w2")), autotune.OK)
	if n := w.Restarts(); n != 1 {
		t.Errorf("Restarts() = %d after a hang, want 1", n)
	}

	// A variant that crashes the worker is measured once more in a new
	// one before it is blamed (the first crash may have come from outside).
	expect(t, "crash", w.Measure(ctx, axpyCoarse(crashMark)), autotune.Launch, "worker crashed", "twice", "exit status 3", crashMark)
	expect(t, "coarse after a crash", w.Measure(ctx, axpyCoarse("w3")), autotune.OK)
	if n := w.Restarts(); n != 3 {
		t.Errorf("Restarts() = %d after a crash measured twice, want 3", n)
	}

	hungBuild := w.Measure(ctx, axpyCoarse(hangBuildMark))
	expect(t, "hung build", hungBuild, autotune.Timeout, "did not finish within 6s", "worker killed")
	for _, r := range []autotune.Result{hang, hungBuild} {
		if r.Err != nil && runner.SlowStopped(r.Err.Error()) {
			t.Errorf("%q reads as a variant stopped for being slow, not at an absolute limit", r.Err)
		}
	}
	expect(t, "coarse after a hung build", w.Measure(ctx, axpyCoarse("w3b")), autotune.OK)
	if n := w.Restarts(); n != 4 {
		t.Errorf("Restarts() = %d after a hung build, want 4", n)
	}

	// The caller's context ends a hanging variant too.
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start = time.Now()
	expect(t, "hang cancelled", w.Measure(cctx, axpyHang), autotune.Timeout, "deadline exceeded")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancelled variant took %v to fail", d)
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	expect(t, "after Close", w.Measure(ctx, axpyCoarse("w4")), autotune.Launch, "closed")
}

func TestWorkerBadReference(t *testing.T) {
	w, err := startWorker(t, axpyBroken)
	if err == nil {
		w.Close()
		t.Fatal("StartWorker with a reference that does not build: no error")
	}
	if !strings.Contains(err.Error(), "undeclared_variable") {
		t.Errorf("StartWorker error %q does not carry the build log", err)
	}
}

func must(x float64, err error) float64 {
	if err != nil {
		panic(err)
	}
	return x
}
