package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/transforms"
)

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

	// Params is the --params flag as given and Pins its parameters, which
	// parseRun turns into Variant, Global and Local.
	Params string
	Pins   map[transforms.Name]int
	// Variant, if not nil, is a transformed version of the benchmark's
	// kernel (same parameters, specialized for Size or not) to run with
	// Global and Local (nil: the single-point domain, and the
	// implementation's choice of work-groups) instead of the single-point
	// kernel.
	Variant       *ast.Kernel
	Global, Local []int

	// BuildOptions are OpenCL build options added to the kernel's own
	// (-cl-nv-verbose: NVIDIA's compiler logs registers and spills), and
	// BuildLog prints the compiler's log of the kernel's build.
	BuildOptions string
	BuildLog     bool

	// Source is the --source flag, a file of OpenCL C run in place of the
	// generated code (of Variant, or of the single-point kernel), and Code
	// its contents.
	Source string
	Code   string
	// Binary is the --binary flag: a file to write the program's binary
	// for the device to (NVIDIA: PTX).
	Binary string

	size sizeFlags
}

// refFLOPs bounds the CPU reference work of an automatic check.
const refFLOPs = 2e9

// runResult is what a run measured.
type runResult struct {
	Device        string
	Global, Local []int         // the launch (Local nil: the implementation's choice)
	Elapsed       time.Duration // the best kernel time
	GFLOPS        float64
	Checked       int    // points compared with the reference (0: none, the kernel has no reference)
	Check         error  // a *kernels.CheckError when the results are wrong
	Log           string // the compiler's log of the kernel's build, with BuildLog
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
	v := cfg.Variant
	if v == nil && cfg.BuildOptions != "" {
		v = cfg.Bench.Kernel.AST() // the single-point kernel, with options
	}
	if v != nil {
		ev.Variant(withOptions(v, cfg.BuildOptions))
	}
	ev.Code(cfg.Code)
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
	if cfg.Reps > 1 {
		inst.KeepInitial()
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
	if errors.Is(res.Check, kernels.ErrNoReference) {
		res.Check, res.Checked = nil, 0
	}
	if cfg.BuildLog {
		if res.Log, err = ev.BuildLog(inst.Args...); err != nil {
			return nil, err
		}
	}
	if cfg.Binary != "" {
		bin, err := ev.Binary(inst.Args...)
		if err != nil {
			return nil, err
		}
		if err := writeBinary(cfg.Binary, bin); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// withOptions returns a copy of k with the build options extra after its
// own (--build-options), or k itself when extra is "".
func withOptions(k *ast.Kernel, extra string) *ast.Kernel {
	if extra == "" {
		return k
	}
	k = ast.Clone(k)
	k.Options = runner.JoinOptions(k.Options, extra)
	return k
}

// writeBinary writes a program's binary for --binary.
func writeBinary(path string, bin []byte) error {
	if err := os.WriteFile(path, bin, 0o644); err != nil {
		return fmt.Errorf("--binary: %v", err)
	}
	return nil
}

// printBuildLog prints the compiler's log after run's result line.
func printBuildLog(w io.Writer, log string) {
	log = strings.TrimRight(log, "\n")
	if strings.TrimSpace(log) == "" {
		fmt.Fprintln(w, "build log: empty")
		return
	}
	fmt.Fprintf(w, "build log:\n%s\n", log)
}

const runAbout = `Runs a kernel's single-point kernel (or with --params a variant of it),
checks the results against the CPU reference and prints the best time.`

// flags defines run's flags on c.
func (c *runConfig) flags() *flagSet {
	fs := newFlagSet("run", "KERNEL", runAbout)
	deviceVar(fs, &c.Device)
	c.size.define(fs)
	intVar(fs, &c.Seed, "seed", 1, 0, math.MaxInt64, "seed of the input data")
	intVar(fs, &c.Reps, "reps", 1, 1, 1000000, "kernel runs; the best time is reported")
	intVar(fs, &c.Sample, "sample", 0, -1, math.MaxInt32, "points checked against the CPU reference (0: automatic, -1: all)")
	pinsVar(fs, &c.Pins, &c.Params, "transform parameters of a variant to run instead of the single-point kernel (the others: their defaults)")
	fs.StringVar(&c.BuildOptions, "build-options", "", "OpenCL build `OPTIONS` added to the kernel's own (-cl-nv-verbose: NVIDIA's compiler logs each kernel's registers and spills)")
	fs.BoolVar(&c.BuildLog, "build-log", false, "print the compiler's log of the kernel's build after the result")
	fs.StringVar(&c.Binary, "binary", "", "write the program's binary for the device to `FILE` after the run (NVIDIA: the PTX its compiler made; PoCL: an archive of its kernel cache)")
	fs.StringVar(&c.Source, "source", "", "run the OpenCL C in `FILE` (hplopt gen's output, edited) in place of the generated code, with the same kernel name, arguments, launch and check")
	return fs
}

// parseRun reads run's arguments: KERNEL and flags, in any order.
func parseRun(c *command, args []string) (*runConfig, *flagSet, error) {
	cfg := new(runConfig)
	fs := cfg.flags()
	operands, err := fs.parse(args)
	if err != nil {
		return nil, fs, err
	}
	if cfg.Bench, cfg.Size, err = cfg.size.benchmark(c, operands); err != nil {
		return nil, fs, err
	}
	if err := checkFits(cfg.Bench, cfg.Size, cfg.Device, runCopies); err != nil {
		return cfg, fs, &fitError{err}
	}
	if cfg.Source != "" {
		b, err := os.ReadFile(cfg.Source)
		if err != nil {
			return nil, fs, fmt.Errorf("--source: %v", err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return nil, fs, fmt.Errorf("--source: %s holds no OpenCL C", cfg.Source)
		}
		cfg.Code = string(b)
	}
	if cfg.Params != "" {
		_, v, _, err := pinnedVariant(cfg.Bench, cfg.Size, cfg.Seed, cfg.Device, cfg.Pins)
		if err != nil {
			return nil, fs, err
		}
		cfg.Variant, cfg.Global, cfg.Local = v.Kernel, v.Global, v.Local
	}
	return cfg, fs, nil
}

// runVerb is `hplopt run`: run a benchmark's single-point kernel, check it
// against the CPU reference and print its time. It exits 1 when the kernel
// fails or its results are wrong, 2 on a usage error.
func runVerb(c *command, args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseRun(c, args)
	var fe *fitError
	if errors.As(err, &fe) {
		fmt.Fprintf(stderr, "hplopt run: %v\n", fe.err)
		return 1
	}
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	if f := cfg.size.cl.file; f != nil { // checked against the kernel as written
		return f.run(cfg, stdout, stderr)
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
	switch {
	case res.Check != nil:
		check = "WRONG"
	case res.Checked == 0:
		check = "none (the kernel has no reference)"
	}
	what := ""
	if cfg.Variant != nil {
		what = fmt.Sprintf(" variant %s (global %v, local %v)", cfg.Params, res.Global, res.Local)
	}
	if cfg.Source != "" {
		what += " code " + cfg.Source
	}
	fmt.Fprintf(stdout, "%s %s seed %d%s on %s: %.3f ms, %.2f GFLOP/s, check %s\n",
		title(cfg.Bench), cfg.Size, cfg.Seed, what, res.Device,
		float64(res.Elapsed.Nanoseconds())/1e6, res.GFLOPS, check)
	if cfg.BuildLog {
		printBuildLog(stdout, res.Log)
	}
	if res.Check != nil {
		fmt.Fprintf(stderr, "hplopt run: %v\n", res.Check)
		return 1
	}
	return 0
}
