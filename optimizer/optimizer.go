// Package optimizer is the paper's Figure 2: it searches the optimizer's
// parameters for one kernel on one device by measured, verified time.
//
// The parts it wires together each live in their own package:
//
//   - the space: Table2 (table2.go) builds the space of the paper's Table 2
//     parameters over transforms.Params, constraint-first, for the
//     kernel's domain, compute loops and the device's limits; canonical
//     GPU and CPU shapes (seeds.go) and the single-point setting seed it;
//
//   - the search: a strategy from package strategies (the one registry of
//     strategies, by name), run by autotune.Tune, which knows nothing of
//     kernels or devices;
//
//   - the evaluator (evaluator.go): a point becomes transforms.Params, the
//     passes of package transforms make the variant, package codegen
//     prints its OpenCL, the runner.Worker's builder processes build it
//     ahead, and the Worker runs and checks it on the device in a child
//     process, measuring the variants in the order their builds end.
//
//   - the records (records.go): with a records database (Settings.Records,
//     package records), every evaluation is recorded as it is measured
//     under the problem's key (Problem.Key), and the records of earlier
//     runs are used as Settings.Reuse says: a cut search resumes, a tuned
//     problem reuses its best without searching, a shape never tuned
//     starts from the nearest recorded shapes.
//
// Package hpl's Optimize and Tune are thin adapters over Tune: they make
// the Problem from the user's arguments (and use DefaultRecords). A program
// that tunes must call runner.MaybeWorker first in main (see Tune).
package optimizer

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/records"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// Problem is one kernel to tune on one device: the passes' view of it and
// the data its variants run on. Make it with NewProblem.
type Problem struct {
	// Passes is what the transform passes work on: the specialized kernel,
	// the single-point domain, the int arguments' values, the device's
	// limits, and the kernel's access-pattern table, analysed once here
	// rather than for every variant.
	Passes *transforms.Problem
	// Data holds the kernel's arguments, in parameter order, with the
	// initial contents of the arrays; outputs are marked.
	Data *runner.Problem
	// Device is the device the variants run on.
	Device *opencl.Device
	// Written, if not nil, is the kernel as its author wrote it, of which
	// Passes.Kernel is a rewriting (package clc reads OpenCL C and
	// delinearizes its arrays): its source is then the single-point
	// kernel, the reference every variant is checked against and the one
	// the speedup is over, and its syntax tree is what the records' key
	// hashes. Default nil: Passes.Kernel, printed by package codegen.
	Written *Written
}

// Written is a kernel as its author wrote it (Problem.Written).
type Written struct {
	// Kernel is its syntax tree as parsed, with the parameters of
	// Problem.Passes.Kernel (same names, types and order; ranks may
	// differ).
	Kernel *ast.Kernel
	// Source is its OpenCL C, whose kernel is named Kernel.Name.
	Source string
}

// NewProblem makes the problem of kernel k, specialized for its arguments
// (every array parameter's Extents set), launched over domain (the
// single-point global domain, x first) on data, on device dev.
func NewProblem(k *ast.Kernel, domain []int, data *runner.Problem, dev *opencl.Device) (*Problem, error) {
	if k == nil || dev == nil || data == nil {
		return nil, fmt.Errorf("optimizer: NewProblem needs a kernel, data and a device")
	}
	if len(data.Args) != len(k.Params) {
		return nil, fmt.Errorf("optimizer: kernel %s takes %d arguments, the data has %d", k.Name, len(k.Params), len(data.Args))
	}
	ps := &transforms.Problem{Kernel: k, Domain: domain, Ints: map[string]int{}, MaxWorkGroup: dev.MaxWorkGroupSize, LocalMem: dev.LocalMemSize}
	for d := 0; d < len(dev.MaxWorkItemSizes) && d < 3; d++ {
		ps.MaxWorkItems[d] = dev.MaxWorkItemSizes[d]
	}
	for i, a := range data.Args {
		if a.Scalar && a.Type == ast.Int {
			ps.Ints[k.Params[i].Name] = int(a.Value)
		}
	}
	// The pattern table, once for the whole search. The analysis of a
	// kernel without a compute section fails; Apply then says so for every
	// setting.
	_ = ps.Analyze()
	return &Problem{Passes: ps, Data: data, Device: dev}, nil
}

