// Package autotune is the search of the paper's Figure 2, the autotuner:
// it proposes settings of the optimizer's parameters, has them evaluated,
// and keeps the best.
//
// It is the pure search: it imports only the standard library and knows
// nothing of kernels, passes or OpenCL, so it is used and tested without
// cgo, live or over recorded measurements. A Space (space.go) holds the
// legal settings, built constraint-first so that it is counted, indexed and
// sampled without being listed. A Strategy proposes points one at a time
// and learns from their results: Exhaustive, Random (the baseline) and, in
// package genetic, the paper's genetic algorithm; package strategies lists
// them by name. An Evaluator measures a point. Tune runs the loop within a
// time budget and returns a Report.
//
// The other parts are elsewhere: package optimizer builds the space of a
// kernel (Table 2) and evaluates a point by generating its variant, and
// package runner builds, runs and checks variants on a device.
//
// Searches are deterministic given a seed: strategies draw from the
// *rand.Rand they are given (see NewRand).
package autotune

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
)

// Evaluator measures one point: it generates the variant, runs it and
// checks it. It should return soon after ctx is done (a Result whose
// outcome is not OK is then discarded by Tune, which is stopping).
type Evaluator interface {
	Evaluate(ctx context.Context, p Point) Result
}

// EvaluatorFunc adapts a function to the Evaluator interface.
type EvaluatorFunc func(ctx context.Context, p Point) Result

// Evaluate calls f(ctx, p).
func (f EvaluatorFunc) Evaluate(ctx context.Context, p Point) Result { return f(ctx, p) }

// Settings controls a search. The zero value runs until the strategy is
// exhausted or ctx is cancelled.
type Settings struct {
	// Budget is the time the search may take; no evaluation starts after
	// it, and the context of a running one is done when it ends. Default
	// 0: no time limit.
	Budget time.Duration
	// MaxEvals is the largest number of evaluations measured; results
	// taken from records (Result.FromRecords) do not count, nor do points
	// rejected as Illegal before anything was built or run
	// (Report.Rejected), up to RejectedPerEval×MaxEvals of them. Default
	// 0: no limit.
	MaxEvals int
	// EvalTimeout limits one evaluation (through the context it gets); an
	// evaluation cut by it should return Timeout. Default 0: only the
	// budget limits an evaluation.
	EvalTimeout time.Duration
	// Seed is recorded in the Report; the caller seeds the strategy with
	// it (NewRand(Seed)). Default 0.
	Seed uint64
	// Progress, if not nil, is called after each evaluation. Default nil.
	Progress func(Progress)
	// ReadyFirst lets Tune evaluate, among the strategy's upcoming points,
	// the first whose preparation is done (a ReadyReporter says so) before
	// the earlier ones, when the strategy is a Lookahead and a Picker: a
	// variant that takes long to build then does not hold up those built
	// behind it. The points evaluated within a budget then depend on build
	// times, not only on the seed. Default false: in proposal order.
	ReadyFirst bool
	// Stop ends the search when it holds after an evaluation (ParseStop:
	// "evals>=500 or stall>=100"); it combines with Budget and MaxEvals,
	// whichever comes first. Default nil: no condition.
	Stop Stop
	// Clock, if not nil, gives Stop the time the search has taken instead
	// of the wall time since it started (a replay's simulated time).
	// Default nil: wall time.
	Clock func() time.Duration
	// Lookahead is how many upcoming points (of a strategy that knows
	// them, a Lookahead) an evaluator that is a Preparer may start on while
	// it evaluates the current one: builds run in parallel with the
	// measurement. With an evaluator that is also a ReadyReporter, the
	// points it reports ready (built, or measured ahead) do not count, up
	// to twice Lookahead points in all: Lookahead preparations stay under
	// way. Default 0: 2.
	Lookahead int
}

// Progress is the state of a search after an evaluation.
type Progress struct {
	Evaluations int
	Failures    int // evaluations whose outcome was not OK
	Found       bool
	Best        Point // best point so far, if Found
	BestMs      float64
	Elapsed     time.Duration
	Last        Eval // the evaluation just made
}

// Eval is one evaluation of a search.
type Eval struct {
	Point   Point
	Result  Result
	Elapsed time.Duration // since the start of the search, when it ended
	// Counted says whether the evaluation counts against the search's
	// bound on evaluations (Report.Counted): false for a result taken from
	// the records and for a point rejected as Illegal that Report.Uncounted
	// leaves out.
	Counted bool
}

