package hpl_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
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
	if tu.Report.Evaluations != 6 {
		t.Errorf("%d evaluations, want 6", tu.Report.Evaluations)
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

// TestOptimizeKeepsSinglePoint runs Optimize with a budget too short for
// any variant: the kernel as written runs, and its result is right.
func TestOptimizeKeepsSinglePoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker")
	}
	b, _ := kernels.Get("conv1d")
	in, err := b.Instance(b.Sizes["tiny"], 5)
	if err != nil {
		t.Fatal(err)
	}
	ev := hpl.Eval(b.Kernel).Global(in.Global...).Optimize(hpl.OptimizerSettings{Strategy: "random", Seed: 4, Time: time.Nanosecond})
	if err := ev.Run(in.Args...); err != nil {
		t.Fatal(err)
	}
	tu := ev.Tuning()
	if tu == nil || !tu.SinglePointFaster() || tu.SinglePointSource == "" {
		t.Fatalf("tuning %+v: want the single-point kernel kept", tu)
	}
	if tu.Report.Evaluations != 0 {
		t.Errorf("%d evaluations in 1 ns", tu.Report.Evaluations)
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
