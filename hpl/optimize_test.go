package hpl_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/transforms"
)

func TestMain(m *testing.M) {
	runner.MaybeWorker()
	if os.Getenv(programEnv) != "" {
		os.Exit(optimizeProgram())
	}
	// Tests never touch the user's records: the default records database
	// (optimizer.DefaultRecords) goes to a temporary cache directory,
	// PoCL's compiler cache stays where it was.
	dir, err := os.MkdirTemp("", "hpl-test-cache-")
	if err != nil {
		panic(err)
	}
	isolateCache(dir)
	status := m.Run()
	os.RemoveAll(dir)
	os.Exit(status)
}

// TestOptimize runs the paper's eval(kernel).optimize(settings)(args) on
// the default device: a short search, then the best variant runs and its
// result matches the CPU reference.
func TestOptimize(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	b, _ := kernels.Get("matmul")
	in, err := b.Instance(b.Sizes["tiny"], 3)
	if err != nil {
		t.Fatal(err)
	}
	set := hpl.OptimizerSettings{Strategy: "random", Seed: 2, Evals: 6, Time: time.Minute}
	ev := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(set)
	if err := ev.Run(in.Args...); err != nil {
		t.Fatal(err)
	}
	tu := ev.Tuning()
	if tu == nil || tu.Best == nil {
		t.Fatal("no tuning recorded")
	}
	if tu.Report.Counted(6) != 6 {
		t.Errorf("%d evaluations (%d rejected as illegal), want 6", tu.Report.Evaluations, tu.Report.Rejected)
	}
	if err := in.Check(0); err != nil {
		t.Fatal(err)
	}
	// A second Run on the same shapes reuses the search.
	ev2 := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(set)
	if err := ev2.Run(in.Args...); err != nil {
		t.Fatal(err)
	}
	if ev2.Tuning() != tu {
		t.Error("the second Run searched again")
	}
}

// TestOptimizeKeepsSinglePoint runs Optimize where no variant runs (the
// global size pinned to 7, which divides no domain of conv1d tiny's 960
// points, makes most settings illegal, and with seed 4 every one random
// search draws: the budget of 2 and the 2 illegal ones that do not count
// against it): the kernel as written runs, and its result is right.
func TestOptimizeKeepsSinglePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker")
	}
	b, _ := kernels.Get("conv1d")
	in, err := b.Instance(b.Sizes["tiny"], 5)
	if err != nil {
		t.Fatal(err)
	}
	set := hpl.OptimizerSettings{Strategy: "random", Seed: 4, Evals: 2, Time: time.Minute, Fixed: map[transforms.Name]int{transforms.SzX: 7}}
	ev := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(set)
	if err := ev.Run(in.Args...); err != nil {
		t.Fatal(err)
	}
	tu := ev.Tuning()
	if tu == nil || !tu.SinglePointFaster() || tu.SinglePointSource == "" {
		t.Fatalf("tuning %+v: want the single-point kernel kept", tu)
	}
	if r := tu.Report; r.Measured != 0 || r.Failures.Illegal != r.Evaluations || r.Counted(2) != 2 {
		t.Errorf("%d evaluations (%d measured, %d rejected), failures %+v: want every one illegal, 2 of them counted against the budget", r.Evaluations, r.Measured, r.Rejected, r.Failures)
	}
	if err := in.Check(0); err != nil {
		t.Fatal(err)
	}
}

// TestTuneBudgetAndSeed checks that a search stops at its time budget and
// that a random search with a fixed seed proposes the same settings.
func TestTuneBudgetAndSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	b, _ := kernels.Get("conv1d")
	in, _ := b.Instance(b.Sizes["tiny"], 1)
	run := func() *hpl.Tuning {
		tu, err := hpl.Eval(b.Kernel).Global(in.Global...).Tune(context.Background(), hpl.OptimizerSettings{Strategy: "random", Seed: 9, Evals: 4, Time: time.Minute, NoRecords: true}, in.Args...)
		if err != nil {
			t.Fatal(err)
		}
		return tu
	}
	a, c := run(), run()
	for i := range a.Report.History {
		if a.Report.History[i].Point.Key() != c.Report.History[i].Point.Key() {
			t.Fatalf("evaluation %d: %s, then %s", i, a.Report.History[i].Point, c.Report.History[i].Point)
		}
	}
	start := time.Now()
	tu, err := hpl.Eval(b.Kernel).Global(in.Global...).Tune(context.Background(), hpl.OptimizerSettings{Strategy: "genetic", Time: 3 * time.Second, NoRecords: true}, in.Args...)
	if err != nil {
		t.Fatal(err)
	}
	if el := tu.Report.Elapsed; el > 3*time.Second+2*time.Second {
		t.Errorf("a 3 s search took %s (whole call %s)", el, time.Since(start))
	}
}

