package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

func init() {
	register(verb{name: "bench", summary: "run the benchmark suite (kernels x sizes x strategies) and write tables and plots", run: benchVerb})
}

const benchUsage = `usage: hplopt bench [-d DEVICE] [--kernels all|K,K...] [--sizes S,M,L] [-s random,genetic] [-t SECONDS|S=10,M=20,L=30]
                    [-e EVALUATIONS] [--seed N] [--runs N] [--out DIR] [--resume] [--reference FILE]
                    [--peak-tflops X --bandwidth-tbs Y] [--title TEXT]
       hplopt bench --report DIR[,DIR...] [--out DIR] [--reference FILE] [--peak-tflops X --bandwidth-tbs Y] [--title TEXT]`

type benchConfig struct {
	Kernels    []*kernels.Benchmark
	Classes    []string
	Strategies []string
	Budget     map[string]float64 // seconds per size class ("" for all)
	Device     string
	Evals      int
	Seed       uint64
	DataSeed   int64
	Runs       int
	Builds     int
	ReadyFirst bool
	Timeout    float64
	Out        string
	Resume     bool
	Report     []string
	Options    bench.Options
	Quiet      bool
	peak, bw   float64
	refFile    string
}

func parseBench(args []string) (*benchConfig, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	device := fs.String("d", "", "OpenCL device (GPU, CPU, ACCELERATOR, P:D or part of a name)")
	ks := fs.String("kernels", "all", "kernels, comma-separated, or all")
	sizes := fs.String("sizes", "S,M,L", "size classes of the paper's Table 3 (tiny, S, M, L), comma-separated")
	strategies := fs.String("s", "random,genetic", "search strategies, comma-separated")
	budget := fs.String("t", "S=20,M=20,L=30", "time budget per run in seconds: one number, or per size class as S=10,M=20,L=30")
	evals := fs.Int("e", 0, "largest number of evaluations per run (0: no limit)")
	seed := fs.Uint64("seed", 1, "seed of the searches")
	dataSeed := fs.Int64("data-seed", 1, "seed of the input data")
	runs := fs.Int("runs", 3, "timed launches per variant (the median counts)")
	builds := buildFlags(fs)
	timeout := fs.Float64("timeout", 0, "fixed per-variant time limit in seconds (0: 10 s), on top of 20x the single-point time")
	out := fs.String("out", "bench-results", "directory for runs/*.json, results.md, results.csv and the plots")
	resume := fs.Bool("resume", false, "skip the runs already saved in --out")
	report := fs.String("report", "", "make the tables and plots from the runs saved in these directories (comma-separated); run nothing")
	ref := fs.String("reference", "", "SGEMM figures to compare MATMUL, SYRK and SYR2K with: the output of bench/reference/cublas_sgemm.py (GPU) or bin/openblas_sgemm (CPU)")
	peak := fs.Float64("peak-tflops", 0, "FP32 peak of the device in TFLOP/s (default: built-in table by device name)")
	bw := fs.Float64("bandwidth-tbs", 0, "memory bandwidth of the device in TB/s (default: built-in table by device name)")
	title := fs.String("title", "", "title of results.md")
	quiet := fs.Bool("q", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if len(fs.Args()) > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Args()[0])
	}
	cfg := &benchConfig{Device: *device, Evals: *evals, Seed: *seed, DataSeed: *dataSeed, Runs: *runs, Timeout: *timeout,
		Out: *out, Resume: *resume, Quiet: *quiet, peak: *peak * 1e12, bw: *bw * 1e12, refFile: *ref}
	cfg.Options.Title = *title
	if (*peak > 0) != (*bw > 0) {
		return nil, fmt.Errorf("give both --peak-tflops and --bandwidth-tbs, or neither")
	}
	if *peak < 0 || *bw < 0 {
		return nil, fmt.Errorf("--peak-tflops and --bandwidth-tbs must be positive")
	}
	if *report != "" {
		cfg.Report = splitList(*report)
		return cfg, nil
	}
	if *ks == "all" || *ks == "" {
		cfg.Kernels = kernels.All()
	} else {
		for _, name := range splitList(*ks) {
			b, err := kernels.Get(name)
			if err != nil {
				return nil, err
			}
			cfg.Kernels = append(cfg.Kernels, b)
		}
	}
	for _, c := range splitList(*sizes) {
		ok := false
		for _, known := range bench.Classes {
			ok = ok || c == known
		}
		if !ok {
			return nil, fmt.Errorf("--sizes: unknown size class %q (tiny, S, M, L)", c)
		}
		cfg.Classes = append(cfg.Classes, c)
	}
	for _, s := range splitList(*strategies) {
		st, err := strategyName(s)
		if err != nil {
			return nil, err
		}
		cfg.Strategies = append(cfg.Strategies, st)
	}
	if len(cfg.Kernels) == 0 || len(cfg.Classes) == 0 || len(cfg.Strategies) == 0 {
		return nil, fmt.Errorf("nothing to run: give at least one kernel, size class and strategy")
	}
	b, err := parseBudget(*budget)
	if err != nil {
		return nil, err
	}
	cfg.Budget = b
	for _, c := range cfg.Classes {
		if cfg.budget(c) <= 0 {
			return nil, fmt.Errorf("-t %s: no time budget for size class %s", *budget, c)
		}
	}
	if *evals < 0 || *runs < 1 {
		return nil, fmt.Errorf("-e must not be negative and --runs must be at least 1")
	}
	if cfg.Builds, cfg.ReadyFirst, err = builds(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseBudget reads "30" (every class) or "S=10,M=20,L=30".
func parseBudget(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, f := range splitList(s) {
		class, v, ok := strings.Cut(f, "=")
		if !ok {
			class, v = "", f
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x <= 0 || x > 1e7 {
			return nil, fmt.Errorf("-t %s: %q is not a positive number of seconds", s, v)
		}
		out[class] = x
	}
	return out, nil
}

func (c *benchConfig) budget(class string) float64 {
	if x, ok := c.Budget[class]; ok {
		return x
	}
	return c.Budget[""]
}

// benchVerb is `hplopt bench`: every kernel x size class x strategy, one
// tuning run each, on one device. Each run's record is saved as soon as it
// ends and the tables and plots are rewritten, so an interrupted suite
// keeps every measurement taken; --resume goes on from there.
func benchVerb(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseBench(args)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt bench: %v\n%s\n", err, benchUsage)
		return 2
	}
	if cfg.refFile != "" {
		refs, err := bench.ReadReferences(cfg.refFile)
		if err != nil {
			fmt.Fprintf(stderr, "hplopt bench: --reference: %v\n", err)
			return 1
		}
		cfg.Options.References = refs
	}
	if cfg.Report != nil {
		recs, err := bench.Load(cfg.Report...)
		if len(recs) == 0 {
			fmt.Fprintf(stderr, "hplopt bench: %v\n", err)
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "hplopt bench: warning: %v\n", err)
		}
		return writeBenchReport(cfg, recs, stdout, stderr)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	command := "hplopt bench " + strings.Join(args, " ")
	done := map[string]bool{}
	if cfg.Resume {
		if old, _ := bench.Load(cfg.Out); old != nil {
			for _, r := range old {
				if r.Error == "" && r.Report != nil && r.Report.Stopped != "cancelled" {
					done[r.Key()] = true
				}
			}
		}
	}
	total, failed := 0, 0
	for _, b := range cfg.Kernels {
		for _, class := range cfg.Classes {
			size, ok := b.Sizes[class]
			if !ok {
				fmt.Fprintf(stderr, "hplopt bench: %s has no size class %s; skipped\n", b.Name, class)
				continue
			}
			for _, st := range cfg.Strategies {
				if ctx.Err() != nil {
					break
				}
				rec := &bench.Record{Kernel: b.Name, Paper: b.Paper, Class: class, Size: size.String(), Strategy: st,
					BudgetS: cfg.budget(class), Device: cfg.Device, Command: command}
				if done[rec.Key()] {
					fmt.Fprintf(stdout, "%-28s saved already; skipped (--resume)\n", rec.Key())
					continue
				}
				total++
				if !benchOne(ctx, cfg, b, size, rec, stdout) {
					failed++
				}
				if err := bench.Save(cfg.Out, rec); err != nil {
					fmt.Fprintf(stderr, "hplopt bench: %v\n", err)
					return 1
				}
				if recs, _ := bench.Load(cfg.Out); len(recs) > 0 {
					if st := writeBenchReport(cfg, recs, io.Discard, stderr); st != 0 {
						return st
					}
				}
			}
		}
	}
	recs, _ := bench.Load(cfg.Out)
	if len(recs) > 0 {
		if st := writeBenchReport(cfg, recs, stdout, stderr); st != 0 {
			return st
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "hplopt bench: interrupted; the runs so far are saved in %s (--resume goes on)\n", cfg.Out)
		return 1
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "hplopt bench: %d of %d runs gave no result (see %s)\n", failed, total, filepath.Join(cfg.Out, "results.md"))
		return 1
	}
	return 0
}

