package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

const runUsage = "usage: hplopt run KERNEL [-d DEVICE] [--size tiny|S|M|L] [-n N[,N...]] [-k K[,K...]] [--seed N] [--reps N] [--sample N] [--params NAME=V,...]"

// runConfig is one `hplopt run`: a benchmark instance and how to launch it.
type runConfig struct {
	Bench  *kernels.Benchmark
	Size   kernels.Size
	Seed   int64
	Device string // opencl.Select spec; "" for the default device
	Reps   int    // kernel runs; the best time is reported (default 1)
	// Sample is the number of points checked against the CPU reference:
	// 0 checks every point when that costs the CPU under refFLOPs and a
	// sample otherwise, -1 every point.
	Sample int

	// Params is the --params flag as given: transform parameters, which
	// applyParams turns into Variant, Global and Local.
	Params string
	// Variant, if not nil, is a transformed version of the benchmark's
	// kernel (same parameters, specialized for Size or not) to run with
	// Global and Local (nil: the single-point domain, and the
	// implementation's choice of work-groups) instead of the single-point
	// kernel.
	Variant       *ast.Kernel
	Global, Local []int
}

// applyParams, if not nil, turns cfg.Params into cfg.Variant, cfg.Global
// and cfg.Local: the hook where the transforms plug into `run` (set it from
// an init function). While it is nil, --params is a usage error.
var applyParams func(cfg *runConfig) error

// refFLOPs bounds the CPU reference work of an automatic check.
const refFLOPs = 2e9

// runResult is what a run measured.
type runResult struct {
	Device        string
	Global, Local []int         // the launch (Local nil: the implementation's choice)
	Elapsed       time.Duration // the best kernel time
	GFLOPS        float64
	Checked       int   // points compared with the reference
	Check         error // a *kernels.CheckError when the results are wrong
}

// runBenchmark makes the instance, runs the kernel cfg.Reps times and checks
// the results. The error is for a failure to run; wrong results are in
// runResult.Check.
func runBenchmark(cfg runConfig) (*runResult, error) {
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.Seed)
	if err != nil {
		return nil, err
	}
	ev := hpl.Eval(cfg.Bench.Kernel).Device(cfg.Device).Global(inst.Global...)
	if cfg.Variant != nil {
		ev.Variant(cfg.Variant)
	}
	if cfg.Global != nil {
		ev.Global(cfg.Global...)
	}
	if cfg.Local != nil {
		ev.Local(cfg.Local...)
	}
	info, err := ev.DeviceInfo()
	if err != nil {
		return nil, err
	}
	res := &runResult{Device: info.Name, Global: inst.Global, Local: cfg.Local}
	if cfg.Global != nil {
		res.Global = cfg.Global
	}
	for i := 0; i < max(1, cfg.Reps); i++ {
		if i > 0 {
			inst.Reset()
		}
		if err := ev.Run(inst.Args...); err != nil {
			return nil, err
		}
		if d := ev.Elapsed(); i == 0 || d < res.Elapsed {
			res.Elapsed = d
		}
	}
	if res.Elapsed > 0 {
		res.GFLOPS = inst.FLOPs / res.Elapsed.Seconds() / 1e9
	}
	sample := cfg.Sample
	switch {
	case sample == 0:
		sample = inst.SampleFor(refFLOPs)
	case sample < 0:
		sample = 0
	}
	res.Checked = inst.Points()
	if sample > 0 && sample < res.Checked {
		res.Checked = sample
	}
	res.Check = inst.Check(sample)
	return res, nil
}

// intList is a flag holding "1024,1024" (or "1024x1024").
type intList []int

func (l *intList) String() string { return fmt.Sprint([]int(*l)) }

func (l *intList) Set(s string) error {
	*l = nil
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		fields := []string{part}
		if strings.Trim(part, "0123456789x") == "" && strings.Contains(part, "x") {
			fields = strings.Split(part, "x")
		}
		for _, f := range fields {
			v, err := strconv.Atoi(f)
			if err != nil {
				return fmt.Errorf("%q is not an integer (want integers separated by commas, as in 1024,512)", part)
			}
			*l = append(*l, v)
		}
	}
	return nil
}

// parseRun reads `run`'s arguments: the kernel name first, then flags (a
// name after the flags is accepted too). It returns flag.ErrHelp for -h,
// having printed the flags on help.
func parseRun(args []string, help io.Writer) (*runConfig, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var n, k intList
	device := fs.String("d", "", "OpenCL device: GPU, CPU, ACCELERATOR, P:D or part of a name (default: the first GPU, else the first CPU)")
	fs.StringVar(device, "device", "", "same as -d")
	class := fs.String("size", "", "size class: tiny, S, M or L (the paper's Table 3)")
	fs.Var(&n, "n", "points per global dimension, x first (one value for all)")
	fs.Var(&k, "k", "compute loop lengths, outermost first (one value for all)")
	seed := fs.Int64("seed", 1, "seed of the input data")
	reps := fs.Int("reps", 1, "kernel runs; the best time is reported")
	sample := fs.Int("sample", 0, "points checked against the CPU reference (0: automatic, -1: all)")
	params := fs.String("params", "", "transform parameters (name=value,...) of a variant to run instead of the single-point kernel")
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	parse := func(args []string) error {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(help, runUsage)
			fs.SetOutput(help)
			fs.PrintDefaults()
		}
		return err
	}
	if err := parse(args); err != nil {
		return nil, err
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name = rest[0]
		if err := parse(rest[1:]); err != nil {
			return nil, err
		}
		rest = fs.Args()
	}
	if name == "" {
		return nil, fmt.Errorf("no kernel given (one of %s)", strings.Join(kernels.Names(), ", "))
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("unexpected argument %q", rest[0])
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
	if *reps < 1 {
		return nil, fmt.Errorf("--reps %d: give at least 1", *reps)
	}
	cfg := &runConfig{Bench: b, Size: size, Seed: *seed, Device: *device, Reps: *reps, Sample: *sample, Params: *params}
	if cfg.Params != "" {
		if applyParams == nil {
			return nil, errors.New("--params is not supported yet")
		}
		if err := applyParams(cfg); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// runVerb is `hplopt run`: run a benchmark's single-point kernel, check it
// against the CPU reference and print its time. It exits 1 when the kernel
// fails or its results are wrong, 2 on a usage error.
func runVerb(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseRun(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "hplopt run: %v\n%s\n", err, runUsage)
		return 2
	}
	return runAndReport(cfg, stdout, stderr)
}

// runAndReport runs cfg, prints the result line and returns the exit
// status: 0, or 1 when the run fails or its results are wrong.
func runAndReport(cfg *runConfig, stdout, stderr io.Writer) int {
	res, err := runBenchmark(*cfg)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt run: %v\n", err)
		return 1
	}
	check := fmt.Sprintf("ok (%d points)", res.Checked)
	if res.Check != nil {
		check = "WRONG"
	}
	what := ""
	if cfg.Variant != nil {
		what = fmt.Sprintf(" variant %s (global %v, local %v)", cfg.Params, res.Global, res.Local)
	}
	fmt.Fprintf(stdout, "%s (%s) %s seed %d%s on %s: %.3f ms, %.2f GFLOP/s, check %s\n",
		cfg.Bench.Name, cfg.Bench.Paper, cfg.Size, cfg.Seed, what, res.Device,
		float64(res.Elapsed.Nanoseconds())/1e6, res.GFLOPS, check)
	if res.Check != nil {
		fmt.Fprintf(stderr, "hplopt run: %v\n", res.Check)
		return 1
	}
	return 0
}
