package runner_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"syscall"
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
	// pool: the worker has a builder, which the faulty variant is given
	// (Prepare) before it is measured; otherwise the measuring worker
	// builds.
	pool bool
}

// faultMark marks the variants the rows' faults apply to.
const faultMark = "inject-the-fault"

var workerFaults = []workerFault{
	{"the worker hangs at setup", runner.Fault{At: runner.AtSetup, Action: runner.Hang}, 0, "setup took longer than", false},
	{"the worker hangs building", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.Hang}, autotune.Timeout, "did not finish within", false},
	{"the worker hangs running", runner.Fault{At: runner.AtRun, Match: faultMark, Action: runner.Hang}, autotune.Timeout, "ran past its limit", false},
	{"the worker crashes building", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.ExitProcess}, autotune.Launch, "exit status 3", false},
	{"the worker crashes running", runner.Fault{At: runner.AtRun, Match: faultMark, Action: runner.ExitProcess}, autotune.Launch, "exit status 3", false},
	{"the worker crashes running, once", runner.Fault{At: runner.AtRun, Match: faultMark, Action: runner.ExitProcess, First: true}, autotune.OK, "", false},
	{"a builder hangs building", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.Hang, Builder: true}, autotune.Timeout, "did not finish within", true},
	{"a builder crashes building, once", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.ExitProcess, Builder: true, First: true}, autotune.OK, "", true},
	// The compiler's last words (here the fault's message, which names
	// the mark) stay with the failure.
	{"a builder crashes building, every time", runner.Fault{At: runner.AtBuild, Match: faultMark, Action: runner.ExitProcess, Builder: true}, autotune.Compile, faultMark, true},
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
			set := runner.WorkerSettings{Timeout: 2 * time.Second, TimeoutFactor: -1, CompileTimeout: 2 * time.Second, StartTimeout: 5 * time.Second, Builders: -1}
			started := make(chan struct{})
			if f.pool {
				// Stderr tells when a builder has met the fault.
				set.Builders = 1
				set.Stderr = &notifyWriter{mark: "injected fault at build", f: func() { close(started) }}
			}
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
				v := axpyCoarse(faultMark)
				if f.pool {
					w.Prepare(v)
					select {
					case <-started:
					case <-time.After(time.Minute):
						t.Fatal("no builder met the fault within a minute")
					}
				}
				r := w.Measure(ctx, v)
				ok = r.Outcome == f.want && (f.msg == "" || r.Err != nil && strings.Contains(r.Err.Error(), f.msg))
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

// TestWaitReadyWorkerKilled: the measuring worker killed from outside
// between measurements, while the search waits for a variant built ahead:
// WaitReady returns (nothing becomes ready before a Measure replaces the
// worker) and the next Measure measures. Found by the fault suite: the
// search waited out its whole budget.
func TestWaitReadyWorkerKilled(t *testing.T) {
	w := startPool(t, runner.WorkerSettings{Builders: 1})
	v := axpyCoarse("built ahead")
	w.Prepare(v)
	waitBuilt(t, w, v)
	u := axpyCoarse("not measured yet")
	if err := syscall.Kill(runner.WorkerPID(w), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A builder builds u; its binary finds no worker to take it.
	builds := w.Pool().Builds
	w.Prepare(u)
	for deadline := time.Now().Add(time.Minute); w.Pool().Builds == builds; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the builder did not build the variant within a minute")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if i := w.WaitReady(ctx, []runner.Variant{u}); i != 0 || time.Since(start) > 10*time.Second {
		t.Fatalf("WaitReady = %d after %v, want 0 at once", i, time.Since(start))
	}
	expect(t, "after the worker was killed", w.Measure(ctx, u), autotune.OK)
}
