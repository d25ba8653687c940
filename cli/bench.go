package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/strategies"
)

func init() {
	register(verb{name: "bench", summary: "run the benchmark suite (kernels x sizes x strategies) and write tables and plots", run: benchVerb,
		flags: func() *flagSet { return new(benchConfig).flags() }})
}

type benchConfig struct {
	Kernels    []*kernels.Benchmark
	Classes    []string
	Strategies []string
	Budget     map[string]float64 // seconds per size class ("" for all)
	Device     string
	DataSeed   int64
	// Search is the settings of every run but its strategy, budget and
	// records (searchFlags: -e, --stop, --seed, --runs...).
	Search   hpl.OptimizerSettings
	Out      string
	Resume   bool
	Report   []string
	Options  bench.Options
	Quiet    bool
	Profile  string // file for a CPU profile of the process (--cpuprofile)
	records  recordsFlags
	peak, bw float64 // FLOP/s and bytes/s (the flags give TFLOP/s and TB/s; check scales them)
	refFile  string

	// The flags as given, that parseBench checks and turns into the above.
	kernels, sizes, report string
}

const benchAbout = `Runs the benchmark suite, one tuning run for each kernel x size class x
strategy on one device, and writes runs/*.json, results.md, results.csv and
the plots to --out. Each run is saved as it ends, and each evaluation is kept
in the tuning records as it is measured; --resume skips the runs saved and goes
on with a run that was cut from its records.
hplopt bench --report DIR,... remakes the tables and plots from saved runs,
running nothing.`

// flags defines bench's flags on c.
func (c *benchConfig) flags() *flagSet {
	fs := newFlagSet("bench", "", benchAbout)
	deviceVar(fs, &c.Device)
	fs.StringVar(&c.kernels, "kernels", "", "`KERNELS`, comma-separated: names, or a source's name for all of its kernels (paper: the eight benchmarks, suite: the suite of kernels users write, or a program's name), or all (every source's); \"\": the first source's (hplopt's: paper)")
	fs.StringVar(&c.sizes, "sizes", "S,M,L", "size `CLASSES`, comma-separated: the paper's Table 3 (tiny, S, M, L), or a program's own")
	strategiesVar(fs, &c.Strategies, []string{strategies.Random, strategies.Genetic}, "search strategies, comma-separated")
	budget := &budgetFlag{p: &c.Budget}
	budget.Set("S=20,M=20,L=30")
	fs.Var(budget, "t", "time budget per run in seconds: one number, or per size class as S=10,M=20,L=30")
	searchFlags(fs, &c.Search, &c.DataSeed, 3)
	fs.StringVar(&c.Out, "out", "bench-results", "write runs/*.json, results.md, results.csv and the plots to `DIR`")
	fs.BoolVar(&c.Resume, "resume", false, "skip the runs already saved in --out, and go on with a run that was cut (killed or interrupted) from its records")
	fs.StringVar(&c.report, "report", "", "make the tables and plots from the runs saved in these `DIRS` (comma-separated); run nothing")
	fs.StringVar(&c.refFile, "reference", "", "SGEMM figures in `FILE` to compare MATMUL, SYRK and SYR2K with: the output of bench/reference/cublas_sgemm.py (GPU) or bin/openblas_sgemm (CPU)")
	floatVar(fs, &c.peak, "peak-tflops", 0, 0, 1e6, "FP32 peak of the device in TFLOP/s (0: the built-in table by device name)")
	floatVar(fs, &c.bw, "bandwidth-tbs", 0, 0, 1e6, "memory bandwidth of the device in TB/s (0: the built-in table by device name)")
	fs.StringVar(&c.Options.Title, "title", "", "`TITLE` of results.md")
	fs.BoolVar(&c.Quiet, "q", false, "no progress lines")
	profileVar(fs, &c.Profile)
	c.records.define(fs)
	return fs
}

func parseBench(c *command, args []string) (*benchConfig, *flagSet, error) {
	cfg := new(benchConfig)
	fs := cfg.flags()
	err := fs.noOperands(args)
	if err == nil {
		err = cfg.check(c)
	}
	if err == nil {
		if werr := checkOutDir(cfg.Out); werr != nil {
			err = fmt.Errorf("--out: cannot write: %v", werr)
		}
	}
	return cfg, fs, err
}