// Failures counts failed evaluations per outcome.
type Failures struct {
	Illegal int `json:"illegal"`
	Compile int `json:"compile"`
	Launch  int `json:"launch"`
	Wrong   int `json:"wrong"`
	Timeout int `json:"timeout"`
}

func (f *Failures) field(o Outcome) *int {
	switch o {
	case Illegal:
		return &f.Illegal
	case Compile:
		return &f.Compile
	case Launch:
		return &f.Launch
	case Wrong:
		return &f.Wrong
	case Timeout:
		return &f.Timeout
	}
	return nil
}

// Count returns the number of failures with outcome o (0 for OK).
func (f Failures) Count(o Outcome) int {
	if p := f.field(o); p != nil {
		return *p
	}
	return 0
}

// Total returns the number of failures.
func (f Failures) Total() int { return f.Illegal + f.Compile + f.Launch + f.Wrong + f.Timeout }

// RejectedPerEval bounds the points rejected as Illegal (nothing built
// nor run: Report.Rejected) that a search leaves uncounted: a search of at
// most N evaluations (Settings.MaxEvals, or the evals or space bound of
// Settings.Stop) counts none of the first RejectedPerEval×N of them
// against N, as Kernel Tuner counts only the configurations it
// benchmarked against max_fevals, and counts the ones beyond as
// evaluations, so that a search of points nearly all illegal still ends.
const RejectedPerEval = 1

// evalBound returns the smallest bound set puts on a search's evaluations
// in a space of size points (MaxEvals, Stop's evals and space bounds), and
// false when there is none.
func evalBound(set Settings, size *big.Int) (int, bool) {
	n, known := set.MaxEvals, set.MaxEvals > 0
	if set.Stop != nil {
		if m, ok := MaxEvals(set.Stop, size); ok && (!known || m < n) {
			n, known = m, true
		}
	}
	return n, known
}

// StopReason says why a search ended.
type StopReason int

// Reasons a search ends.
const (
	StopExhausted StopReason = iota // the strategy had nothing left to propose
	StopBudget                      // the time budget was spent
	StopMaxEvals                    // MaxEvals evaluations were made (Settings.MaxEvals says which count)
	StopCancelled                   // the caller's context was cancelled
	StopError                       // a strategy or the evaluator panicked (see Tune's error)
	StopReused                      // no search: a result known before was reused (set by the caller, never by Tune)
	StopCondition                   // Settings.Stop held
)

func (s StopReason) String() string {
	switch s {
	case StopExhausted:
		return "exhausted"
	case StopBudget:
		return "budget"
	case StopMaxEvals:
		return "max-evals"
	case StopCancelled:
		return "cancelled"
	case StopError:
		return "error"
	case StopReused:
		return "reused"
	case StopCondition:
		return "stop-condition"
	}
	return fmt.Sprintf("StopReason(%d)", int(s))
}

// Report is the result of a search.
type Report struct {
	Strategy  string
	Seed      uint64
	SpaceSize *big.Int // constraint-first size: points the strategy could propose
	// Found is false when no evaluation succeeded; then Best is the zero
	// Point and BestMs is 0. A failed evaluation is never the best.
	Found       bool
	Best        Point
	BestMs      float64
	Evaluations int
	// Measured, Rejected and FromRecords split Evaluations: those
	// measured in this search, those of this search whose point was
	// rejected as Illegal before anything was built or run (transforms'
	// checks, the device's limits; a replay's illegal rows), and those
	// whose result was taken from records (Result.FromRecords). Measured
	// counts against Settings.MaxEvals, and Rejected beyond
	// RejectedPerEval×MaxEvals.
	Measured    int
	Rejected    int
	FromRecords int
	// Bound is the search's bound on evaluations (evalBound: MaxEvals,
	// Stop's evals and space bounds; 0: none), against which Counted and
	// Uncounted(Bound) and each Eval's Counted were reckoned.
	Bound    int
	Failures Failures
	// Cut counts evaluations interrupted by the end of the budget or by
	// cancellation that returned no time; they are not in History and not
	// counted as evaluations or failures. (The time they waited is in
	// Spent.)
	Cut            int
	History        []Eval
	Elapsed        time.Duration
	EvalsPerMinute float64
	Stopped        StopReason
	// StopCondition is the part of Settings.Stop that held when Stopped
	// is StopCondition (Held), "" otherwise.
	StopCondition string
	// Spent sums the Cost of the evaluations in History, of those cut
	// (Cut) and of those an Unreported evaluator made ahead that Tune did
	// not ask for: what of Elapsed went to waiting for variants to be generated,
	// for builds and for the programs made from them, to running variants
	// and to checking them. The rest (Other) went to the strategy, the
	// evaluator's own work and the records.
	Spent Cost
}

