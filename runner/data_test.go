package runner_test

import (
	"context"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// axpyClobber computes y wrongly and overwrites x, an input: the worker
// keeps no copy of the inputs, so the parent must send x again before the
// next variant for that one to be right.
var axpyClobber = runner.Variant{
	KernelName: "axpy",
	Global:     []int{axpyN},
	Source: `__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	y[i] = 0.0f;
	((__global float *)x)[i] = -1.0f;
}
`,
}

// TestWorkerData checks how the problem's data reaches a worker and is held
// there: the expected outputs given by the caller (sent after the arrays
// and kept in a file), an output that starts all zero (zeroed on the
// device before every launch instead of copied), inputs a failing variant
// overwrote (sent again, with no new worker), and a replacement worker
// after a crash, which reads the expected outputs its predecessor wrote.
func TestWorkerData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	p := axpyProblem()
	newMeasurer(t, p, runner.MeasureSettings{}).Close() // skips without a device
	want := axpyWant(p)
	set := runner.WorkerSettings{Want: want}
	runner.InjectFaults(&set, runner.Fault{At: runner.AtBuild, Match: crashMark, Action: runner.ExitProcess})
	w, err := runner.StartWorker(context.Background(), p, nil, set)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	expect(t, "coarse", w.Measure(ctx, axpyCoarse("d1")), autotune.OK)
	expect(t, "clobber", w.Measure(ctx, axpyClobber), autotune.Wrong, "y[")
	expect(t, "coarse after clobbered inputs", w.Measure(ctx, axpyCoarse("d2")), autotune.OK)
	expect(t, "wrong", w.Measure(ctx, axpyWrong), autotune.Wrong, "y[999]")
	if n := w.Restarts(); n != 0 {
		t.Errorf("Restarts() = %d after wrong variants, want 0: the inputs are sent again", n)
	}
	expect(t, "crash", w.Measure(ctx, axpyCoarse(crashMark)), autotune.Launch, "worker crashed")
	expect(t, "coarse in a new worker", w.Measure(ctx, axpyCoarse("d3")), autotune.OK)
	expect(t, "wrong in a new worker", w.Measure(ctx, axpyWrong), autotune.Wrong, "y[999]")

	// An output that starts at zero, written by the reference: y = a*x.
	z := axpyProblem()
	clear(z.Args[0].F32)
	scale := runner.Variant{KernelName: "scale", Global: []int{axpyN}, Source: `__kernel void scale(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	y[i] += a * x[i];
}
`}
	wz, err := runner.StartWorker(ctx, z, &scale, runner.WorkerSettings{})
	if err != nil {
		t.Fatal(err)
	}
	defer wz.Close()
	// A variant that accumulates into y (as the reference does) is right
	// only if y is zero again before each of its launches (one warm-up,
	// five timed).
	expect(t, "coarse on zeros", wz.Measure(ctx, axpyCoarse("z1")), autotune.OK)
	acc := scale
	acc.Source = "/* again */\n" + scale.Source
	expect(t, "accumulating again", wz.Measure(ctx, acc), autotune.OK)
}
