package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
)

// tuneConfig is one `hplopt tune`.
type tuneConfig struct {
	Bench    *kernels.Benchmark
	Size     kernels.Size
	Device   string
	Settings hpl.OptimizerSettings
	DataSeed int64
	Emit     string // file for the best kernel's OpenCL
	JSON     string // file for the JSON report
	Quiet    bool   // no progress lines

	size sizeFlags
}

const tuneAbout = `Searches the optimizer's parameters for a benchmark on a device and prints the
best variant. Every variant is built, run and checked against the single-point
kernel before its time counts. Ctrl-C ends the search and reports the best so
far. tune is the default verb: hplopt KERNEL ... is hplopt tune KERNEL ...`

// flags defines tune's flags on c.
func (c *tuneConfig) flags() *flagSet {
	fs := newFlagSet("tune", "KERNEL", tuneAbout)
	deviceVar(fs, &c.Device)
	c.size.define(fs)
	strategyVar(fs, &c.Settings.Strategy, "search strategy")
	secondsVar(fs, &c.Settings.Time, "t", 60*time.Second, autotune.MinBudget, autotune.MaxBudget, "", "search time budget in seconds")
	searchFlags(fs, &c.Settings, &c.DataSeed, 5)
	pinsVar(fs, &c.Settings.Fixed, nil, "pin optimizer parameters to values (the search runs over the others)")
	fs.StringVar(&c.Emit, "emit", "", "write the best kernel's OpenCL to `FILE`")
	fs.StringVar(&c.JSON, "json", "", "write the JSON report to `FILE`")
	fs.BoolVar(&c.Quiet, "q", false, "no progress lines")
	return fs
}

// searchFlags defines the flags of a search that tune and bench share on s
// and dataSeed, with runs timed launches per variant by default.
func searchFlags(fs *flagSet, s *hpl.OptimizerSettings, dataSeed *int64, runs int) {
	intVar(fs, &s.Evals, "e", 0, 0, math.MaxInt, "largest number of evaluations of a search (0: no limit)")
	intVar(fs, &s.Seed, "seed", 1, 1, math.MaxUint64, "seed of the search")
	intVar(fs, dataSeed, "data-seed", 1, 0, math.MaxInt64, "seed of the input data")
	intVar(fs, &s.Runs, "runs", runs, 1, 1000, "timed launches per variant (the median counts)")
	intVar(fs, &s.Builders, "builders", 0, -1, 1024, fmt.Sprintf("builder processes that build upcoming variants while one is measured (0: the host's cores less one, %d here; -1: none, the measuring worker builds)", runner.DefaultBuilders()))
	intVar(fs, &s.Builds, "builds", 0, 0, 4096, "upcoming variants prepared for the builders ahead of the one measured (0: twice the builders, at least 4)")
	fs.Var(&orderFlag{&s.Order}, "order", "order of measuring the variants built ahead: ready (whichever is built first; the strategy still hears the results in the order it proposed them) or proposed (waiting for each build in turn)")
	fs.Var(&cacheFlag{&s.Cache}, "cache", "directory of built programs kept between runs: builders' binaries and PoCL's kernel cache (\"\": $HPLOPT_CACHE, else hplopt under the user's cache directory; off: none)")
	sizeVar(fs, &s.CacheMax, "cache-max", runner.DefaultCacheMax, "the cache's bound: each run prunes it to this `SIZE` first, least recently used entries first")
	secondsVar(fs, &s.Timeout, "timeout", 0, autotune.MinBudget, autotune.MaxBudget, "10 s", "fixed part of a variant's time limit, on top of 20x the single-point time")
}

// parseTune reads tune's arguments: KERNEL and flags, in any order.
func parseTune(args []string) (*tuneConfig, *flagSet, error) {
	cfg := new(tuneConfig)
	fs := cfg.flags()
	operands, err := fs.parse(args)
	if err == nil {
		cfg.Bench, cfg.Size, err = cfg.size.benchmark(operands)
	}
	return cfg, fs, err
}

