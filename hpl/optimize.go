package hpl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// OptimizerSettings controls a search of the optimizer's parameters: the
// paper's OptimizerSettings. The zero value searches with the genetic
// algorithm for 60 seconds with seed 1.
type OptimizerSettings struct {
	// Strategy names a search strategy of package strategies (a unique
	// prefix is enough). Default "": strategies.Default.
	Strategy string
	// Seed makes the search reproducible. Default 0: 1.
	Seed uint64
	// Time is the search budget (the paper's -t). Default 0: 60 s.
	Time time.Duration
	// Evals bounds the number of evaluations (-e). Default 0: no bound.
	Evals int
	// Timeout is the fixed part of the limit on one variant's runs, on top
	// of 20 times the single-point kernel's time. Default 0: 10 s.
	Timeout time.Duration
	// Progress, if not nil, is called after each evaluation. Default nil.
	Progress func(autotune.Progress)
	// Genetic tunes the genetic algorithm. Default: genetic.Settings{}.
	Genetic genetic.Settings
	// Stderr receives the measurement worker's messages. Default nil.
	Stderr io.Writer
	// Runs is the number of timed launches per variant (the median
	// counts), after one warm-up. Default 0: 5.
	Runs int
	// Fixed pins optimizer parameters to values; the
	// search runs over the others. Default nil.
	Fixed map[transforms.Name]int
	// Builds is how many upcoming variants are built in parallel while
	// one is measured. Default 0: 2. (On the H100 host, 8 builds made no
	// more evaluations than 2 once NVIDIA's compiler cache was cold:
	// docs/results/README.md.)
	Builds int
	// ReadyFirst measures, among the variants built ahead, the first whose
	// build is done before earlier ones still building (autotune.Settings.
	// ReadyFirst). Default false: in the order the strategy proposed them,
	// so a seed reproduces a search.
	ReadyFirst bool
}

