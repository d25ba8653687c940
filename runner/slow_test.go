package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// TestSlowAfter: a variant whose first launch runs past its SlowAfter (a
// pause injected before it, as a kernel that slow would be) is stopped
// near SlowAfter, long before the run limit, and is a Timeout with
// SlowWhy in its message; a variant whose first launch ends within its
// SlowAfter is measured as usual, and so is a correct variant after the
// stop, in a new worker that checks it against the same expected outputs.
func TestSlowAfter(t *testing.T) {
	set := runner.WorkerSettings{Builders: 1, Timeout: 20 * time.Second, TimeoutFactor: -1}
	runner.InjectFaults(&set,
		runner.Fault{At: runner.AtRun, Match: "far too slow", Action: runner.Pause, Sleep: 5 * time.Second},
		runner.Fault{At: runner.AtRun, Match: "a little slow", Action: runner.Pause, Sleep: 200 * time.Millisecond})
	w := startPool(t, set)
	ctx := context.Background()
	slow, under, after := axpy8("far too slow"), axpy8("a little slow"), axpy8("after the stop")
	for _, v := range []*runner.Variant{&slow, &under} {
		v.SlowAfter, v.SlowWhy = 600*time.Millisecond, "slower than 10 x the single-point kernel's 0.06 ms"
	}
	// Built by the builder, whose first launch made PoCL's code (the grid
	// is under 65535): the measuring worker's first launch compiles
	// nothing, and SlowAfter is not extended by the build limit.
	for _, v := range []runner.Variant{slow, under, after} {
		w.Prepare(v)
	}
	waitBuilt(t, w, slow, under, after)

	start := time.Now()
	r := w.Measure(ctx, slow)
	took := time.Since(start)
	expect(t, "the slow variant", r, autotune.Timeout)
	if msg := r.Err.Error(); !strings.Contains(msg, "slower than 10 x the single-point kernel's 0.06 ms: stopped after 0.6 s") {
		t.Errorf("the slow variant's message %q does not say why it was stopped", msg)
	} else if !runner.SlowStopped(msg) {
		t.Errorf("SlowStopped(%q) is false", msg)
	}
	if took < 600*time.Millisecond || took > 3*time.Second {
		t.Errorf("the slow variant was stopped after %v, want about 0.6 s", took)
	}
	if r.Cost.Run < 600*time.Millisecond || r.Cost.Run > took {
		t.Errorf("the slow variant's run cost %v, want the 0.6 s it ran", r.Cost.Run)
	}
	if w.Restarts() != 0 {
		t.Errorf("%d restarts before the next measurement, want 0", w.Restarts())
	}
	expect(t, "a variant under its limit", w.Measure(ctx, under), autotune.OK)
	expect(t, "a variant after the stop", w.Measure(ctx, after), autotune.OK)
	if w.Restarts() != 1 {
		t.Errorf("%d restarts, want 1 (the worker killed at the stop)", w.Restarts())
	}
}

// axpy8 is axpyCoarse with eight elements per work-item: a grid under
// 65535 work-items, whose code a builder's first launch makes on PoCL.
func axpy8(tag string) runner.Variant {
	v := axpyCoarse(tag)
	v.Global = []int{axpyN / 8}
	v.Source = strings.Replace(v.Source, "k < 4", "k < 8", 1)
	return v
}
