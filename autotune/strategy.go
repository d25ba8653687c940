package autotune

import (
	"fmt"
	"math"
	"time"
)

// Strategy proposes the points a search evaluates, one at a time, and
// learns from their results.
//
// Tune calls Next, evaluates the point, and calls Tell with its result
// before it calls Next again. Next returns ok=false when the strategy has
// nothing left to propose (every point of the space was proposed, for the
// strategies here). A strategy draws all of its randomness from the
// *rand.Rand it was made with, so a search is reproduced exactly by its
// seed.
type Strategy interface {
	// Name identifies the strategy in reports ("random", "exhaustive", ...).
	Name() string
	// Next returns the next point to evaluate.
	Next() (p Point, ok bool)
	// Tell reports the result of evaluating p, a point Next returned.
	Tell(p Point, r Result)
}

var (
	_ Strategy = (*Random)(nil)
	_ Strategy = (*Exhaustive)(nil)
)

// Outcome is how the evaluation of a point ended.
type Outcome int

// The outcomes of an evaluation. Only OK carries a time.
const (
	OK      Outcome = iota // the variant ran and its output was right
	Illegal                // the setting was rejected before code generation (transforms.Validate, device limits)
	Compile                // the OpenCL compiler rejected the generated kernel
	Launch                 // the kernel could not be launched or failed while running
	Wrong                  // the kernel ran but its output differs from the reference
	Timeout                // the variant's build or its kernel ran past a time limit
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"ok", "illegal", "compile", "launch", "wrong", "timeout"}

func (o Outcome) String() string {
	if o >= 0 && o < numOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// MarshalText writes the outcome's name, as in JSON reports.
func (o Outcome) MarshalText() ([]byte, error) {
	if o < 0 || o >= numOutcomes {
		return nil, fmt.Errorf("autotune: unknown outcome %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	for i, n := range outcomeNames {
		if string(b) == n {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("autotune: unknown outcome %q", b)
}

// Result is the result of evaluating one point.
type Result struct {
	Outcome Outcome
	// Ms is the kernel's time in milliseconds; only meaningful when
	// Outcome is OK.
	Ms float64
	// Err says why a failed evaluation failed; optional.
	Err error
	// Cost says where the evaluation's time went, as far as the evaluator
	// knows; zero where it does not.
	Cost Cost
	// Times are the kernel times of every timed launch, in ms in launch
	// order, when the evaluator knows them (Ms is made from them).
	Times []float64
	// FromRecords says the result was not measured now but taken from the
	// records of an earlier measurement of the same point (a resumed or
	// continued search): Tune counts it apart (Report.FromRecords), and
	// MaxEvals does not count it.
	FromRecords bool
	// Order is the evaluation's position (1, 2, ...) in the order the
	// evaluator carried its evaluations out, when it may carry some out
	// before Tune asks for them (measuring variants in the order their
	// builds end, while Tune tells the strategy the results in the order
	// it proposed the points, so that the search is the same); 0 when the
	// evaluator does not say.
	Order int
}

// Cost splits the time of an evaluation (or, summed, of a search).
type Cost struct {
	// Generate is the time spent waiting for the variant to be generated
	// (the passes and the printer), or what was left of it when it had
	// been started ahead.
	Generate time.Duration
	// Build is the time spent waiting for the variant's build: its
	// build, or what was left of it when it had been started ahead.
	Build time.Duration
	// Load is the time spent waiting for the measuring process to make
	// the variant's program from a binary built elsewhere (on NVIDIA, to
	// turn its PTX into machine code), or what was left of it when it had
	// been started ahead.
	Load time.Duration
	// Run is the time spent resetting outputs, launching the variant and
	// reading its outputs back; Kernels of it the device ran the kernel
	// (profiling events, every launch).
	Run     time.Duration
	Kernels time.Duration
	// Check is the time spent comparing the outputs with the expected ones.
	Check time.Duration
}

// Add returns the sum of c and d.
func (c Cost) Add(d Cost) Cost {
	return Cost{Generate: c.Generate + d.Generate, Build: c.Build + d.Build, Load: c.Load + d.Load, Run: c.Run + d.Run, Kernels: c.Kernels + d.Kernels, Check: c.Check + d.Check}
}

// Fitness returns the value searches minimize: Ms for a usable OK result,
// +Inf for anything else (a failure, or an OK result whose time is NaN,
// infinite or negative). A point with fitness +Inf is never the best.
func (r Result) Fitness() float64 {
	if r.Outcome != OK || math.IsNaN(r.Ms) || math.IsInf(r.Ms, 0) || r.Ms < 0 {
		return math.Inf(1)
	}
	return r.Ms
}

// Lookahead is implemented by strategies that know some of their next
// proposals before the results of the current ones: Upcoming returns up to
// n points that the next calls of Next will return first (fewer, or none,
// when the strategy cannot tell), without consuming them. Tune uses it to
// let an evaluator prepare (compile) variants while it measures others.
type Lookahead interface {
	Upcoming(n int) []Point
}

// Foresight is implemented by strategies that can guess points they may
// propose after those Upcoming returns, before the results that decide
// them: Likely returns up to n such points, never proposed, the likeliest
// first, with no promise that any is proposed. Tune has an evaluator that
// is a Speculator start on them when Upcoming leaves it idle (a Bayesian
// search's next round depends on the current round's results, so the
// builders would otherwise wait for them). Likely must not change what the
// strategy proposes: a search is the same with or without it.
type Foresight interface {
	Likely(n int) []Point
}

// Picker is implemented by strategies whose upcoming points may be
// evaluated out of order: Take removes p, one of the points Upcoming
// returned, from those Next will return, as if Next had returned it, and
// reports whether it did.
type Picker interface {
	Take(p Point) bool
}

// ReadyReporter is implemented by evaluators that can tell whether
// evaluating a prepared point would start at once (its build is done).
type ReadyReporter interface {
	Ready(p Point) bool
}

// Planner is implemented by strategies that plan by the search's budget of
// evaluations, such as annealing's cooling schedule and the model's stage
// sizes. Tune calls Plan before the first Next with the budget when it is
// known (Settings.MaxEvals, or the bound of Settings.Stop: MaxEvals), and,
// when only a time budget limits the search, with an estimate made from
// the rate of the evaluations so far: after 5, 10, 20, 40, ... evaluations,
// the evaluations made times the budget over the time taken (see Tune).
// A strategy keeps its own default until it is told.
type Planner interface {
	Plan(evaluations int)
}

// Estimator is implemented by Planners that tell a budget Tune estimates
// from a time budget apart from one the settings give: for an estimate
// Tune calls Estimate instead of Plan. Opening bounds its first phase by
// an estimated budget only: a search given its evaluations spends them
// as well as it can, one given a time does not spend it all in a slow
// first phase.
type Estimator interface {
	Planner
	Estimate(evaluations int)
}

// Unreported is implemented by evaluators that evaluate points before
// Tune asks for them (ahead of their turn): Unreported returns the Cost of
// those evaluations whose results Tune has not asked for, which Tune adds
// to Report.Spent when the search ends, the time having been spent.
type Unreported interface {
	Unreported() Cost
}

// Speculator is implemented by evaluators that can start work on points
// that may never be evaluated (a Foresight's guesses, the likeliest
// first) without delaying the points prepared with Prepare: with what
// those leave idle. Each call replaces the guesses of the one before that
// no work was started on. Tune hands over no point it prepared.
type Speculator interface {
	Speculate(ps []Point)
}

// Preparer is implemented by evaluators that can start work on a point
// before it is evaluated, such as building its variant in the background.
type Preparer interface {
	Prepare(p Point)
}