func (s OptimizerSettings) withDefaults() OptimizerSettings {
	if s.Strategy == "" {
		s.Strategy = strategies.Default
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Time == 0 {
		s.Time = 60 * time.Second
	}
	return s
}

// ParseSettings reads optimizer settings from command-line arguments, as the
// paper's OptimizerSettings(argc, argv): -s STRATEGY (a prefix is enough:
// -s g), -t SECONDS, -e EVALUATIONS, --seed N. It returns the arguments it
// does not know, for the caller's own flags.
func ParseSettings(args []string) (OptimizerSettings, []string, error) {
	var s OptimizerSettings
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		switch name {
		case "s", "t", "e", "seed":
		default:
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return s, nil, fmt.Errorf("hpl: flag -%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if err := s.set(name, val); err != nil {
			return s, nil, err
		}
	}
	return s, rest, nil
}

func (s *OptimizerSettings) set(name, val string) error {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var secs float64
	var n int
	var seed uint64
	fs.Float64Var(&secs, "t", 0, "")
	fs.IntVar(&n, "e", 0, "")
	fs.Uint64Var(&seed, "seed", 0, "")
	switch name {
	case "s":
		st, err := strategies.Lookup(val)
		s.Strategy = st.Name
		return err
	case "t":
		err := fs.Parse([]string{"-t", val})
		d, ok := autotune.Seconds(secs, autotune.MinBudget, autotune.MaxBudget)
		if err != nil || !ok {
			return fmt.Errorf("hpl: -t %s: want a number of seconds from %g to %g", val, autotune.MinBudget.Seconds(), autotune.MaxBudget.Seconds())
		}
		s.Time = d
	case "e":
		if err := fs.Parse([]string{"-e", val}); err != nil || n <= 0 {
			return fmt.Errorf("hpl: -e %s: want a positive number of evaluations", val)
		}
		s.Evals = n
	case "seed":
		if err := fs.Parse([]string{"-seed", val}); err != nil {
			return fmt.Errorf("hpl: --seed %s: want a non-negative integer", val)
		}
		s.Seed = seed
	}
	return nil
}

// Tuning is the outcome of a search.
type Tuning struct {
	Kernel     string
	Device     string
	Settings   OptimizerSettings // with defaults filled in
	Report     *autotune.Report
	SpaceSize  *big.Int
	BaselineMs float64 // the single-point kernel's time
	// Best is the fastest verified variant (nil when none succeeded),
	// BestParams its setting and Source its OpenCL.
	Best       *transforms.Variant
	BestParams map[string]int
	Source     string
	// SinglePointSource is the OpenCL of the kernel as written, which an
	// optimized Run uses when SinglePointFaster.
	SinglePointSource string
}

// SinglePointFaster reports that no verified variant beat the single-point
// kernel: none ran correctly, or the fastest took at least as long. An
// optimized Run then runs the kernel as written.
func (t *Tuning) SinglePointFaster() bool {
	return t.Best == nil || t.Report.BestMs <= 0 || t.Report.BestMs >= t.BaselineMs
}

// Speedup is the single-point kernel's time over the best variant's.
func (t *Tuning) Speedup() float64 {
	if t.Best == nil || t.Report.BestMs <= 0 {
		return 0
	}
	return t.BaselineMs / t.Report.BestMs
}

// JSON returns the tuning as the CLI's --json object.
func (t *Tuning) JSON() *autotune.JSONReport {
	return t.Report.JSON(t.Kernel, t.Device, t.BaselineMs)
}

// Tune searches the optimizer's parameters for the evaluation's kernel on
// args and device: every variant is built, run and checked against the
// single-point kernel's output in a worker process before its time counts.
// The global domain is the single-point kernel's (Global, or the shape of
// the first argument). Cancelling ctx ends the search with the best
// variant found so far.
func (e *Evaluation) Tune(ctx context.Context, set OptimizerSettings, args ...any) (t *Tuning, err error) {
	defer e.guard(&err)
	set = set.withDefaults()
	info, err := strategies.Lookup(set.Strategy)
	if err != nil {
		return nil, err
	}
	set.Strategy = info.Name
	if e.variant != nil {
		return nil, e.fail("Tune starts from the kernel as written; do not set a Variant")
	}
	prob, aprob, dev, err := e.problems(args)
	if err != nil {
		return nil, err
	}
	k, global := prob.Kernel, prob.Domain
	loops, err := transforms.LoopLengths(prob)
	if err != nil {
		return nil, err
	}
	space, toParams, err := autotune.Table2(autotune.Table2Spec{Domain: global, Loops: loops, MaxWorkGroup: prob.MaxWorkGroup, MaxWorkItems: prob.MaxWorkItems, Fixed: set.Fixed})
	if err != nil {
		return nil, err
	}
	src, err := codegen.Source(k)
	if err != nil {
		return nil, err
	}
	ref := &autotune.Variant{Source: src, KernelName: k.Name, Global: global}
	builds := set.Builds
	if builds <= 0 {
		builds = 2
	}
	w, err := autotune.StartWorker(ctx, aprob, ref, autotune.WorkerSettings{Device: dev.Spec(), Timeout: set.Timeout, Stderr: set.Stderr, Measure: autotune.MeasureSettings{Runs: set.Runs, Ahead: builds + 2}})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	base, err := w.Baseline()
	if err != nil {
		return nil, err
	}
	// Until a variant has run, the single-point kernel's time is the one to
	// beat: a variant four times slower than it is timed once, not Runs times.
	eval := &evaluator{prob: prob, toParams: toParams, w: w, made: map[string]made{}, keep: 2*builds + 4, best: base}
	r := autotune.NewRand(set.Seed)
	opt := strategies.Options{Genetic: set.Genetic}
	if pt, err := space.PointOf(transforms.Baseline(prob).Map(len(global), len(loops))); err == nil {
		opt.Seeds = append(opt.Seeds, space.Repair(pt))
	}
	for _, m := range canonicalSeeds(global, loops, dev.Type&opencl.CPU != 0) {
		if pt, err := space.PointOf(m); err == nil {
			opt.Seeds = append(opt.Seeds, space.Repair(pt))
		}
	}
	strat := info.New(space, r, opt)
	rep, err := autotune.Tune(ctx, autotune.Settings{Budget: set.Time, MaxEvals: set.Evals, Seed: set.Seed, Progress: set.Progress, Lookahead: builds, ReadyFirst: set.ReadyFirst}, space, strat, eval)
	if rep == nil {
		return nil, err
	}
	t = &Tuning{Kernel: k.Name, Device: w.Device(), Settings: set, Report: rep, SpaceSize: space.Size(), BaselineMs: base, SinglePointSource: src}
	if rep.Found {
		t.BestParams = rep.Best.Map()
		if v, err := transforms.Apply(prob, toParams(rep.Best)); err == nil {
			t.Best = v
			t.Source, _ = codegen.Source(v.Kernel)
		}
	}
	return t, err
}

// OptimizerProblem returns what the transform passes work on for args on
// the evaluation's device: the kernel specialized for the arrays' extents,
// the single-point domain, the int arguments' values and the device limits.
func (e *Evaluation) OptimizerProblem(args ...any) (prob *transforms.Problem, err error) {
	defer e.guard(&err)
	prob, _, _, err = e.problems(args)
	return prob, err
}

// problems builds the transforms' and the measurement's views of args and
// returns the device they are for.
func (e *Evaluation) problems(args []any) (*transforms.Problem, *autotune.Problem, *opencl.Device, error) {
	k, err := e.Specialize(args...)
	if err != nil {
		return nil, nil, nil, err
	}
	global, _, err := e.domains(k, args)
	if err != nil {
		return nil, nil, nil, err
	}
	spec := e.spec
	if d, ok := e.dev.(*opencl.Device); ok && d != nil {
		spec = d.Spec()
	}
	dev, err := opencl.Select(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	prob := &transforms.Problem{Kernel: k, Domain: global, Ints: map[string]int{}, MaxWorkGroup: dev.MaxWorkGroupSize, LocalMem: dev.LocalMemSize}
	for d := 0; d < len(dev.MaxWorkItemSizes) && d < 3; d++ {
		prob.MaxWorkItems[d] = dev.MaxWorkItemSizes[d]
	}
	aprob := &autotune.Problem{}
	written := writtenArrays(k)
	for i, p := range k.Params {
		arg := autotune.Arg{Name: p.Name, Type: p.Type}
		if p.Rank == 0 {
			v, err := scalarArg(p, args[i])
			if err != nil {
				return nil, nil, nil, err
			}
			arg.Scalar = true
			switch v := v.(type) {
			case int32:
				arg.Value = float64(v)
				prob.Ints[p.Name] = int(v)
			case float32:
				arg.Value = float64(v)
			case float64:
				arg.Value = v
			}
		} else {
			a := args[i].(*Array)
			arg.Dims = a.Dims()
			arg.Output = written[p.Name]
			switch p.Type {
			case ast.Float:
				arg.F32 = a.ReadFloat32s()
			case ast.Double:
				arg.F64 = a.ReadFloat64s()
			case ast.Int:
				arg.I32 = a.ReadInt32s()
			}
		}
		aprob.Args = append(aprob.Args, arg)
	}
	return prob, aprob, dev, nil
}

// canonicalSeeds are starting points for the genetic search beside the
// single-point setting. On a GPU: the register-blocked, local-memory shapes
// that hand-tuned GPU kernels use (work-groups of 256, a few points per
// work-item, interleaved singly or in runs of two, tiles of 16 or 32). On a
// CPU device (cpu): few work-items per group, each with a run of 16 points
// along x in vectors of 4, the shapes that won PoCL's searches (the GPU
// shapes are slow there: 2DCONV's first takes 4 times the single-point
// kernel). Parameters fixed by the user are pinned by the space anyway;
// values outside the space are repaired.
func canonicalSeeds(domain, loops []int, cpu bool) []map[string]int {
	type shape struct {
		local, block          [3]int
		vw, tile, lcopy, lmem int
		uf                    int
	}
	shapes := map[int][]shape{
		1: {{[3]int{128, 1, 1}, [3]int{4, 1, 1}, 1, 32, 0, 1, 4}, {[3]int{256, 1, 1}, [3]int{1, 1, 1}, 1, 32, 0, 1, 4}},
		2: {{[3]int{16, 16, 1}, [3]int{8, 8, 1}, 2, 16, 0, 1, 4}, {[3]int{16, 8, 1}, [3]int{8, 8, 1}, 1, 32, 1, 1, 4}, {[3]int{16, 16, 1}, [3]int{8, 8, 1}, 1, 32, 0, 1, 4}, {[3]int{16, 16, 1}, [3]int{4, 4, 1}, 1, 32, 0, 1, 4}, {[3]int{32, 8, 1}, [3]int{4, 8, 1}, 1, 32, 0, 1, 4}},
		3: {{[3]int{16, 8, 2}, [3]int{1, 2, 2}, 1, 32, 0, 1, 4}, {[3]int{32, 4, 2}, [3]int{2, 2, 1}, 1, 32, 0, 1, 4}},
	}
	if cpu {
		shapes = map[int][]shape{
			1: {{[3]int{1, 1, 1}, [3]int{16, 1, 1}, 4, 0, 0, 0, 8}, {[3]int{4, 1, 1}, [3]int{16, 1, 1}, 1, 256, 0, 0, 16}},
			2: {{[3]int{4, 2, 1}, [3]int{16, 2, 1}, 4, 0, 0, 0, 8}, {[3]int{32, 4, 1}, [3]int{16, 16, 1}, 4, 32, 0, 1, 4}, {[3]int{16, 8, 1}, [3]int{16, 8, 1}, 1, 256, 0, 1, 4}},
			3: {{[3]int{1, 2, 2}, [3]int{16, 1, 2}, 4, 0, 0, 0, 8}, {[3]int{1, 4, 4}, [3]int{16, 1, 4}, 4, 8, 0, 1, 8}},
		}
	}
	var out []map[string]int
	for _, sh := range shapes[len(domain)] {
		m := map[transforms.Name]int{transforms.FullUnroll: 1, transforms.Interleave: 1, transforms.VW: sh.vw, transforms.LMem: sh.lmem, transforms.LCopy: sh.lcopy, transforms.UF: sh.uf}
		for d, n := range domain {
			lsz, bsz := min(sh.local[d], n), min(sh.block[d], n)
			blocks := (n + bsz - 1) / bsz
			m[transforms.Local(d)], m[transforms.Block(d)], m[transforms.Global(d)] = lsz, bsz, (blocks+lsz-1)/lsz*lsz
		}
		for i, l := range loops {
			m[transforms.Tile(i)] = min(l, sh.tile)
		}
		if len(loops) == 0 {
			m[transforms.LMem], m[transforms.LCopy], m[transforms.UF] = 0, 0, 1
		}
		pt := map[string]int{}
		for n, v := range m {
			pt[string(n)] = v
		}
		out = append(out, pt)
	}
	return out
}

// Optimize makes Run search the optimizer's parameters for its arguments
// first, then run the fastest verified variant: the paper's
// eval(kernel).optimize(settings)(args). The search is made once per
// kernel, device and argument shapes and scalar values, and remembered for
// later Runs (of any Evaluation) in this process.
func (e *Evaluation) Optimize(set OptimizerSettings) *Evaluation {
	e.opt = &set
	return e
}

// Tuning returns the search behind the last optimized Run, or nil.
func (e *Evaluation) Tuning() *Tuning { return e.tuning }

var tunings sync.Map // tuningKey -> *Tuning

func (e *Evaluation) runOptimized(args []any) error {
	k, err := e.Specialize(args...)
	if err != nil {
		return err
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%s|%s|%v|", e.spec, ast.String(k), e.global)
	if d, ok := e.dev.(*opencl.Device); ok && d != nil {
		key.WriteString(d.Spec())
	}
	for _, a := range args {
		if _, ok := a.(*Array); !ok {
			fmt.Fprintf(&key, "%v,", a)
		}
	}
	t, _ := tunings.Load(key.String())
	if t == nil {
		tt, err := e.Tune(context.Background(), *e.opt, args...)
		if err != nil {
			return err
		}
		tunings.Store(key.String(), tt)
		t = tt
	}
	e.tuning = t.(*Tuning)
	run := *e
	run.opt = nil
	if !e.tuning.SinglePointFaster() {
		run.variant = e.tuning.Best.Kernel
		run.global, run.local = e.tuning.Best.Global, e.tuning.Best.Local
	}
	err = run.Run(args...)
	e.elapsed = run.elapsed
	return err
}

// evaluator generates a point's variant and measures it in the worker; it
// builds upcoming variants in the worker while the current one runs.
type evaluator struct {
	prob     *transforms.Problem
	toParams func(autotune.Point) transforms.Params
	w        *autotune.Worker
	made     map[string]made // generated variants not yet measured, by point
	keep     int             // how many of them to remember at most
	best     float64         // fastest verified time so far (at first the single-point kernel's), ms
}

type made struct {
	v   autotune.Variant
	err error
}

func (e *evaluator) generate(pt autotune.Point) made {
	if m, ok := e.made[pt.Key()]; ok {
		delete(e.made, pt.Key())
		return m
	}
	v, err := transforms.Apply(e.prob, e.toParams(pt))
	if err != nil {
		return made{err: err}
	}
	src, err := codegen.Source(v.Kernel)
	if err != nil {
		return made{err: err}
	}
	return made{v: autotune.Variant{Source: src, KernelName: v.Kernel.Name, Global: v.Global, Local: v.Local}}
}

// Prepare generates pt's variant and has the worker build it ahead.
func (e *evaluator) Prepare(pt autotune.Point) {
	m := e.generate(pt)
	if len(e.made) > e.keep {
		clear(e.made)
	}
	e.made[pt.Key()] = m
	if m.err == nil {
		e.w.Prepare(m.v)
	}
}

// Ready reports whether evaluating pt would not wait for a build: its
// variant was generated by Prepare and the worker has built it, or it
// could not be generated (its evaluation fails at once).
func (e *evaluator) Ready(pt autotune.Point) bool {
	m, ok := e.made[pt.Key()]
	if !ok {
		return false
	}
	return m.err != nil || e.w.Ready(m.v)
}

// Evaluate measures pt's variant.
func (e *evaluator) Evaluate(ctx context.Context, pt autotune.Point) autotune.Result {
	m := e.generate(pt)
	if m.err != nil {
		if errors.Is(m.err, transforms.ErrIllegal) {
			return autotune.Result{Outcome: autotune.Illegal, Err: m.err}
		}
		return autotune.Result{Outcome: autotune.Compile, Err: m.err}
	}
	v := m.v
	if e.best > 0 {
		v.CutoffMs = 4 * e.best
	}
	r := e.w.Measure(ctx, v)
	if r.Outcome == autotune.OK && (e.best == 0 || r.Ms < e.best) {
		e.best = r.Ms
	}
	return r
}
