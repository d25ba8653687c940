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
//     prints its OpenCL, and a runner.Worker builds, runs and checks it on
//     the device in a child process.
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
	// Warnings are the warnings of the tuning (the records database
	// failing), as Settings.Warn received them.
	Warnings []string
	// Date is when the tuning ended.
	Date time.Time
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
	if t.Key.Kernel != "" {
		j.Problem, j.Sizes, j.Driver = t.Key.ID(), t.Key.Sizes(), t.Key.Device.Driver
	}
	j.Date, j.Tool = t.Date.UTC().Format(time.RFC3339), ToolVersion()
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
// Cancelling ctx ends the search with the best variant found so far.
//
// With set.Records, Tune looks the problem (Problem.Key) up in the records
// first and uses them as set.Reuse says: it may go on with a run that was
// cut, take the recorded best without searching (no worker is started),
// carry the best setting of the nearest recorded shape over, or start the
// search from the recorded best settings; a point the records hold is not
// measured again. Every evaluation it measures is recorded as soon as it is
// measured, so that killing the process loses at most the one in flight.
func Tune(ctx context.Context, prob *Problem, set Settings) (t *Tuning, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("optimizer: internal error tuning %s: %v", prob.Passes.Kernel.Name, r)
		}
	}()
	budget := set.Time > 0 || set.Evals > 0
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
	rec := openRecording(set.Records, key, warn)
	pl := rec.plan(ps, set, budget)
	s, err := newSearch(ps, set, prob.Device.Type&opencl.CPU != 0, pl.seeds...)
	if err != nil {
		return nil, err
	}
	src, err := codegen.Source(ps.Kernel)
	if err != nil {
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

	ref := &runner.Variant{Source: src, KernelName: ps.Kernel.Name, Global: ps.Domain}
	builds := set.builds()
	w, err := runner.StartWorker(ctx, prob.Data, ref, runner.WorkerSettings{Device: prob.Device.Spec(), Timeout: set.Timeout, Stderr: set.Stderr, Measure: runner.MeasureSettings{Runs: set.Runs, Ahead: builds + 2}})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	base, err := w.Baseline()
	if err != nil {
		return nil, err
	}
	run := rec.begin(set, pl.resume, base)
	// Until a variant has run, the single-point kernel's time is the one to
	// beat: a variant four times slower than it is timed once, not Runs times.
	eval := &evaluator{prob: ps, toParams: s.toParams, w: w, made: map[string]made{}, keep: 2*builds + 4, best: base}
	ev := &replayer{evaluator: eval, known: pl.known}
	search := set
	if pl.resume != nil { // what is left of the cut run's budget
		search.Time = set.Time - pl.spent
		if set.Evals > 0 {
			search.Evals = set.Evals - pl.own
		}
	}
	n := 0
	search.Progress = func(p autotune.Progress) {
		n++
		rec.add(p.Last, n, ev.started)
		if set.Progress != nil {
			set.Progress(p)
		}
	}
	rep, err := s.run(ctx, search, ev)
	if rep == nil {
		return nil, err
	}
	rec.end(rep.Stopped)
	t = tuning(rep, base)
	t.Run = run
	if pl.resume != nil {
		t.Resumed = pl.resume.ID
	}
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

// reused makes the tuning of a setting taken from the records (r): the
// variant of the setting, without a search and without a device.
func reused(tuning func(*autotune.Report, float64) *Tuning, s *search, ps *transforms.Problem, r *Reused) *Tuning {
	rep := &autotune.Report{Strategy: s.strategy.Name(), Seed: s.seed, SpaceSize: s.space.Size(), Stopped: autotune.StopReused}
	params := r.Params
	if !r.Exact {
		params = carry(r.Params, r.from, ps.Domain)
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
	space, toParams, err := Table2(Table2Spec{Domain: ps.Domain, Loops: loops, Halo: len(halos) > 0, MaxWorkGroup: ps.MaxWorkGroup, MaxWorkItems: ps.MaxWorkItems, CPU: cpu, Transposable: transforms.Transposable(ps), Fixed: set.Fixed})
	if err != nil {
		return nil, err
	}
	opt := strategies.Options{Genetic: set.Genetic}
	for _, m := range first {
		if pt, err := space.PointOf(m); err == nil {
			opt.Seeds = append(opt.Seeds, space.Repair(pt))
		}
	}
	if pt, err := space.PointOf(transforms.Baseline(ps).Map(len(ps.Domain), len(loops))); err == nil {
		opt.Seeds = append(opt.Seeds, space.Repair(pt))
	}
	for _, m := range canonicalSeeds(ps.Domain, loops, cpu) {
		if pt, err := space.PointOf(m); err == nil {
			opt.Seeds = append(opt.Seeds, space.Repair(pt))
		}
	}
	return &search{seed: set.Seed, space: space, toParams: toParams, strategy: info.New(space, autotune.NewRand(set.Seed), opt)}, nil
}

// run searches with ev.
func (s *search) run(ctx context.Context, set Settings, ev autotune.Evaluator) (*autotune.Report, error) {
	return autotune.Tune(ctx, autotune.Settings{Budget: set.Time, MaxEvals: set.Evals, Seed: set.Seed, Progress: set.Progress, Lookahead: set.builds(), ReadyFirst: set.ReadyFirst}, s.space, s.strategy, ev)
}
