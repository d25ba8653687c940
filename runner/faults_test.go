package runner_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/runner"
)

// faults runs the fault-injection suite (make faults).
var faults = flag.Bool("faults", false, "run the fault-injection suite (make faults)")

// workerFault is one row of the worker's fault-injection suite: a fault
// the worker makes on purpose (runner.InjectFaults) for the variants whose
// source holds faultMark, the outcome the faulty variant must get, and
// then a correct variant, which must still be measured (else a
// measurement is lost).
type workerFault struct {
	name  string
	fault runner.Fault
	want  autotune.Outcome
	msg   string // in the faulty variant's error
}

// faultMark marks the variants the rows' faults apply to.
const faultMark = "inject-the-fault"

var workerFaults = []workerFault{
	{"the worker hangs at setup", runner.Fault{At: runner.AtSetup, Action: runner.Hang}, 0, "setup took longer than"},
	{"the worker hangs building", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.Hang}, autotune.Compile, "did not finish within"},
	{"the worker hangs running", runner.Fault{At: runner.AtRun, Match: faultMark, Action: runner.Hang}, autotune.Timeout, "ran past its limit"},
	{"the worker crashes building", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.ExitProcess}, autotune.Launch, "exit status 3"},
	{"the worker crashes running", runner.Fault{At: runner.AtRun, Match: faultMark, Action: runner.ExitProcess}, autotune.Launch, "exit status 3"},
}

// TestFaults runs the worker's fault-injection suite and prints its
// tally: faults injected, runs completed as they must (the faulty variant
// failing as it must, or a worker that hangs at setup refused in time),
// measurements lost (correct variants not measured after a fault). Run it
// with make faults (go test ./runner -run TestFaults -faults -v).
func TestFaults(t *testing.T) {
	if !*faults {
		t.Skip("the fault-injection suite runs with -faults (make faults)")
	}
	p := axpyProblem()
	newMeasurer(t, p, runner.MeasureSettings{}).Close() // skips without a device
	var injected, completed, lost int
	var lines []string
	for _, f := range workerFaults {
		t.Run(f.name, func(t *testing.T) {
			set := runner.WorkerSettings{Timeout: 2 * time.Second, TimeoutFactor: -1, CompileTimeout: 2 * time.Second, StartTimeout: 5 * time.Second}
			runner.InjectFaults(&set, f.fault)
			injected++
			ok, l := false, 0
			start := time.Now()
			w, err := runner.StartWorker(context.Background(), p, &axpyRef, set)
			switch {
			case f.fault.At == runner.AtSetup:
				ok = err != nil && strings.Contains(err.Error(), f.msg) && time.Since(start) < 10*time.Second
				if !ok {
					t.Errorf("StartWorker: %v after %v, want %q within 10 s", err, time.Since(start), f.msg)
				}
				if w != nil {
					w.Close()
				}
			case err != nil:
				t.Fatal(err)
			default:
				defer w.Close()
				ctx := context.Background()
				r := w.Measure(ctx, axpyCoarse(faultMark))
				ok = r.Outcome == f.want && r.Err != nil && strings.Contains(r.Err.Error(), f.msg)
				if !ok {
					t.Errorf("the faulty variant: %v (%v), want %v and %q", r.Outcome, r.Err, f.want, f.msg)
				}
				for i := 0; i < 2; i++ {
					if r := w.Measure(ctx, axpyCoarse(fmt.Sprintf("after %d", i))); r.Outcome != autotune.OK {
						t.Errorf("a correct variant after the fault: %v (%v)", r.Outcome, r.Err)
						l++
					}
				}
			}
			if ok {
				completed++
			}
			lost += l
			lines = append(lines, fmt.Sprintf("  %-48s completed %-5v lost %d", f.name, ok, l))
		})
	}
	fmt.Printf("fault-injection suite (runner's worker):\n%s\nfaults injected %d, runs completed %d, measurements lost %d\n",
		strings.Join(lines, "\n"), injected, completed, lost)
}
