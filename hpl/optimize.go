package hpl

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log"
	"sync"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/patterns"
	"github.com/hplopt/hplopt/runner"
)

// OptimizerSettings controls a search of the optimizer's parameters: the
// paper's OptimizerSettings, package optimizer's Settings. The zero value
// searches with the genetic algorithm for 60 seconds with seed 1.
type OptimizerSettings = optimizer.Settings

// Tuning is the outcome of a search (package optimizer's).
type Tuning = optimizer.Tuning

// ParseSettings reads optimizer settings from command-line arguments, as the
// paper's OptimizerSettings(argc, argv): -s STRATEGY (a prefix is enough:
// -s g), -t SECONDS, -e EVALUATIONS, --seed N. It returns the arguments it
// does not know, for the caller's own flags.
func ParseSettings(args []string) (OptimizerSettings, []string, error) {
	return optimizer.ParseSettings(args)
}

// Tune searches the optimizer's parameters for the evaluation's kernel on
// args and device (optimizer.Tune): every variant is built, run and checked
// against the single-point kernel's output in a worker process before its
// time counts. The global domain is the single-point kernel's (Global, or
// the shape of the first argument). Cancelling ctx ends the search with the
// best variant found so far. As for Optimize, main must call
// runner.MaybeWorker first.
func (e *Evaluation) Tune(ctx context.Context, set OptimizerSettings, args ...any) (t *Tuning, err error) {
	defer e.guard(&err)
	if e.err != nil {
		return nil, e.err
	}
	if e.variant != nil {
		return nil, e.fail("Tune starts from the kernel as written; do not set a Variant")
	}
	prob, err := e.problem(args)
	if err != nil {
		return nil, err
	}
	set, warning := withRecords(set)
	t, err = optimizer.Tune(ctx, prob, set)
	if t != nil && warning != "" {
		t.Warnings = append([]string{warning}, t.Warnings...)
	}
	return t, err
}

// defaultWarned makes the warning that the default records database
// cannot be opened appear once per process.
var defaultWarned sync.Once

// withRecords gives set the default records database
// (optimizer.DefaultRecords) unless it names one or NoRecords is set, and
// a Warn that logs (package log) unless it has one. When the default
// database cannot be opened, the tuning goes on without it: the warning is
// returned, and logged once per process.
func withRecords(set OptimizerSettings) (OptimizerSettings, string) {
	if set.Warn == nil {
		set.Warn = func(msg string) { log.Printf("hpl: %s", msg) }
	}
	if set.Records != nil || set.NoRecords {
		return set, ""
	}
	db, err := optimizer.DefaultRecords()
	if err != nil {
		msg := fmt.Sprintf("%v: tunings are kept in this process only (set OptimizerSettings.Records or NoRecords)", err)
		defaultWarned.Do(func() { set.Warn(msg) })
		return set, msg
	}
	set.Records = db
	return set, ""
}

// OptimizerProblem returns what the optimizer works on for args on the
// evaluation's device: the passes' view (the kernel specialized for the
// arrays' extents, the single-point domain, the int arguments' values, the
// device limits) and the data.
func (e *Evaluation) OptimizerProblem(args ...any) (prob *optimizer.Problem, err error) {
	defer e.guard(&err)
	return e.problem(args)
}

// problem builds the optimizer's problem of args.
func (e *Evaluation) problem(args []any) (*optimizer.Problem, error) {
	k, err := e.Specialize(args...)
	if err != nil {
		return nil, err
	}
	global, _, err := e.domains(k, args)
	if err != nil {
		return nil, err
	}
	if err := patterns.CheckBounds(k, global, intArgs(k, args)); err != nil {
		return nil, e.fail("%v", err)
	}
	// The device of the evaluation's session: opened once per process,
	// under the runner's lock (runner.Open).
	t, err := e.target()
	if err != nil {
		return nil, e.fail("%v", err)
	}
	dev := t.s.Device()
	data := &runner.Problem{}
	_, written := ast.Accesses(k)
	for i, p := range k.Params {
		arg := runner.Arg{Name: p.Name, Type: p.Type}
		if p.Rank == 0 {
			v, err := scalarArg(p, args[i])
			if err != nil {
				return nil, err
			}
			arg.Scalar = true
			switch v := v.(type) {
			case int32:
				arg.Value = float64(v)
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
		data.Args = append(data.Args, arg)
	}
	return optimizer.NewProblem(k, global, data, dev)
}

// Optimize makes Run search the optimizer's parameters for its arguments
// first, then run the fastest verified variant: the paper's
// eval(kernel).optimize(settings)(args). The search is made once per
// kernel, device, argument shapes and the int arguments the code depends
// on (the compute loops' bounds; not float arguments or an int used only
// in arithmetic, such as a time step), and remembered for later Runs (of
// any Evaluation) in this process.
//
// It is also remembered across processes, in the records database
// (package records; Settings.Records, else optimizer.DefaultRecords: the
// user's cache directory, unless Settings.NoRecords): with the default
// Settings.Reuse, a program that starts again runs the recorded best
// variant at once (one build, no search); a search that was killed goes on
// where it stopped; and a shape never tuned, when settings give no budget
// (Time, Evals and Stop unset), runs the best setting of the nearest recorded shape
// (or, if that does not fit, the kernel as written) instead of searching.
// Tuning says which. A database that cannot be used is warned about (with
// package log, unless Settings.Warn is set) and the search goes on in
// memory.
//
// The search measures every variant in a worker process, the program's own
// executable started again: a program that optimizes must call
// runner.MaybeWorker first in main (and a test binary first in TestMain),
// which serves as the worker in that process and returns at once elsewhere:
//
//	func main() {
//		runner.MaybeWorker()
//		...
//		err := hpl.Eval(k).Optimize(set).Run(args...)
//	}
func (e *Evaluation) Optimize(set OptimizerSettings) *Evaluation {
	e.opt = &set
	return e
}

// Tuning returns the search behind the last optimized Run, or nil.
func (e *Evaluation) Tuning() *Tuning { return e.tuning }

// runOptimized runs the fastest variant of a search for args, searching
// first unless this process has searched for the same kernel, domain,
// argument shapes and scalar values on the same device: the device's
// runner.Session remembers the tunings, under tuningKey.
func (e *Evaluation) runOptimized(args []any) error {
	k, err := e.Specialize(args...)
	if err != nil {
		return err
	}
	global, _, err := e.domains(k, args)
	if err != nil {
		return err
	}
	t, err := e.target()
	if err != nil {
		return e.fail("%v", err)
	}
	e.tuning, err = runner.Memo(t.s, tuningKey(k, global, args), func() (*Tuning, error) {
		return e.Tune(context.Background(), *e.opt, args...)
	})
	if err != nil {
		return err
	}
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

// tuningKey identifies a search on a device: the structural hash of the
// kernel specialized for the arguments (its code, parameter types and the
// arrays' extents), the global domain, and the values of the int arguments
// the variants' code depends on (optimizer.CodeInts), as in the records'
// key: other scalars do not make a new search.
func tuningKey(k *ast.Kernel, global []int, args []any) [32]byte {
	ints := intArgs(k, args)
	h := sha256.New()
	kh := ast.Hash(k)
	h.Write(kh[:])
	fmt.Fprintf(h, "%v|", global)
	for _, n := range optimizer.CodeInts(k, global, ints) {
		fmt.Fprintf(h, "%s=%d,", n, ints[n])
	}
	var key [32]byte
	h.Sum(key[:0])
	return key
}