// check checks what the flags do not check one by one and fills in the
// fields the flags do not set.
func (cfg *benchConfig) check(c *command) error {
	if (cfg.peak > 0) != (cfg.bw > 0) {
		return fmt.Errorf("give both --peak-tflops and --bandwidth-tbs, or neither")
	}
	cfg.peak, cfg.bw = cfg.peak*1e12, cfg.bw*1e12
	if cfg.report != "" {
		cfg.Report = splitList(cfg.report)
		return nil
	}
	names := splitList(cfg.kernels)
	if cfg.kernels == "" && len(c.sources) > 0 {
		names = []string{c.sources[0].Name()}
	}
	for _, name := range names {
		var add []*kernels.Benchmark
		switch src := c.source(name); {
		case name == "all":
			for _, s := range c.sources {
				add = append(add, s.Kernels()...)
			}
		case src != nil:
			add = src.Kernels()
		default:
			b, err := c.lookup(name)
			if err != nil {
				return err
			}
			add = []*kernels.Benchmark{b}
		}
		for _, b := range add {
			if !slices.Contains(cfg.Kernels, b) {
				cfg.Kernels = append(cfg.Kernels, b)
			}
		}
	}
	for _, class := range splitList(cfg.sizes) {
		ok := false
		for _, b := range cfg.Kernels {
			_, has := b.Sizes[class]
			ok = ok || has
		}
		if !ok {
			return fmt.Errorf("--sizes: no kernel selected has the size class %q (the built-ins have %s)", class, strings.Join(bench.Classes, ", "))
		}
		cfg.Classes = append(cfg.Classes, class)
	}
	if len(cfg.Kernels) == 0 || len(cfg.Classes) == 0 || len(cfg.Strategies) == 0 {
		return fmt.Errorf("nothing to run: give at least one kernel, size class and strategy")
	}
	for _, c := range cfg.Classes {
		if cfg.budget(c) <= 0 {
			return fmt.Errorf("-t: no time budget for size class %s", c)
		}
	}
	return nil
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

// budgetFlag is bench's -t: seconds for every size class, or per class.
type budgetFlag struct {
	p    *map[string]float64
	text string
}

func (f *budgetFlag) String() string { return f.text }

func (f *budgetFlag) Set(s string) error {
	b, err := parseBudget(s)
	if err != nil {
		return err
	}
	*f.p, f.text = b, s
	return nil
}

func (f *budgetFlag) Get() any            { return *f.p }
func (f *budgetFlag) placeholder() string { return "SECONDS|S=10,M=20,L=30" }
func (f *budgetFlag) allowed() string {
	return secondsAllowed(autotune.MinBudget, autotune.MaxBudget, "")
}

// parseBudget reads "30" (every class) or "S=10,M=20,L=30".
func parseBudget(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, f := range splitList(s) {
		class, v, ok := strings.Cut(f, "=")
		if !ok {
			class, v = "", f
		} else if !slices.Contains(bench.Classes, class) {
			return nil, fmt.Errorf("%q: no size class %q (%s)", f, class, strings.Join(bench.Classes, ", "))
		}
		d, err := seconds(v, autotune.MinBudget, autotune.MaxBudget, "")
		if err != nil && f != s {
			err = fmt.Errorf("%q: %v", f, err)
		}
		if err != nil {
			return nil, err
		}
		out[class] = d.Seconds()
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no time budget")
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
func benchVerb(c *command, args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseBench(c, args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
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

	endProfile, err := startProfile(cfg.Profile)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt bench: %v\n", err)
		return 1
	}
	defer func() {
		if err := endProfile(); err != nil {
			fmt.Fprintf(stderr, "hplopt bench: %v\n", err)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	command := "hplopt bench " + strings.Join(args, " ")
	db := cfg.records.open("bench", stderr)
	if db != nil {
		defer db.Close()
	}
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
				if !benchOne(ctx, cfg, db, b, size, rec, stdout, stderr) {
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

// benchOne tunes one kernel, size and strategy into rec, recording its
// evaluations in db (nil: none); false when the run gave no result. It
// searches afresh, or with --resume goes on with a cut run of the same
// settings (optimizer.ReuseResume): a benchmark compares searches, so it
// never reuses another run's best.
func benchOne(ctx context.Context, cfg *benchConfig, db *records.DB, b *kernels.Benchmark, size kernels.Size, rec *bench.Record, stdout, stderr io.Writer) bool {
	set := cfg.Search
	set.Strategy, set.Time = rec.Strategy, time.Duration(rec.BudgetS*float64(time.Second))
	set.Records, set.NoRecords, set.Reuse = db, db == nil, optimizer.ReuseIgnore
	set.Warn = func(msg string) { fmt.Fprintf(stderr, "hplopt bench: warning: %s\n", msg) }
	tc := &tuneConfig{Bench: b, Size: size, Device: cfg.Device, DataSeed: cfg.DataSeed, Quiet: true, Settings: set}
	if cfg.Resume {
		tc.Settings.Reuse = optimizer.ReuseResume
	}
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