// TestParseSettings reads the paper's command-line form.
func TestParseSettings(t *testing.T) {
	s, rest, err := hpl.ParseSettings([]string{"-d", "GPU", "-n", "1024,1024", "-s", "g", "-t", "3600", "-e", "50", "--seed=4"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Strategy != "genetic" || s.Time != time.Hour || s.Evals != 50 || s.Seed != 4 {
		t.Errorf("settings %+v", s)
	}
	if len(rest) != 4 || rest[0] != "-d" || rest[3] != "1024,1024" {
		t.Errorf("rest %v", rest)
	}
	if _, _, err := hpl.ParseSettings([]string{"-s", "simplex"}); err == nil {
		t.Error("an unknown strategy was accepted")
	}
	// NaN, infinite and huge budgets once became negative durations (a
	// search that never ends), and one under a nanosecond the 60 s default.
	for _, bad := range []string{"-5", "0", "NaN", "Inf", "+Inf", "-Inf", "1e10", "1e-10", "0.0009", "1e400", "x"} {
		if s, _, err := hpl.ParseSettings([]string{"-t", bad}); err == nil {
			t.Errorf("-t %s: accepted as %s", bad, s.Time)
		} else if !strings.Contains(err.Error(), "from 0.001 to 1e+06") {
			t.Errorf("-t %s: %v does not give the range", bad, err)
		}
	}
	for arg, want := range map[string]time.Duration{"0.001": time.Millisecond, "1e6": 1e6 * time.Second, "2.5": 2500 * time.Millisecond} {
		if s, _, err := hpl.ParseSettings([]string{"-t", arg}); err != nil || s.Time != want {
			t.Errorf("-t %s: %s, %v; want %s", arg, s.Time, err, want)
		}
	}
}

// endless never ends: every work-item adds to its y while its x is above
// -1, which no x is below (the compiler cannot know).
var endless = hpl.MustKernel("endless", func(k *hpl.K) {
	y := k.Array("y", hpl.Float32, 1)
	x := k.Array("x", hpl.Float32, 1)
	k.Compute(func() {
		k.While(x.At(hpl.Idx).Gt(-1.0), func() {
			k.AddTo(y.At(hpl.Idx), 1.0)
		})
	})
})

// TestOptimizeEndlessKernel: the budget covers timing the single-point
// kernel, so one that never ends is stopped at the budget with an error
// that says so (it was found only after the worker's 5 minute start limit).
func TestOptimizeEndlessKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker and waits for the budget")
	}
	x, y := hpl.NewArray(hpl.Float32, 256), hpl.NewArray(hpl.Float32, 256)
	const budget = 2 * time.Second
	start := time.Now()
	err := hpl.Eval(endless).Optimize(hpl.OptimizerSettings{Time: budget}).Run(y, x)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "budget of 2s") {
		t.Fatalf("Optimize of a kernel that never ends: %v, want an error naming the budget", err)
	}
	if took > budget+3*time.Second {
		t.Errorf("it took %v to stop, with a budget of %v", took, budget)
	}
	t.Logf("%v: %v", took, err)
}

// slow makes n steps per work-item: y[i] = sum over j < n of x[j] * i.
var slow = hpl.MustKernel("slow", func(k *hpl.K) {
	y := k.Array("y", hpl.Float32, 1)
	x := k.Array("x", hpl.Float32, 1)
	n := k.Scalar("n", hpl.Int32)
	j := k.Int("j")
	k.Compute(func() {
		k.Set(y.At(hpl.Idx), 0.0)
		k.For(j, 0, n, func() {
			k.AddTo(y.At(hpl.Idx), x.At(j).Mul(hpl.Idx))
		})
	})
})

// TestTuneSlowSinglePoint: a single-point kernel too slow for its timed
// launches to fit in a quarter of the budget is timed fewer times, and the
// tuning ends within the budget (and one evaluation).
func TestTuneSlowSinglePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker and tunes for a few seconds")
	}
	const n = 1 << 15
	const budget = 5 * time.Second
	quarter := float64(budget / 4 / time.Millisecond)
	// The kernel must be slow enough that five timed launches pass a
	// quarter of the budget on the machine that runs the test: it is made
	// four times longer (more work-items) until it is.
	for items := 16384; ; items *= 4 {
		x, y := hpl.NewArray(hpl.Float32, n), hpl.NewArray(hpl.Float32, items)
		// Run once first, so that PoCL's kernel cache holds the
		// single-point kernel and the budget is not spent compiling it on
		// a loaded machine (what the test checks is the number of timed
		// launches).
		if err := hpl.Eval(slow).Global(items).Run(y, x, int32(n)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		tu, err := hpl.Eval(slow).Tune(context.Background(), hpl.OptimizerSettings{Strategy: "random", Time: budget, Cache: optimizer.NoCache}, y, x, int32(n))
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d work-items: single-point %.1f ms, %d timed launches; setup %v, search %v (%d evaluations); %v in all", items, tu.BaselineMs, tu.BaselineRuns, tu.Setup, tu.Report.Elapsed, tu.Report.Evaluations, took)
		if tu.BaselineMs*5 <= quarter && items < 1<<20 {
			continue
		}
		if tu.BaselineMs*5 <= quarter {
			t.Fatalf("the single-point kernel takes %.1f ms with %d work-items: too fast to test the rule", tu.BaselineMs, items)
		}
		if tu.BaselineRuns >= 5 || tu.BaselineMs*float64(tu.BaselineRuns) > 1.5*quarter {
			t.Errorf("%d timed launches of %.1f ms within a quarter of a %v budget", tu.BaselineRuns, tu.BaselineMs, budget)
		}
		if took > budget+2*time.Second {
			t.Errorf("a tuning with a budget of %v took %v", budget, took)
		}
		return
	}
}
