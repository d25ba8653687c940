package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/bench"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/strategies"
)

// tuneConfig is one `hplopt tune`.
type tuneConfig struct {
	Bench    *kernels.Benchmark
	Size     kernels.Size   // the size of this run
	Sizes    []kernels.Size // every size to tune (--sizes, -n repeated)
	Device   string
	Settings hpl.OptimizerSettings
	DataSeed int64
	Emit     string // file for the best kernel's OpenCL
	JSON     string // file for the JSON report
	Quiet    bool   // no progress lines
	Profile  string // file for a CPU profile of the process (--cpuprofile)

	size    sizeFlags
	records recordsFlags
}

const tuneAbout = `Searches the optimizer's parameters for a benchmark on a device and prints the
best variant. Every variant is built, run and checked against the single-point
kernel before its time counts, and recorded in the tuning records as soon as
it is measured (hplopt db lists them). A problem tuned before is not searched
again: --reuse says how the records are used (a cut search goes on where it
stopped; a shape never tuned, without -t, -e or --stop, runs the nearest recorded
shape's best). Ctrl-C or SIGTERM ends the search and reports the best so far.
tune is the default verb: hplopt KERNEL ... is hplopt tune KERNEL ...`

// flags defines tune's flags on c.
func (c *tuneConfig) flags() *flagSet {
	fs := newFlagSet("tune", "KERNEL", tuneAbout)
	deviceVar(fs, &c.Device)
	c.size.defineSeveral(fs)
	strategyVar(fs, &c.Settings.Strategy, "search strategy")
	secondsVar(fs, &c.Settings.Time, "t", 60*time.Second, autotune.MinBudget, autotune.MaxBudget, "", "search time budget in seconds")
	searchFlags(fs, &c.Settings, &c.DataSeed, 5)
	pinsVar(fs, &c.Settings.Fixed, nil, "pin optimizer parameters to values (the search runs over the others)")
	fs.StringVar(&c.Emit, "emit", "", "write the best kernel's OpenCL to `FILE`")
	fs.StringVar(&c.JSON, "json", "", "write the JSON report to `FILE` (with several sizes, a JSON array of reports)")
	fs.BoolVar(&c.Quiet, "q", false, "no progress lines")
	profileVar(fs, &c.Profile)
	c.records.define(fs)
	reuseVar(fs, &c.Settings.Reuse, "how the tuning records of the problem are used")
	return fs
}

// searchFlags defines the flags of a search that tune and bench share on s
// and dataSeed, with runs timed launches per variant by default.
func searchFlags(fs *flagSet, s *hpl.OptimizerSettings, dataSeed *int64, runs int) {
	intVar(fs, &s.Evals, "e", 0, 0, math.MaxInt, "largest number of evaluations of a search, illegal settings rejected before a build not counted (at most as many; 0: no limit)")
	stopVar(fs, &s.Stop, "end a search when `EXPR` holds, e.g. \"evals>=500 or stall>=100\" (with -t and -e: whichever comes first; the syntax of hplopt replay --stop)")
	intVar(fs, &s.Seed, "seed", 1, 1, math.MaxUint64, "seed of the search")
	batchVar(fs, &s.Batch)
	thenVar(fs, &s.Then)
	openingVar(fs, &s.Opening)
	intVar(fs, dataSeed, "data-seed", 1, 0, math.MaxInt64, "seed of the input data")
	intVar(fs, &s.Runs, "runs", runs, 1, 1000, "timed launches per variant (the median counts)")
	intVar(fs, &s.Builders, "builders", 0, -1, 1024, fmt.Sprintf("builder processes that build upcoming variants while one is measured (0: the host's cores less one, %d here; -1: none, the measuring worker builds)", runner.DefaultBuilders()))
	intVar(fs, &s.Builds, "builds", 0, 0, 4096, "upcoming variants prepared for the builders ahead of the one measured (0: twice the builders, at least 4)")
	choiceVar(fs, &s.Order, "order", optimizer.Orders, "ready|proposed", "ready or proposed", "order of measuring the variants built ahead: ready (whichever is built first; the strategy still hears the results in the order it proposed them) or proposed (waiting for each build in turn)")
	choiceVar(fs, &s.Check, "check", runner.Checks, "auto|device|host", "auto, device or host", "where the variants' outputs are compared with the expected ones: auto (on the device unless it is a CPU), device (wherever the device can) or host")
	fs.Var(&cacheFlag{&s.Cache}, "cache", "directory of built programs kept between runs: builders' binaries and PoCL's kernel cache (\"\": $HPLOPT_CACHE, else hplopt under the user's cache directory; off: none)")
	sizeVar(fs, &s.CacheMax, "cache-max", runner.DefaultCacheMax, "the cache's bound: each run prunes it to this `SIZE` first, least recently used entries first")
	secondsVar(fs, &s.Timeout, "timeout", 0, autotune.MinBudget, autotune.MaxBudget, "10 s", "fixed part of a variant's time limit, on top of 20x the single-point time")
	fs.Var(&slowFlag{&s.SlowLimit}, "slow-limit", fmt.Sprintf("stop a variant whose first launch runs K times longer than the single-point kernel (at least %g s, at most the --timeout limit): a timeout that says so, and the search goes on", optimizer.SlowFloor.Seconds()))
}