// Other is the part of Elapsed that Spent does not account for.
func (r *Report) Other() time.Duration {
	return max(0, r.Elapsed-r.Spent.Generate-r.Spent.Build-r.Spent.Load-r.Spent.Run-r.Spent.Check)
}

// CommonFailure returns the failure the evaluations of the search met most
// often: the outcome with the most failures (the first in the order of
// Failures among ties), the error message most of those gave (the first
// given among ties), and how many gave it. It returns OK, "" and 0 when no
// evaluation failed. A search that found nothing reports it as why.
func (r *Report) CommonFailure() (o Outcome, msg string, n int) {
	best := 0
	for _, c := range []Outcome{Illegal, Compile, Launch, Wrong, Timeout} {
		if k := r.Failures.Count(c); k > best {
			o, best = c, k
		}
	}
	if best == 0 {
		return OK, "", 0
	}
	counts := map[string]int{}
	var order []string
	for _, e := range r.History {
		if e.Result.Outcome != o {
			continue
		}
		m := ""
		if e.Result.Err != nil {
			m = e.Result.Err.Error()
		}
		if counts[m] == 0 {
			order = append(order, m)
		}
		counts[m]++
	}
	for _, m := range order {
		if counts[m] > n {
			msg, n = m, counts[m]
		}
	}
	return o, msg, n
}

// Uncounted returns the number of the search's rejected points that do not
// count against a bound of n evaluations (evalBound): the first
// RejectedPerEval×n of them, all of them when n is 0 (no bound).
func (r *Report) Uncounted(n int) int {
	if n <= 0 {
		return r.Rejected
	}
	return min(r.Rejected, RejectedPerEval*n)
}

// Counted returns the evaluations of the search that count against a
// budget of n (Settings.MaxEvals): those measured, and the points rejected
// as Illegal beyond the RejectedPerEval×n that do not count.
func (r *Report) Counted(n int) int {
	return r.Measured + r.Rejected - r.Uncounted(n)
}

// add adds e to the report and returns it marked Counted or not against
// the search's bound (r.Bound).
func (r *Report) add(e Eval) Eval {
	before := r.Counted(r.Bound)
	r.Evaluations++
	switch {
	case e.Result.FromRecords:
		r.FromRecords++
	case e.Result.Outcome == Illegal:
		r.Rejected++
	default:
		r.Measured++
	}
	r.Spent = r.Spent.Add(e.Result.Cost)
	if f := r.Failures.field(e.Result.Outcome); f != nil {
		*f++
	}
	if ms := e.Result.Fitness(); !math.IsInf(ms, 1) && (!r.Found || ms < r.BestMs) {
		r.Found, r.Best, r.BestMs = true, e.Point, ms
	}
	e.Counted = r.Counted(r.Bound) > before
	r.History = append(r.History, e)
	return e
}