// benchOne tunes one kernel, size and strategy into rec; false when the run
// gave no result.
func benchOne(ctx context.Context, cfg *benchConfig, b *kernels.Benchmark, size kernels.Size, rec *bench.Record, stdout io.Writer) bool {
	tc := &tuneConfig{Bench: b, Size: size, Device: cfg.Device, DataSeed: cfg.DataSeed, Quiet: true,
		Settings: hpl.OptimizerSettings{Strategy: rec.Strategy, Seed: cfg.Seed, Time: time.Duration(rec.BudgetS * float64(time.Second)),
			Evals: cfg.Evals, Runs: cfg.Runs, Builds: cfg.Builds, ReadyFirst: cfg.ReadyFirst, Timeout: time.Duration(cfg.Timeout * float64(time.Second))}}
	if !cfg.Quiet {
		fmt.Fprintf(stdout, "%-28s %s, %s search, %g s ...\n", rec.Key(), size, rec.Strategy, rec.BudgetS)
	}
	start := time.Now()
	t, inst, err := tuneBenchmark(ctx, tc, io.Discard)
	rec.Date = time.Now().UTC().Format(time.RFC3339)
	if inst != nil {
		rec.FLOPs, rec.Bytes, rec.RSqrts = inst.FLOPs, inst.Bytes, inst.RSqrts
	}
	if t != nil {
		rec.Device = t.Device
		rec.Report = t.JSON()
	}
	if err != nil {
		rec.Error = err.Error()
	} else if t.Best == nil {
		rec.Error = bench.NoResult(t.Report.Evaluations)
	}
	if !cfg.Quiet {
		if rec.Error != "" {
			fmt.Fprintf(stdout, "%-28s no result: %s\n", rec.Key(), rec.Error)
		} else {
			r := rec.Report
			fmt.Fprintf(stdout, "%-28s single-point %s ms, tuned %s ms, speedup %.2fx, %d evaluations (%.0f/min), %.0f s in all\n",
				rec.Key(), strconv.FormatFloat(r.BaselineMs, 'g', 5, 64), strconv.FormatFloat(r.BestMs, 'g', 5, 64), rec.Speedup(),
				r.Evaluations, r.EvalsPerMinute, time.Since(start).Seconds())
		}
	}
	return rec.Error == ""
}

func writeBenchReport(cfg *benchConfig, recs []*bench.Record, stdout, stderr io.Writer) int {
	opt := cfg.Options
	switch {
	case cfg.peak > 0:
		opt.Ceiling = bench.Ceiling{Name: "given", PeakFLOPs: cfg.peak, Bandwidth: cfg.bw, Source: "--peak-tflops and --bandwidth-tbs"}
	default:
		for _, r := range recs {
			if c, ok := bench.CeilingFor(r.Device); ok {
				opt.Ceiling = c
				break
			}
		}
	}
	files, err := bench.WriteReport(cfg.Out, recs, opt)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt bench: %v\n", err)
		return 1
	}
	s := bench.Summarize(recs)
	fmt.Fprintf(stdout, "%d runs, %d with a result; mean speedup %.2f (paper: %.2f), geometric mean %.2f\n", s.Runs, s.WithResult, s.Mean, bench.Paper.Mean, s.GeoMean)
	fmt.Fprintf(stdout, "wrote %s\n", strings.Join(files, ", "))
	return 0
}
