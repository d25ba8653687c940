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
	"github.com/hplopt/hplopt/optimizer"
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
	intVar(fs, &s.Builds, "builds", 2, 1, 256, "variants built in parallel while one is measured")
	fs.Var(&orderFlag{&s.ReadyFirst}, "order", "order of measuring the variants built ahead: proposed (reproducible by --seed) or ready (the first built first)")
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
	if errors.Is(err, optimizer.ErrPinned) {
		return fs.usageError(err, stdout, stderr) // --params, found before measuring
	}
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
	if err := checkFits(cfg.Bench, cfg.Size, cfg.Device, tuneCopies); err != nil {
		return nil, nil, err
	}
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.DataSeed)
	if err != nil {
		return nil, nil, err
	}
	set := cfg.Settings
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
	fmt.Fprintf(w, "evaluations   %d in %.1f s (%.1f per minute)\n", r.Evaluations, r.Elapsed.Seconds(), r.EvalsPerMinute)
	sp := r.Spent
	fmt.Fprintf(w, "time          waiting for builds %.1f s, running variants %.1f s (kernels %.1f s), checking %.1f s, other %.1f s\n",
		sp.Build.Seconds(), sp.Run.Seconds(), sp.Kernels.Seconds(), sp.Check.Seconds(), r.Other().Seconds())
	f := r.Failures
	fmt.Fprintf(w, "failures      illegal %d, compile %d, launch %d, wrong %d, timeout %d\n", f.Illegal, f.Compile, f.Launch, f.Wrong, f.Timeout)
	fmt.Fprintf(w, "single-point  %.4f ms (%.2f GFLOP/s)\n", t.BaselineMs, gflops(inst.FLOPs, t.BaselineMs))
	if t.Best == nil {
		fmt.Fprintf(w, "best          none: %s\n", bench.NoResult(r.Evaluations))
		if o, msg, n := r.CommonFailure(); n > 0 {
			fmt.Fprintf(w, "why           %d of %d evaluations %s, %d of them with: %s\n", r.Failures.Count(o), r.Evaluations, o, n, oneLine(msg))
		}
	} else {
		fmt.Fprintf(w, "best          %.4f ms (%.2f GFLOP/s), speedup %.2fx\n", r.BestMs, gflops(inst.FLOPs, r.BestMs), t.Speedup())
		fmt.Fprintf(w, "params        %s\n", formatParams(t.BestParams))
	}
	if t.SinglePointFaster() {
		fmt.Fprintf(w, "keep          the single-point kernel: no variant beat it (--emit writes it; Optimize runs it)\n")
	}
}

// oneLine is the first line of msg, with a mark when more followed.
func oneLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return msg[:i] + " ..."
	}
	return msg
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