// Tune runs a search: it asks strategy for points, evaluates them and tells
// the strategy the results, until the budget is spent, MaxEvals
// evaluations were made, the stop condition holds, the strategy is
// exhausted or ctx is cancelled.
// It always returns the report of the evaluations made (a cancelled search
// is not an error: Stopped says so). The error is non-nil only if the
// strategy or the evaluator panicked; the report then holds what was
// measured before.
//
// The budget holds as well as the evaluator honours its context: the clock
// is checked before each evaluation (after the strategy chose its point),
// and the context of an evaluation is done when the budget ends. A
// strategy's own work is not cut: a search ends at most one evaluation and
// one choice of a point past its budget.
func Tune(ctx context.Context, set Settings, space *Space, strategy Strategy, ev Evaluator) (rep *Report, err error) {
	start := time.Now()
	rep = &Report{Strategy: strategy.Name(), Seed: set.Seed, SpaceSize: space.Size()}
	defer func() {
		if x := recover(); x != nil {
			rep.Stopped = StopError
			err = fmt.Errorf("autotune: %s search stopped by a panic after %d evaluations: %v", rep.Strategy, rep.Evaluations, x)
		}
		rep.Elapsed = time.Since(start)
		if u, ok := ev.(Unreported); ok {
			rep.Spent = rep.Spent.Add(u.Unreported())
		}
		if m := rep.Elapsed.Minutes(); m > 0 {
			rep.EvalsPerMinute = float64(rep.Evaluations) / m
		}
	}()
	run := ctx
	if set.Budget > 0 {
		var cancel context.CancelFunc
		run, cancel = context.WithDeadline(ctx, start.Add(set.Budget))
		defer cancel()
	}
	stopped := func() (StopReason, bool) {
		switch {
		case ctx.Err() != nil:
			return StopCancelled, true
		case run.Err() != nil, set.Budget > 0 && time.Since(start) >= set.Budget:
			// (The deadline's timer may fire a little late.)
			return StopBudget, true
		}
		return 0, false
	}
	rep.Bound, _ = evalBound(set, rep.SpaceSize)
	watch := &stopWatch{size: rep.SpaceSize}
	plan := newPlanning(set, strategy, rep.SpaceSize)
	prep, _ := ev.(Preparer)
	prepared := map[string]bool{}
	la, _ := strategy.(Lookahead)
	rr, _ := ev.(ReadyReporter)
	pk, _ := strategy.(Picker)
	reorder := set.ReadyFirst && la != nil && prep != nil && rr != nil && pk != nil
	fs, _ := strategy.(Foresight)
	sp, _ := ev.(Speculator)
	var guessed string // the keys of the guesses handed over last, joined
	// prepareUpcoming starts on the strategy's upcoming points and returns
	// them: Lookahead of them, or, with a ReadyReporter, as many more as
	// are ready (built, or measured ahead), up to twice Lookahead, so that
	// Lookahead preparations stay under way while the evaluator measures
	// the points ready ahead of the one Tune waits for; and, when Upcoming
	// leaves room, hands the strategy's guesses to the evaluator.
	prepareUpcoming := func() []Point {
		if la == nil || prep == nil {
			return nil
		}
		up := la.Upcoming(set.lookahead())
		if rr != nil {
			up = la.Upcoming(set.lookahead() + readyAmong(rr, up, prepared, set.lookahead()))
		}
		for _, q := range up {
			if k := q.Key(); !prepared[k] {
				prepared[k] = true
				prep.Prepare(q)
			}
		}
		// The preparations Upcoming leaves room for go to the points the
		// strategy may propose next, when its guesses change.
		if n := set.lookahead() - len(up); fs != nil && sp != nil && n > 0 {
			var guess []Point
			var keys []string
			for _, q := range fs.Likely(n) {
				if k := q.Key(); !prepared[k] {
					guess, keys = append(guess, q), append(keys, k)
				}
			}
			if k := strings.Join(keys, " "); k != guessed {
				guessed = k
				sp.Speculate(guess)
			}
		}
		return up
	}
	// pick returns the first upcoming point that is ready, taken from the
	// strategy (reorder).
	pick := func() (Point, bool) {
		for _, q := range prepareUpcoming() {
			if rr.Ready(q) {
				return q, pk.Take(q)
			}
		}
		return Point{}, false
	}
	for {
		if why, ok := stopped(); ok {
			rep.Stopped = why
			return rep, nil
		}
		if set.MaxEvals > 0 && rep.Counted(rep.Bound) >= set.MaxEvals {
			rep.Stopped = StopMaxEvals
			return rep, nil
		}
		var p Point
		ok := false
		if reorder {
			p, ok = pick()
		}
		if !ok {
			if p, ok = strategy.Next(); !ok {
				rep.Stopped = StopExhausted
				return rep, nil
			}
		}
		// The strategy's own work (a model's training) may have taken
		// the rest of the budget: no evaluation starts after it.
		if why, ok := stopped(); ok {
			rep.Stopped = why
			return rep, nil
		}
		ectx, cancel := run, context.CancelFunc(func() {})
		if set.EvalTimeout > 0 {
			ectx, cancel = context.WithTimeout(run, set.EvalTimeout)
		}
		prepareUpcoming()
		res := ev.Evaluate(ectx, p)
		cancel()
		if res.Outcome < 0 || res.Outcome >= numOutcomes {
			res = Result{Outcome: Launch, Err: fmt.Errorf("autotune: evaluator returned unknown outcome %d (%v)", int(res.Outcome), res.Err)}
		}
		if why, ok := stopped(); ok && res.Outcome != OK {
			// Interrupted by the end of the search, not the variant's
			// fault: neither a failure nor a result to learn from.
			rep.Cut++
			rep.Spent = rep.Spent.Add(res.Cost)
			rep.Stopped = why
			return rep, nil
		}
		e := rep.add(Eval{Point: p, Result: res, Elapsed: time.Since(start)})
		strategy.Tell(p, res)
		if set.Progress != nil {
			set.Progress(Progress{
				Evaluations: rep.Evaluations,
				Failures:    rep.Failures.Total(),
				Found:       rep.Found,
				Best:        rep.Best,
				BestMs:      rep.BestMs,
				Elapsed:     e.Elapsed,
				Last:        e,
			})
		}
		if set.Stop != nil {
			elapsed := e.Elapsed
			if set.Clock != nil {
				elapsed = set.Clock()
			}
			if st := watch.after(rep, elapsed); set.Stop.Done(st) {
				rep.Stopped, rep.StopCondition = StopCondition, Held(set.Stop, st)
				return rep, nil
			}
		}
		plan.after(rep.Measured, e.Elapsed)
	}
}