// batchVar defines --batch, bayes's points a round, on p.
func batchVar(fs *flagSet, p *int) {
	intVar(fs, p, "batch", 1, 1, 1024, "points strategy bayes chooses together each round, each by expected improvement given the ones before it at their predicted times, so that the builders build them in parallel (bayes only)")
}

// thenVar defines --then, the search after the opening's hybrid, on p.
func thenVar(fs *flagSet, p *string) {
	fs.StringVar(p, "then", "", "the `SEARCH` that takes over from strategy opening's hybrid (opening only): "+strategies.ThenGenetic+" (\"\", the default's) or "+strategies.ThenModel+" (the model's rounds, 3 networks, a tenth of the evaluation budget a round; docs/replay.md)")
}

// parseTune reads tune's arguments: KERNEL and flags, in any order, and
// checks that the output files can be written.
func parseTune(c *command, args []string) (*tuneConfig, *flagSet, error) {
	cfg := new(tuneConfig)
	fs := cfg.flags()
	operands, err := fs.parse(args)
	if err == nil {
		cfg.Bench, cfg.Sizes, err = cfg.size.sizes(c, operands)
	}
	if err == nil {
		cfg.Size = cfg.Sizes[0]
		if cfg.Emit != "" && len(cfg.Sizes) > 1 {
			err = fmt.Errorf("--emit writes one kernel: give one size, not %d", len(cfg.Sizes))
		}
	}
	// Without -t, -e or --stop, a single size is given no budget: a shape never
	// tuned then runs the nearest recorded shape's best instead of being
	// searched (optimizer.ReuseBest); the search, if any, takes 60 s.
	budget := len(cfg.Sizes) > 1
	fs.Visit(func(f *flag.Flag) { budget = budget || f.Name == "t" || f.Name == "e" || f.Name == "stop" })
	if !budget {
		cfg.Settings.Time = 0
	}
	for _, out := range []struct{ flag, path string }{{"--json", cfg.JSON}, {"--emit", cfg.Emit}, {"--cpuprofile", cfg.Profile}} {
		if err == nil && out.path != "" {
			if werr := checkOutput(out.path); werr != nil {
				err = fmt.Errorf("%s: cannot write: %v", out.flag, werr)
			}
		}
	}
	return cfg, fs, err
}

