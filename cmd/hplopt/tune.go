package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

const tuneUsage = "usage: hplopt [tune] KERNEL [-d DEVICE] [--size tiny|S|M|L] [-n N[,N...]] [-k K[,K...]] [-s genetic|random|exhaustive] [-t SECONDS] [-e EVALUATIONS] [--seed N] [--params name=value,...] [--builds N] [--order proposed|ready] [--emit FILE.cl] [--json FILE] [-q]"

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
}

func parseTune(args []string) (*tuneConfig, error) {
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var n, k intList
	device := fs.String("d", "", "OpenCL device (GPU, CPU, ACCELERATOR, P:D or part of a name)")
	fs.StringVar(device, "device", "", "same as -d")
	class := fs.String("size", "", "size class: tiny, S, M or L (the paper's Table 3)")
	fs.Var(&n, "n", "points per global dimension, x first")
	fs.Var(&k, "k", "compute loop lengths, outermost first")
	strategy := fs.String("s", strategies.Default, "search strategy: "+strings.Join(strategies.Names(), ", ")+" (a prefix is enough)")
	secs := fs.Float64("t", 60, "search time budget in seconds")
	evals := fs.Int("e", 0, "largest number of evaluations (0: no limit)")
	seed := fs.Uint64("seed", 1, "seed of the search")
	dataSeed := fs.Int64("data-seed", 1, "seed of the input data")
	emit := fs.String("emit", "", "write the best kernel's OpenCL to this file")
	js := fs.String("json", "", "write the JSON report to this file")
	quiet := fs.Bool("q", false, "no progress lines")
	runs := fs.Int("runs", 5, "timed launches per variant (the median counts)")
	pins := fs.String("params", "", "pin optimizer parameters: name=value,... (the search runs over the others)")
	builds := buildFlags(fs)
	timeout := fs.Float64("timeout", 0, "fixed per-variant time limit in seconds (0: 10 s), on top of 20x the single-point time")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if name != "" {
			return nil, fmt.Errorf("unexpected argument %q", rest[0])
		}
		name = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return nil, err
		}
		if len(fs.Args()) > 0 {
			return nil, fmt.Errorf("unexpected argument %q", fs.Args()[0])
		}
	}
	if name == "" {
		return nil, fmt.Errorf("no kernel given (one of %s)", strings.Join(kernels.Names(), ", "))
	}
	b, err := kernels.Get(name)
	if err != nil {
		return nil, err
	}
	if *class == "" && n == nil && k == nil {
		*class = "tiny"
	}
	size, err := b.ParseSize(*class, n, k)
	if err != nil {
		return nil, err
	}
	st, err := strategyName(*strategy)
	if err != nil {
		return nil, err
	}
	if *secs <= 0 {
		return nil, fmt.Errorf("-t %g: the time budget must be positive", *secs)
	}
	if *evals < 0 {
		return nil, fmt.Errorf("-e %d: must not be negative", *evals)
	}
	ahead, readyFirst, err := builds()
	if err != nil {
		return nil, err
	}
	fixed, err := transforms.ParsePins(*pins)
	if err != nil {
		return nil, err
	}
	return &tuneConfig{
		Bench: b, Size: size, Device: *device, DataSeed: *dataSeed, Emit: *emit, JSON: *js, Quiet: *quiet,
		Settings: hpl.OptimizerSettings{
			Strategy: st, Seed: *seed, Time: time.Duration(*secs * float64(time.Second)), Evals: *evals,
			Timeout: time.Duration(*timeout * float64(time.Second)), Fixed: fixed, Runs: *runs, Builds: ahead, ReadyFirst: readyFirst,
		},
	}, nil
}

// tuneVerb is `hplopt tune`, also reached as `hplopt KERNEL ...`: search the
// optimizer's parameters for a benchmark on a device and print the best
// variant. Ctrl-C ends the search early and reports the best so far.
func tuneVerb(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseTune(args)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt tune: %v\n%s\n", err, tuneUsage)
		return 2
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

// buildFlags defines --builds and --order on fs, for tune and bench; the
// function it returns reads them after parsing.
func buildFlags(fs *flag.FlagSet) func() (builds int, readyFirst bool, err error) {
	order := fs.String("order", "proposed", "order of measuring the variants built ahead: proposed (reproducible by --seed) or ready (the first built first)")
	builds := fs.Int("builds", 0, "variants built in parallel while one is measured (0: 2)")
	return func() (int, bool, error) {
		if *order != "proposed" && *order != "ready" {
			return 0, false, fmt.Errorf("--order %q: want proposed or ready", *order)
		}
		if *builds < 0 {
			return 0, false, fmt.Errorf("--builds %d: must not be negative", *builds)
		}
		return *builds, *order == "ready", nil
	}
}

// strategyName resolves a strategy's name or prefix (-s g).
func strategyName(s string) (string, error) {
	info, err := strategies.Lookup(s)
	return info.Name, err
}