// tuneVerb is `hplopt tune`, also reached as `hplopt KERNEL ...`: search the
// optimizer's parameters for a benchmark on a device and print the best
// variant. Ctrl-C ends the search early and reports the best so far.
func tuneVerb(args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseTune(args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t, inst, err := tuneBenchmark(ctx, cfg, stdout)
	if t != nil {
		printTuning(stdout, cfg, t, inst)
		if werr := writeTuning(cfg, t); werr != nil {
			fmt.Fprintf(stderr, "hplopt tune: %v\n", werr)
			return 1
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt tune: %v\n", err)
		return 1
	}
	if t.Best == nil {
		fmt.Fprintf(stderr, "hplopt tune: no variant ran correctly in %d evaluations\n", t.Report.Evaluations)
		return 1
	}
	return 0
}

// tuneBenchmark sets the benchmark up and searches.
func tuneBenchmark(ctx context.Context, cfg *tuneConfig, progress io.Writer) (*hpl.Tuning, *kernels.Instance, error) {
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.DataSeed)
	if err != nil {
		return nil, nil, err
	}
	set := cfg.Settings
	set.Cache = cacheDir(set.Cache)
	if !cfg.Quiet {
		var last time.Time
		set.Progress = func(p autotune.Progress) {
			if time.Since(last) < time.Second && p.Evaluations > 1 {
				return
			}
			last = time.Now()
			best := "none yet"
			if p.Found {
				best = fmt.Sprintf("%.4f ms", p.BestMs)
			}
			fmt.Fprintf(progress, "  %6.1fs  evaluations %5d  failures %4d  best %s\n", p.Elapsed.Seconds(), p.Evaluations, p.Failures, best)
		}
	}
	ev := hpl.Eval(cfg.Bench.Kernel).Device(cfg.Device).Global(inst.Global...)
	if !cfg.Quiet {
		fmt.Fprintf(progress, "tuning %s (%s) %s with %s search for %s\n", cfg.Bench.Name, cfg.Bench.Paper, cfg.Size, set.Strategy, set.Time)
	}
	t, err := ev.Tune(ctx, set, inst.Args...)
	return t, inst, err
}

func printTuning(w io.Writer, cfg *tuneConfig, t *hpl.Tuning, inst *kernels.Instance) {
	r := t.Report
	fmt.Fprintf(w, "kernel        %s (%s) %s\n", cfg.Bench.Name, cfg.Bench.Paper, cfg.Size)
	fmt.Fprintf(w, "device        %s\n", t.Device)
	fmt.Fprintf(w, "strategy      %s, seed %d, budget %s, stopped: %s\n", t.Settings.Strategy, t.Settings.Seed, t.Settings.Time, r.Stopped)
	fmt.Fprintf(w, "space         %s points\n", t.SpaceSize)
	fmt.Fprintf(w, "evaluations   %d in %.1f s (%.1f per minute), measured in %s order\n", r.Evaluations, r.Elapsed.Seconds(), r.EvalsPerMinute, t.Settings.Order)
	runs := fmt.Sprintf("%d timed launches", t.BaselineRuns)
	if t.BaselineRuns == 0 {
		runs = "its warm-up launch, the budget leaving no time for a timed one"
	}
	fmt.Fprintf(w, "setup         %.1f s: worker and builders started, single-point kernel timed (%s); %.1f s in all\n", t.Setup.Seconds(), runs, (t.Setup + r.Elapsed).Seconds())
	sp := r.Spent
	fmt.Fprintf(w, "time          waiting for builds %.1f s, running variants %.1f s (kernels %.1f s), checking %.1f s, other %.1f s\n",
		sp.Build.Seconds(), sp.Run.Seconds(), sp.Kernels.Seconds(), sp.Check.Seconds(), r.Other().Seconds())
	fmt.Fprintf(w, "device        running kernels %.0f%% of the search\n", 100*t.KernelFraction())
	if p := t.Pool; p.Builders > 0 {
		fmt.Fprintf(w, "builders      %d, busy %.0f%% of the search: %d built (%d failed), %d from the cache, %d restarted, %d beside slow builds\n",
			p.Builders, 100*t.PoolUtilization(), p.Builds, p.Failed, p.CacheHits, p.Restarts, p.Extra)
	}
	f := r.Failures
	fmt.Fprintf(w, "failures      illegal %d, compile %d, launch %d, wrong %d, timeout %d\n", f.Illegal, f.Compile, f.Launch, f.Wrong, f.Timeout)
	fmt.Fprintf(w, "single-point  %.4f ms (%.2f GFLOP/s)\n", t.BaselineMs, gflops(inst.FLOPs, t.BaselineMs))
	if t.Best == nil {
		fmt.Fprintf(w, "best          none: %s\n", bench.NoResult(r.Evaluations))
	} else {
		fmt.Fprintf(w, "best          %.4f ms (%.2f GFLOP/s), speedup %.2fx\n", r.BestMs, gflops(inst.FLOPs, r.BestMs), t.Speedup())
		fmt.Fprintf(w, "params        %s\n", formatParams(t.BestParams))
	}
	if t.SinglePointFaster() {
		fmt.Fprintf(w, "keep          the single-point kernel: no variant beat it (--emit writes it; Optimize runs it)\n")
	}
}

func gflops(flops, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return flops / (ms / 1e3) / 1e9
}

func formatParams(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}

func writeTuning(cfg *tuneConfig, t *hpl.Tuning) error {
	var errs []error
	if cfg.Emit != "" {
		src := t.Source
		if t.SinglePointFaster() {
			src = t.SinglePointSource
		}
		errs = append(errs, os.WriteFile(cfg.Emit, []byte(src), 0o644))
	}
	if cfg.JSON != "" {
		data, err := json.MarshalIndent(t.JSON(), "", "  ")
		if err == nil {
			err = os.WriteFile(cfg.JSON, append(data, '\n'), 0o644)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