// planning tells a Planner strategy its budget of evaluations.
type planning struct {
	p      Planner
	budget time.Duration // the time budget, when only it limits the search
	next   int           // the number of evaluations after which to estimate again
	told   int
}

// newPlanning tells strategy, if it is a Planner, the evaluations set
// allows when they are known; else, with a time budget, it estimates them
// later (after).
func newPlanning(set Settings, strategy Strategy, size *big.Int) *planning {
	p, ok := strategy.(Planner)
	if !ok {
		return &planning{}
	}
	if n, known := evalBound(set, size); known {
		p.Plan(n)
		return &planning{}
	}
	if set.Budget <= 0 {
		return &planning{}
	}
	return &planning{p: p, budget: set.Budget, next: 5}
}

// after re-estimates the budget of evaluations after n measured in elapsed,
// at n = 5, 10, 20, 40, ...: n times the budget over elapsed.
func (pl *planning) after(n int, elapsed time.Duration) {
	if pl.p == nil || n < pl.next || elapsed <= 0 {
		return
	}
	pl.next = 2 * n
	est := float64(n) * float64(pl.budget) / float64(elapsed)
	if est > math.MaxInt32 {
		est = math.MaxInt32
	}
	if e := max(n+1, int(est)); e != pl.told {
		pl.told = e
		if es, ok := pl.p.(Estimator); ok {
			es.Estimate(e)
		} else {
			pl.p.Plan(e)
		}
	}
}

// readyAmong counts the points of up that were prepared and are ready, at
// most most.
func readyAmong(rr ReadyReporter, up []Point, prepared map[string]bool, most int) int {
	n := 0
	for _, q := range up {
		if n < most && prepared[q.Key()] && rr.Ready(q) {
			n++
		}
	}
	return n
}

func (s Settings) lookahead() int {
	if s.Lookahead <= 0 {
		return 2
	}
	return s.Lookahead
}