// tuneVerb is `hplopt tune`, also reached as `hplopt KERNEL ...`: search the
// optimizer's parameters for a benchmark on a device and print the best
// variant; with several sizes, each in turn, then a table. Ctrl-C or
// SIGTERM ends the search early and reports the best so far.
func tuneVerb(c *command, args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseTune(c, args)
	if err != nil {
		return fs.usageError(err, stdout, stderr)
	}
	endProfile, err := startProfile(cfg.Profile)
	if err != nil {
		fmt.Fprintf(stderr, "hplopt tune: %v\n", err)
		return 1
	}
	defer func() {
		if err := endProfile(); err != nil {
			fmt.Fprintf(stderr, "hplopt tune: %v\n", err)
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if db := cfg.records.open("tune", stderr); db != nil {
		defer db.Close()
		cfg.Settings.Records = db
	} else {
		cfg.Settings.NoRecords = true
	}
	cfg.Settings.Warn = func(msg string) { fmt.Fprintf(stderr, "hplopt tune: warning: %s\n", msg) }
	status := 0
	var done []*hpl.Tuning
	var reports []*autotune.JSONReport
	for i, size := range cfg.Sizes {
		if i > 0 {
			if ctx.Err() != nil {
				break
			}
			fmt.Fprintln(stdout)
		}
		cfg.Size = size
		t, inst, err := tuneBenchmark(ctx, cfg, stdout)
		if t != nil {
			printTuning(stdout, cfg, t, inst)
			done = append(done, t)
			reports = append(reports, t.JSON())
		}
		switch {
		case errors.Is(err, optimizer.ErrPinned) && len(cfg.Sizes) == 1:
			return fs.usageError(err, stdout, stderr) // --params, found before measuring
		case errors.Is(err, optimizer.ErrPinned):
			fmt.Fprintf(stderr, "hplopt tune: %s: %v\n", size, err)
			status = 2
		case err != nil:
			fmt.Fprintf(stderr, "hplopt tune: %s: %v\n", size, err)
			status = max(status, 1)
		case t.Best == nil && (t.Reused == nil || t.Reused.Exact):
			rejected := ""
			if n := t.Report.Rejected; n > 0 {
				rejected = fmt.Sprintf(" (%d of them illegal settings rejected before a build)", n)
			}
			fmt.Fprintf(stderr, "hplopt tune: no variant ran correctly in %d evaluations%s\n", t.Report.Evaluations, rejected)
			status = max(status, 1)
		}
	}
	if len(cfg.Sizes) > 1 && len(done) > 0 {
		fmt.Fprintln(stdout)
		printSizes(stdout, done)
	}
	if werr := writeTuning(cfg, done, reports); werr != nil {
		fmt.Fprintf(stderr, "hplopt tune: %v\n", werr)
		return 1
	}
	return status
}

// tuneBenchmark sets the benchmark up at cfg.Size and searches.
func tuneBenchmark(ctx context.Context, cfg *tuneConfig, progress io.Writer) (*hpl.Tuning, *kernels.Instance, error) {
	if err := checkFits(cfg.Bench, cfg.Size, cfg.Device, tuneCopies); err != nil {
		return nil, nil, err
	}
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
		budget := "a budget of " + set.Time.String()
		if set.Time == 0 {
			budget = "no budget given (60s if it searches)"
		}
		if set.Evals > 0 {
			budget += fmt.Sprintf(", %d evaluations", set.Evals)
		}
		if set.Stop != nil {
			budget += ", stop " + set.Stop.String()
		}
		reuse := "reuse " + set.Reuse.String()
		if set.Records == nil {
			reuse = "no records"
		}
		fmt.Fprintf(progress, "tuning %s %s with %s search, %s, %s\n", title(cfg.Bench), cfg.Size, set.Strategy, budget, reuse)
	}
	var t *hpl.Tuning
	if f := cfg.size.cl.file; f != nil { // the kernel as written is the reference
		t, err = f.tune(ctx, inst, cfg.Device, set)
	} else {
		t, err = ev.Tune(ctx, set, inst.Args...)
	}
	return t, inst, err
}

func printTuning(w io.Writer, cfg *tuneConfig, t *hpl.Tuning, inst *kernels.Instance) {
	r := t.Report
	fmt.Fprintf(w, "kernel        %s %s\n", title(cfg.Bench), cfg.Size)
	fmt.Fprintf(w, "device        %s\n", t.Device)
	if t.Reused != nil {
		printReused(w, t, inst)
		return
	}
	stopped := r.Stopped.String()
	if r.StopCondition != "" {
		stopped += " (" + r.StopCondition + ")"
	}
	budget := t.Settings.Time.String()
	if t.Settings.Evals > 0 {
		budget += fmt.Sprintf(", %d evaluations", t.Settings.Evals)
	}
	if t.Settings.Stop != nil {
		budget += ", stop " + t.Settings.Stop.String()
	}
	strategy := t.Settings.Strategy
	if o := t.Settings.StrategySettings(); o != "" {
		strategy += " (" + o + ")"
	}
	fmt.Fprintf(w, "strategy      %s, seed %d, budget %s, stopped: %s\n", strategy, t.Settings.Seed, budget, stopped)
	fmt.Fprintf(w, "space         %s points\n", t.SpaceSize)
	rejected := ""
	if r.Rejected > 0 {
		rejected = fmt.Sprintf(", %d of them illegal settings rejected before a build", r.Rejected)
		if t.Settings.Evals > 0 {
			rejected += fmt.Sprintf(" (%d not counted against -e)", r.Uncounted(r.Bound))
		}
	}
	fmt.Fprintf(w, "evaluations   %d in %.1f s (%.1f per minute)%s, measured in %s order\n", r.Evaluations, r.Elapsed.Seconds(), r.EvalsPerMinute, rejected, t.Settings.Order)
	runs := fmt.Sprintf("%d timed launches", t.BaselineRuns)
	if t.BaselineRuns == 0 {
		runs = "its warm-up launch, the budget leaving no time for a timed one"
	}
	fmt.Fprintf(w, "setup         %.1f s: worker and builders started, single-point kernel timed (%s); %.1f s in all\n", t.Setup.Seconds(), runs, (t.Setup + r.Elapsed).Seconds())
	if t.Records != "" {
		resumed := ""
		if t.Resumed != "" {
			resumed = fmt.Sprintf("; went on with the cut run %s", t.Resumed[:8])
		}
		fmt.Fprintf(w, "records       measured %d, taken from the records %d%s (%s, problem %s)\n", r.Measured, r.FromRecords, resumed, t.Records, t.Key.ID()[:12])
		for _, n := range t.Nearest {
			fmt.Fprintf(w, "started from  the best recorded at %s (a nearest shape)\n", n)
		}
		for _, k := range t.Kin {
			fmt.Fprintf(w, "started from  the best recorded on %s (another device or driver)\n", k)
		}
	}
	sp := r.Spent
	cut := ""
	if r.Cut > 0 {
		cut = fmt.Sprintf(" (%d evaluation cut by the end of the search included)", r.Cut)
	}
	fmt.Fprintf(w, "time          generating variants %.1f s, waiting for builds %.1f s%s, loading programs %.1f s, running variants %.1f s (kernels %.1f s), checking %.1f s, other %.1f s\n",
		sp.Generate.Seconds(), sp.Build.Seconds(), cut, sp.Load.Seconds(), sp.Run.Seconds(), sp.Kernels.Seconds(), sp.Check.Seconds(), r.Other().Seconds())
	fmt.Fprintf(w, "device        running kernels %.0f%% of the search\n", 100*t.KernelFraction())
	if p := t.Pool; p.Builders > 0 {
		guesses := ""
		if p.Guesses > 0 {
			guesses = fmt.Sprintf(", %d guessed ahead (%d of them wanted)", p.Guesses, p.Guessed)
		}
		fmt.Fprintf(w, "builders      %d, busy %.0f%% of the search: %d built (%d failed), %d from the cache, %d restarted, %d beside slow builds%s\n",
			p.Builders, 100*t.PoolUtilization(), p.Builds, p.Failed, p.CacheHits, p.Restarts, p.Extra, guesses)
	}
	f := r.Failures
	fmt.Fprintf(w, "failures      illegal %d, compile %d, launch %d, wrong %d, timeout %d\n", f.Illegal, f.Compile, f.Launch, f.Wrong, f.Timeout)
	fmt.Fprintf(w, "single-point  %.4f ms%s\n", t.BaselineMs, rate(inst.FLOPs, t.BaselineMs))
	if t.Best == nil {
		fmt.Fprintf(w, "best          none: %s\n", bench.NoResult(r.Evaluations))
		if o, msg, n := r.CommonFailure(); n > 0 {
			fmt.Fprintf(w, "why           %d of %d evaluations %s, %d of them with: %s\n", r.Failures.Count(o), r.Evaluations, o, n, oneLine(msg))
		}
	} else {
		fmt.Fprintf(w, "best          %.4f ms%s, speedup %.2fx\n", r.BestMs, rate(inst.FLOPs, r.BestMs), t.Speedup())
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

// printReused prints the summary of a tuning taken from the records.
func printReused(w io.Writer, t *hpl.Tuning, inst *kernels.Instance) {
	r := t.Reused
	hint := "--reuse continue searches on from it, --reuse ignore afresh"
	if !r.Exact {
		hint = "-t or -e searches this shape, starting from it"
	}
	fmt.Fprintf(w, "from records  %s: no search (%s)\n", r, hint)
	fmt.Fprintf(w, "records       %s, problem %s\n", t.Records, t.Key.ID()[:12])
	if r.Exact {
		fmt.Fprintf(w, "single-point  %.4f ms%s, recorded\n", r.BaselineMs, rate(inst.FLOPs, r.BaselineMs))
		if t.Best != nil {
			fmt.Fprintf(w, "best          %.4f ms%s, speedup %.2fx, recorded\n", r.Ms, rate(inst.FLOPs, r.Ms), t.Speedup())
		}
	} else {
		fmt.Fprintf(w, "nearest       %s: single-point %.4f ms, best %.4f ms there; nothing measured for this shape\n", r.Sizes, r.BaselineMs, r.Ms)
	}
	if t.Best != nil {
		fmt.Fprintf(w, "params        %s\n", formatParams(t.BestParams))
	}
	if t.SinglePointFaster() {
		fmt.Fprintf(w, "keep          the single-point kernel (--emit writes it; Optimize runs it)\n")
	}
}

// printSizes prints the table of a tuning of several sizes.
func printSizes(w io.Writer, ts []*hpl.Tuning) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SIZES\tSINGLE-POINT MS\tBEST MS\tSPEEDUP\tMEASURED\tFROM RECORDS\tSETTING FROM\tPARAMS")
	for _, t := range ts {
		base, best, speedup := "-", "-", "-"
		from := "search"
		if r := t.Reused; r != nil {
			from = "records"
			if !r.Exact {
				from = "nearest " + r.Sizes
			}
		}
		if t.BaselineMs > 0 {
			base = fmt.Sprintf("%.4f", t.BaselineMs)
		}
		if t.Best != nil && t.Report.BestMs > 0 {
			best, speedup = fmt.Sprintf("%.4f", t.Report.BestMs), fmt.Sprintf("%.2fx", t.Speedup())
		}
		params := formatParams(t.BestParams)
		if t.SinglePointFaster() {
			params = "the single-point kernel"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", t.Key.Sizes(), base, best, speedup, t.Report.Measured, t.Report.FromRecords, from, params)
	}
	tw.Flush()
}

// rate writes the rate of flops in ms as " (12.34 GFLOP/s)", or "" when
// the work is not known (a kernel of one's own without FLOPs, or from a
// .cl file).
func rate(flops, ms float64) string {
	if flops <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.2f GFLOP/s)", gflops(flops, ms))
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

// writeTuning writes --emit (one size) and --json (one report, or an
// array of them for several sizes).
func writeTuning(cfg *tuneConfig, ts []*hpl.Tuning, reports []*autotune.JSONReport) error {
	var errs []error
	if cfg.Emit != "" && len(ts) == 1 {
		t := ts[0]
		src := t.Source
		if t.SinglePointFaster() {
			src = t.SinglePointSource
		}
		errs = append(errs, os.WriteFile(cfg.Emit, []byte(src), 0o644))
	}
	if cfg.JSON != "" && len(reports) > 0 {
		var v any = reports
		if len(cfg.Sizes) == 1 {
			v = reports[0]
		}
		data, err := json.MarshalIndent(v, "", "  ")
		if err == nil {
			err = os.WriteFile(cfg.JSON, append(data, '\n'), 0o644)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