// Tuning is the outcome of a search, or of the records (Reused).
type Tuning struct {
	Kernel     string
	Device     string
	Settings   Settings // with defaults filled in
	Report     *autotune.Report
	SpaceSize  *big.Int
	BaselineMs float64 // the single-point kernel's time (recorded, when Reused; 0 if unknown)
	// Best is the fastest verified variant (nil when none succeeded),
	// BestParams its setting and Source its OpenCL.
	Best       *transforms.Variant
	BestParams map[string]int
	Source     string
	// SinglePointSource is the OpenCL of the kernel as written, which an
	// optimized Run uses when SinglePointFaster.
	SinglePointSource string
	// Setup is the time before the search: starting the worker and the
	// builders and timing the single-point kernel, with BaselineRuns timed
	// launches (0: its warm-up's time, the budget leaving no time for
	// one). Setup and Report.Elapsed make the tuning's time.
	Setup        time.Duration
	BaselineRuns int
	// Pool is what the builders did (runner.PoolStats; Builders 0 without
	// them).
	Pool runner.PoolStats

	// Key is the problem's key in the records (Problem.Key).
	Key records.Key
	// Records is the path of the records database the tuning used; ""
	// when it used none (none given, or it failed: see Warnings).
	Records string
	// Run is the ID of the run recorded, Resumed that of the cut run this
	// tuning went on with (the same run), "" for none.
	Run, Resumed string
	// Reused says where a tuning taken from the records instead of
	// searched came from; nil when it searched.
	Reused *Reused
	// Nearest names the nearest recorded shapes of the problem's family
	// (this device and driver; records.DB.Nearest) whose best settings,
	// carried to its sizes, the search started from: their sizes, nearest
	// first; nil for none.
	Nearest []string
	// Kin names the records of other devices or drivers whose best
	// settings the search started from (records.DB.Kin): device and sizes,
	// nearest first; nil for none.
	Kin []string
	// Warnings are the warnings of the tuning (the records database
	// failing), as Settings.Warn received them.
	Warnings []string
	// Date is when the tuning ended.
	Date time.Time
}

// KernelFraction is the fraction of the search the device spent running
// kernels (profiling events of every launch).
func (t *Tuning) KernelFraction() float64 {
	if t.Report == nil || t.Report.Elapsed <= 0 {
		return 0
	}
	return float64(t.Report.Spent.Kernels) / float64(t.Report.Elapsed)
}

// PoolUtilization is the fraction of the search the builders were busy:
// builder-seconds over builders times the search's time.
func (t *Tuning) PoolUtilization() float64 {
	if t.Report == nil {
		return 0
	}
	return t.Pool.Utilization(t.Report.Elapsed)
}

// SinglePointFaster reports that no verified variant beat the single-point
// kernel: none ran correctly, or the fastest took at least as long. An
// optimized Run then runs the kernel as written. A setting carried over
// from the nearest recorded shape counts as faster when it was faster
// there.
func (t *Tuning) SinglePointFaster() bool {
	if t.Best == nil {
		return true
	}
	if r := t.Reused; r != nil && !r.Exact {
		return r.BaselineMs > 0 && r.Ms >= r.BaselineMs
	}
	return t.Report.BestMs <= 0 || t.BaselineMs > 0 && t.Report.BestMs >= t.BaselineMs
}

// Speedup is the single-point kernel's time over the best variant's; 0
// when either is unknown.
func (t *Tuning) Speedup() float64 {
	if t.Best == nil || t.Report.BestMs <= 0 {
		return 0
	}
	return t.BaselineMs / t.Report.BestMs
}

// JSON returns the tuning as the CLI's --json object.
func (t *Tuning) JSON() *autotune.JSONReport {
	j := t.Report.JSON(t.Kernel, t.Device, t.BaselineMs)
	j.SetupS, j.Order = t.Setup.Seconds(), t.Settings.Order.String()
	j.StrategySettings = t.Settings.StrategySettings()
	if p := t.Pool; p.Builders > 0 {
		j.Builds = &autotune.JSONBuilds{Builders: p.Builders, BusyS: p.Busy.Seconds(), Utilization: t.PoolUtilization(),
			Built: p.Builds, CacheHits: p.CacheHits, Failed: p.Failed, Restarts: p.Restarts, Extra: p.Extra}
	}
	if t.Key.Kernel != "" {
		j.Problem, j.Sizes, j.Driver = t.Key.ID(), t.Key.Sizes(), t.Key.Device.Driver
	}
	j.Date, j.Tool = t.Date.UTC().Format(time.RFC3339), ToolVersion()
	for _, n := range t.Nearest {
		j.StartedFrom = append(j.StartedFrom, fmt.Sprintf("%s, %s", t.Key.Device, n))
	}
	j.StartedFrom = append(j.StartedFrom, t.Kin...)
	if r := t.Reused; r != nil {
		j.Reused = &autotune.JSONReuse{Exact: r.Exact, Problem: r.Problem, Sizes: r.Sizes, Run: r.Run, Date: r.Date.UTC().Format(time.RFC3339),
			Ms: r.Ms, BaselineMs: r.BaselineMs, Note: r.Note}
		if !r.Exact && t.Best != nil {
			j.BestParams = t.BestParams // carried over: no time measured here
		}
	}
	return j
}