// JSONReport is the machine-readable form of a Report (the CLI's --json).
// Times are in milliseconds; best_ms and speedup are 0 when no variant
// succeeded, speedup also when the baseline time is unknown (0).
// evaluations counts measured ones and those taken from records
// (from_records). The fields from problem to tool identify the result, so
// that it can be looked up and trusted later; the caller fills them (Report
// does not know them), as it fills kernel and device.
type JSONReport struct {
	Kernel string `json:"kernel"`
	Device string `json:"device"`
	// Problem is the records' ID of the tuning problem (kernel, device,
	// sizes, search space); Sizes the problem's sizes; Driver the device's
	// driver version; Date when the report was made (RFC 3339); Tool the
	// version of the tool that made it. StartedFrom names the records
	// whose best settings the search started from (device, sizes): the
	// nearest shapes tuned on this device and driver, else those of
	// other devices or drivers, nearest first.
	Problem  string `json:"problem,omitempty"`
	Sizes    string `json:"sizes,omitempty"`
	Driver   string `json:"driver,omitempty"`
	Date     string `json:"date,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Strategy string `json:"strategy"`
	// StrategySettings are the strategy's settings that differ from its
	// defaults, as its flag takes them (hplopt tune --opening), when any
	// (filled by the caller that knows them).
	StrategySettings string         `json:"strategy_settings,omitempty"`
	Seed             uint64         `json:"seed"`
	SpaceSize        *big.Int       `json:"space_size"`
	Evaluations      int            `json:"evaluations"`
	Measured         int            `json:"measured"`
	Rejected         int            `json:"rejected"`
	FromRecords      int            `json:"from_records"`
	Reused           *JSONReuse     `json:"reused,omitempty"`
	StartedFrom      []string       `json:"started_from,omitempty"`
	Failures         Failures       `json:"failures"`
	BaselineMs       float64        `json:"baseline_ms"`
	BestMs           float64        `json:"best_ms"`
	Speedup          float64        `json:"speedup"`
	BestParams       map[string]int `json:"best_params"`
	EvalsPerMinute   float64        `json:"evals_per_minute"`
	ElapsedS         float64        `json:"elapsed_s"`
	Time             JSONTime       `json:"time"`
	Stopped          string         `json:"stopped"`
	// Cut is Report.Cut: evaluations the end of the search interrupted,
	// not in the history; the time they waited is in time.
	Cut int `json:"cut,omitempty"`
	// StopCondition is the part of the stop condition that held when
	// stopped is "stop-condition".
	StopCondition string     `json:"stop_condition,omitempty"`
	History       []JSONEval `json:"history"`

	// The fields below are filled by the caller that knows them (package
	// optimizer), like Kernel and Device.

	// SetupS is the time before the search, in seconds: starting the
	// processes that measure and build, and timing the baseline kernel.
	SetupS float64 `json:"setup_s,omitempty"`
	// Order is how the evaluator ordered its measurements ("ready",
	// "proposed"); the history is in the order the points were proposed,
	// each evaluation's order field in the order of measurement.
	Order string `json:"order,omitempty"`
	// Builds says what the evaluator's build processes did, when it has
	// them.
	Builds *JSONBuilds `json:"builds,omitempty"`
}

// JSONBuilds is what the processes that build variants ahead of their
// measurement did during the search: their number, the builder-seconds
// they were busy, that over builders times the search's time, the builds
// made, those taken from the cache of built programs instead, those that
// failed, and the builders started again after one died or beside a slow
// one.
type JSONBuilds struct {
	Builders    int     `json:"builders"`
	BusyS       float64 `json:"busy_s"`
	Utilization float64 `json:"utilization"`
	Built       int     `json:"built"`
	CacheHits   int     `json:"cache_hits"`
	Failed      int     `json:"failed"`
	Restarts    int     `json:"restarts"`
	Extra       int     `json:"extra"`
}

// JSONTime splits elapsed_s (Report.Spent): seconds spent waiting for
// variants to be generated (gen_wait_s), for builds, waiting for the measuring process to make the programs from
// their binaries (load_wait_s), running variants (kernel_s of it on the
// device, by profiling events) and checking outputs; other_s is the rest.
// kernel_fraction is kernel_s over elapsed_s: the fraction of the search
// the device spent running kernels.
type JSONTime struct {
	GenWaitS       float64 `json:"gen_wait_s"`
	BuildWaitS     float64 `json:"build_wait_s"`
	LoadWaitS      float64 `json:"load_wait_s"`
	RunS           float64 `json:"run_s"`
	KernelS        float64 `json:"kernel_s"`
	CheckS         float64 `json:"check_s"`
	OtherS         float64 `json:"other_s"`
	KernelFraction float64 `json:"kernel_fraction,omitempty"`
}

// JSONEval is one evaluation in a JSONReport; ms is 0 for a failure, and
// message is a failure's reason (Result.Err: the passes' reason for an
// illegal setting, the compiler's log, the first wrong element, or how a
// worker process ended with the end of its output, such as a compiler's
// assertion), absent for a success. order is Result.Order, omitted when 0; cost is
// Result.Cost in milliseconds, omitted when zero.
type JSONEval struct {
	Params      map[string]int `json:"params"`
	Outcome     Outcome        `json:"outcome"`
	Ms          float64        `json:"ms"`
	ElapsedMs   float64        `json:"elapsed_ms"`
	FromRecords bool           `json:"from_records,omitempty"`
	Message     string         `json:"message,omitempty"`
	Order       int            `json:"order,omitempty"`
	Cost        *JSONCost      `json:"cost,omitempty"`
}

// JSONCost is one evaluation's Cost in milliseconds.
type JSONCost struct {
	GenMs    float64 `json:"gen_ms,omitempty"`
	BuildMs  float64 `json:"build_ms"`
	LoadMs   float64 `json:"load_ms"`
	RunMs    float64 `json:"run_ms"`
	KernelMs float64 `json:"kernel_ms"`
	CheckMs  float64 `json:"check_ms"`
}

func jsonCost(c Cost) *JSONCost {
	if c == (Cost{}) {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return &JSONCost{GenMs: ms(c.Generate), BuildMs: ms(c.Build), LoadMs: ms(c.Load), RunMs: ms(c.Run), KernelMs: ms(c.Kernels), CheckMs: ms(c.Check)}
}

// JSONReuse says where a result taken instead of searching (stopped
// "reused") came from: the records of this very problem (exact), or those
// of the recorded shape nearest to it (its best setting carried over, or
// the kernel as written when that setting does not fit: Note says why).
// Its times are those measured there, not for this problem when not exact.
type JSONReuse struct {
	Exact      bool    `json:"exact"`
	Problem    string  `json:"problem"`
	Sizes      string  `json:"sizes"`
	Run        string  `json:"run"`
	Date       string  `json:"date"`
	Ms         float64 `json:"ms"`
	BaselineMs float64 `json:"baseline_ms"`
	Note       string  `json:"note,omitempty"`
}

// JSON returns the serializable form of r, with the fields a search does
// not know filled from the arguments: the kernel's and device's names and
// the time of the baseline (unoptimized) kernel in ms, 0 if unknown.
func (r *Report) JSON(kernel, device string, baselineMs float64) *JSONReport {
	j := &JSONReport{
		Kernel:         kernel,
		Device:         device,
		Strategy:       r.Strategy,
		Seed:           r.Seed,
		SpaceSize:      r.SpaceSize,
		Evaluations:    r.Evaluations,
		Measured:       r.Measured,
		Rejected:       r.Rejected,
		FromRecords:    r.FromRecords,
		Failures:       r.Failures,
		BaselineMs:     finite(baselineMs),
		BestParams:     map[string]int{},
		EvalsPerMinute: finite(r.EvalsPerMinute),
		ElapsedS:       r.Elapsed.Seconds(),
		Time: JSONTime{
			GenWaitS: r.Spent.Generate.Seconds(), BuildWaitS: r.Spent.Build.Seconds(), LoadWaitS: r.Spent.Load.Seconds(), RunS: r.Spent.Run.Seconds(), KernelS: r.Spent.Kernels.Seconds(), CheckS: r.Spent.Check.Seconds(),
			OtherS: r.Other().Seconds(),
		},
		Stopped:       r.Stopped.String(),
		Cut:           r.Cut,
		StopCondition: r.StopCondition,
		History:       make([]JSONEval, 0, len(r.History)),
	}
	if j.SpaceSize == nil {
		j.SpaceSize = new(big.Int)
	}
	if r.Elapsed > 0 {
		j.Time.KernelFraction = float64(r.Spent.Kernels) / float64(r.Elapsed)
	}
	if r.Found {
		j.BestMs = r.BestMs
		j.BestParams = r.Best.Map()
		if j.BaselineMs > 0 && r.BestMs > 0 {
			j.Speedup = j.BaselineMs / r.BestMs
		}
	}
	for _, e := range r.History {
		je := JSONEval{Params: e.Point.Map(), Outcome: e.Result.Outcome, ElapsedMs: float64(e.Elapsed) / float64(time.Millisecond), FromRecords: e.Result.FromRecords, Order: e.Result.Order, Cost: jsonCost(e.Result.Cost)}
		if ms := e.Result.Fitness(); !math.IsInf(ms, 1) {
			je.Ms = ms
		}
		if e.Result.Err != nil && e.Result.Outcome != OK {
			je.Message = e.Result.Err.Error()
		}
		j.History = append(j.History, je)
	}
	return j
}

// finite maps NaN and infinities (which JSON cannot hold) to 0.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
