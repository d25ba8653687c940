package runner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// axpyStray is axpy with its results right and a stray write: the last
// work-item also writes count elements at offset off from the end of y
// (past it for off >= 0, before its start for off < -axpyN).
func axpyStray(count, off int) runner.Variant {
	return runner.Variant{
		KernelName: "axpy",
		Global:     []int{axpyN},
		Source: fmt.Sprintf(`/* stray %d at %d */
__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	y[i] = a * x[i] + y[i];
	if (i == n - 1)
		for (int k = 0; k < %d; k++)
			y[n + %d + k] = 1.0f;
}
`, count, off, count, off),
	}
}

// TestGuardZones: a variant that writes outside its output, even with the
// output right, is Wrong with how many elements it wrote and where (issue
// 18 #13: out-of-bounds writes were accepted); the zones are filled again,
// so the next correct variant passes; and the same through a worker
// process.
func TestGuardZones(t *testing.T) {
	p := axpyProblem()
	m := newMeasurer(t, p, runner.MeasureSettings{Runs: 1})
	if err := m.SetExpected(axpyWant(p)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	expect(t, "correct", m.Measure(ctx, axpyRef), autotune.OK)
	expect(t, "one past the end", m.Measure(ctx, axpyStray(1, 0)), autotune.Wrong, "runner: axpy: wrote 1 element past the end of y")
	expect(t, "correct after", m.Measure(ctx, axpyRef), autotune.OK)
	expect(t, "three past the end", m.Measure(ctx, axpyStray(3, 5)), autotune.Wrong, "wrote 3 elements past the end of y")
	expect(t, "before the start", m.Measure(ctx, axpyStray(2, -axpyN-2)), autotune.Wrong, "wrote 2 elements before the start of y")
	expect(t, "coarse after", m.Measure(ctx, axpyCoarse("g")), autotune.OK)

	if testing.Short() {
		return
	}
	w, err := startWorker(t, axpyRef)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	expect(t, "worker: one past the end", w.Measure(ctx, axpyStray(1, 0)), autotune.Wrong, "wrote 1 element past the end of y")
	expect(t, "worker: correct after", w.Measure(ctx, axpyCoarse("w")), autotune.OK)
}

// TestWorkerDeviceCheck: a worker process checking on the device (--check
// device; its expected outputs come from the reference, through the file
// it keeps them in) passes right variants and fails a wrong one with the
// host's message (y[999]) and one writing past the end by its guard zones.
func TestWorkerDeviceCheck(t *testing.T) {
	w := startPool(t, runner.WorkerSettings{Builders: -1, Measure: runner.MeasureSettings{Runs: 1, Check: runner.CheckOnDevice}})
	ctx := context.Background()
	expect(t, "right", w.Measure(ctx, axpyCoarse("device check")), autotune.OK)
	expect(t, "wrong", w.Measure(ctx, axpyWrong), autotune.Wrong, "y[999]", "of 262144 elements wrong")
	expect(t, "one past the end", w.Measure(ctx, axpyStray(1, 0)), autotune.Wrong, "wrote 1 element past the end of y")
	expect(t, "right after", w.Measure(ctx, axpyRef), autotune.OK)
}