// Tune searches the optimizer's parameters for prob: every variant is
// built, run and checked against the single-point kernel's output in a
// worker process (runner.Worker) before its time counts. The worker is the
// program's own executable started again, so the program must call
// runner.MaybeWorker first in main (a test binary first in TestMain).
// The tuning takes Settings.Time in all, the single-point kernel's timing
// included, and ends within one evaluation of it. Cancelling ctx ends the
// search with the best variant found so far.
//
// With set.Records, Tune looks the problem (Problem.Key) up in the records
// first and uses them as set.Reuse says: it may go on with a run that was
// cut, take the recorded best without searching (no worker is started),
// carry the best setting of the nearest recorded shape over, or start the
// search from the recorded best settings; a point the records hold is not
// measured again. Every evaluation it measures is recorded as soon as it is
// measured, so that killing the process loses at most the one in flight.
func Tune(ctx context.Context, prob *Problem, set Settings) (t *Tuning, err error) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("optimizer: internal error tuning %s: %v", prob.Passes.Kernel.Name, r)
		}
	}()
	budget := set.Time > 0 || set.Evals > 0 || set.Stop != nil
	set = set.withDefaults()
	info, err := strategies.Lookup(set.Strategy)
	if err != nil {
		return nil, err
	}
	set.Strategy = info.Name
	ps := prob.Passes
	var warnings []string
	warn := func(msg string) {
		warnings = append(warnings, msg)
		if set.Warn != nil {
			set.Warn(msg)
		}
	}
	key := prob.Key()
	cpu := prob.Device.Type&opencl.CPU != 0
	startPts, err := StartPoints(ps, cpu)
	if err != nil {
		return nil, err
	}
	rec := openRecording(set.Records, key, startPts, warn)
	pl := rec.plan(ps, set, budget)
	s, err := newSearch(ps, set, cpu, pl.seeds...)
	if err != nil {
		return nil, err
	}
	src, err := prob.singlePoint()
	if err != nil {
		return nil, err
	}
	// The worker's Measurer checks this again; here it is found before
	// the problem is copied to a worker process.
	if err := runner.CheckDevice(prob.Device, prob.Data.Sizes(), 1); err != nil {
		return nil, err
	}
	tuning := func(rep *autotune.Report, base float64) *Tuning {
		t := &Tuning{Kernel: ps.Kernel.Name, Device: prob.Device.Name, Settings: set, Report: rep, SpaceSize: s.space.Size(), BaselineMs: base,
			SinglePointSource: src, Key: key, Reused: pl.reuse, Warnings: warnings, Date: time.Now()}
		if rec.on() {
			t.Records = rec.db.Path()
		}
		return t
	}
	if pl.reuse != nil {
		return reused(tuning, s, ps, pl.reuse), nil
	}

	cache, err := openCache(set)
	if err != nil {
		warn(fmt.Sprintf("%v; built programs are not kept", err))
	}
	// The budget of the whole tuning (what is left of a cut run's, when
	// going on with it), the worker's start included.
	total := set.Time
	if pl.resume != nil {
		total = set.Time - pl.spent
	}
	deadline := start.Add(total)
	bctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	ref := &runner.Variant{Source: src, KernelName: ps.Kernel.Name, Global: ps.Domain}
	builds := set.builds()
	w, err := runner.StartWorker(bctx, prob.Data, ref, runner.WorkerSettings{
		Device: prob.Device.Spec(), Timeout: set.Timeout, Stderr: set.Stderr, Builders: set.builders(), Cache: cache,
		CompileTimeout: buildLimit(total),
		Measure:        runner.MeasureSettings{Runs: set.Runs, Ahead: 2*builds + 2, Check: set.Check}, // Tune prepares up to 2*builds ahead
		StartTimeout:   total,
		ReferenceTime:  total / 4,
	})
	if err != nil {
		if ctx.Err() == nil && bctx.Err() != nil {
			return nil, fmt.Errorf("optimizer: %s: the single-point kernel was not timed within the budget of %v (-t), which counts its first launch: a larger budget or smaller sizes (%v)", ps.Kernel.Name, total, err)
		}
		return nil, err
	}
	defer w.Close()
	base, err := w.Baseline()
	if err != nil {
		return nil, err
	}
	setup := time.Since(start)
	run := rec.begin(set, pl.resume, base)
	// Until a variant has run, the single-point kernel's time is the one to
	// beat: a variant four times slower than it is timed once, not Runs times.
	eval := newEvaluator(ps, s.toParams, w, set.Order == OrderReady, 2*builds+4, base, set.slowLimit())
	stopGen := eval.background(generators())
	ev := &replayer{evaluator: eval, known: pl.known}
	search := set
	if pl.resume != nil && set.Evals > 0 { // what is left of the cut run's
		search.Evals = set.Evals - pl.own
	}
	n := 0
	search.Progress = func(p autotune.Progress) {
		n++
		rec.add(p.Last, n, ev.started, ev.ended)
		if set.Progress != nil {
			set.Progress(p)
		}
	}
	rep, err := s.run(ctx, search, ev, max(time.Nanosecond, time.Until(deadline)))
	stopGen()
	if rep == nil {
		return nil, err
	}
	rec.end(rep.Stopped)
	t = tuning(rep, base)
	t.Run = run
	if pl.resume != nil {
		t.Resumed = pl.resume.ID
	}
	t.Nearest, t.Kin = pl.near, pl.kin
	t.Setup, t.BaselineRuns, t.Pool = setup, w.BaselineRuns(), w.Pool()
	if rep.Found {
		t.BestParams = rep.Best.Map()
		if v, err := transforms.Apply(ps, s.toParams(rep.Best)); err == nil {
			t.Best = v
			t.Source, _ = codegen.Source(v.Kernel)
		}
	}
	t.Warnings = warnings
	return t, err
}

// singlePoint returns the OpenCL C of the kernel as written.
func (p *Problem) singlePoint() (string, error) {
	if w := p.Written; w != nil {
		if w.Kernel == nil || w.Kernel.Name != p.Passes.Kernel.Name || len(w.Kernel.Params) != len(p.Passes.Kernel.Params) {
			return "", fmt.Errorf("optimizer: the kernel as written does not match the kernel %s: name or parameters differ", p.Passes.Kernel.Name)
		}
		return w.Source, nil
	}
	return codegen.Source(p.Passes.Kernel)
}

// buildLimit is the limit on a variant's build (on PoCL, with its first
// launch's compilation) within a tuning of budget: a tenth of the budget,
// from 10 s to 1 min. A build that passes it fails with Compile; the
// builders build the other variants meanwhile. (On PoCL, the largest
// unrolled variants take tens of seconds to compile on a loaded 2-core
// machine, where the tuner used to stop them after the 10 s of its run
// limit; NVIDIA's compiler takes about a second.)
func buildLimit(budget time.Duration) time.Duration {
	return min(time.Minute, max(10*time.Second, budget/10))
}

// openCache opens and prunes the cache of built programs set names (nil
// for NoCache).
func openCache(set Settings) (*runner.Cache, error) {
	dir := set.Cache
	switch dir {
	case NoCache:
		return nil, nil
	case "":
		var err error
		if dir, err = runner.DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	c, err := runner.OpenCache(dir)
	if err != nil {
		return nil, err
	}
	max := set.CacheMax
	if max <= 0 {
		max = runner.DefaultCacheMax
	}
	_, err = c.Prune(max)
	return c, err
}

// reused makes the tuning of a setting taken from the records (r): the
// variant of the setting, without a search and without a device.
func reused(tuning func(*autotune.Report, float64) *Tuning, s *search, ps *transforms.Problem, r *Reused) *Tuning {
	rep := &autotune.Report{Strategy: s.strategy.Name(), Seed: s.seed, SpaceSize: s.space.Size(), Stopped: autotune.StopReused}
	params := r.Params
	if !r.Exact {
		params = transforms.Carry(r.Params, r.from, ps.Domain)
	}
	var tp transforms.Params
	var err error
	for n, v := range params {
		if e := tp.Set(transforms.Name(n), v); e != nil {
			err = e
		}
	}
	var v *transforms.Variant
	if err == nil {
		v, err = transforms.Apply(ps, tp)
	}
	base := 0.0
	if r.Exact {
		base = r.BaselineMs
		if pt, perr := s.space.PointOf(params); perr == nil {
			rep.Found, rep.Best, rep.BestMs = err == nil, pt, r.Ms
			res := autotune.Result{Outcome: autotune.OK, Ms: r.Ms, FromRecords: true}
			rep.History, rep.Evaluations, rep.FromRecords = []autotune.Eval{{Point: pt, Result: res}}, 1, 1
		}
	}
	t := tuning(rep, base)
	if err != nil {
		if r.Exact { // the records' best does not fit its own problem: a bug, or an edited database
			r.Note = err.Error()
		} else {
			r.Note = strings.TrimPrefix(err.Error(), "transforms: ")
		}
		return t
	}
	t.Best, t.BestParams = v, params
	t.Source, _ = codegen.Source(v.Kernel)
	return t
}

// search is the part of a tuning that needs no device: the Table 2 space
// of a problem, the conversion of its points to transforms.Params, and the
// strategy, seeded.
type search struct {
	seed     uint64
	space    *autotune.Space
	toParams func(autotune.Point) transforms.Params
	strategy autotune.Strategy
}

// newSearch makes the search of ps with set (defaults filled in); cpu
// selects the seeds of a CPU device; first are settings to start from
// before those (from the records), repaired into the space.
func newSearch(ps *transforms.Problem, set Settings, cpu bool, first ...map[string]int) (*search, error) {
	info, err := strategies.Lookup(set.Strategy)
	if err != nil {
		return nil, err
	}
	loops, err := transforms.LoopLengths(ps)
	if err != nil {
		return nil, err
	}
	halos, err := transforms.Halos(ps)
	if err != nil {
		return nil, err
	}
	space, toParams, err := Table2(Table2Spec{Domain: ps.Domain, Loops: loops, Halo: len(halos) > 0, MaxWorkGroup: ps.MaxWorkGroup, MaxWorkItems: ps.MaxWorkItems, CPU: cpu, Transposable: transforms.Transposable(ps), Special: transforms.SpecialFunctions(ps), Fission: transforms.Fissionable(ps), Fixed: set.Fixed})
	if err != nil {
		return nil, err
	}
	if len(set.Fixed) > 0 {
		if err := checkFeasible(ps, space, toParams, set.Fixed); err != nil {
			return nil, err
		}
	}
	// The strategy is told the budget of evaluations when -e gives it;
	// autotune.Tune tells it a bound from the stop condition, or an
	// estimate from the time budget once the rate of evaluations is known
	// (autotune.Planner).
	opening, err := set.opening()
	if err != nil {
		return nil, err
	}
	opt := strategies.Options{Genetic: set.Genetic, Evaluations: set.Evals, Batch: set.Batch, Opening: opening}
	if err := opt.Check(info.Name); err != nil {
		return nil, err
	}
	for _, m := range append(slices.Clone(first), startPoints(ps.Domain, loops, transforms.Baseline(ps), cpu)...) {
		if pt, err := space.PointOf(m); err == nil {
			opt.Seeds = append(opt.Seeds, space.Repair(pt))
		}
	}
	return &search{seed: set.Seed, space: space, toParams: toParams, strategy: info.New(space, autotune.NewRand(set.Seed), opt)}, nil
}

// StartPoints returns the settings a search of ps starts from, beside
// those the records give: the single-point setting, then the canonical
// shapes of a CPU device (cpu) or of a GPU, as parameter name to value
// (not yet repaired into a space: a search repairs them into its own, with
// its pins). A replay of recorded measurements of ps gives them to the
// strategies as a live search does.
func StartPoints(ps *transforms.Problem, cpu bool) ([]map[string]int, error) {
	loops, err := transforms.LoopLengths(ps)
	if err != nil {
		return nil, err
	}
	return startPoints(ps.Domain, loops, transforms.Baseline(ps), cpu), nil
}

func startPoints(domain, loops []int, baseline transforms.Params, cpu bool) []map[string]int {
	return append([]map[string]int{baseline.Map(len(domain), len(loops))}, canonicalSeeds(domain, loops, cpu)...)
}

// run searches with ev for budget.
func (s *search) run(ctx context.Context, set Settings, ev autotune.Evaluator, budget time.Duration) (*autotune.Report, error) {
	return autotune.Tune(ctx, autotune.Settings{Budget: budget, MaxEvals: set.Evals, Stop: set.Stop, Seed: set.Seed, Progress: set.Progress, Lookahead: set.builds()}, s.space, s.strategy, ev)
}
