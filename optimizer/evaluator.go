package optimizer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/transforms"
)

// measurer measures variants on a device: a *runner.Worker.
type measurer interface {
	Prepare(v runner.Variant)
	PrepareFirst(v runner.Variant)
	Ready(v runner.Variant) bool
	WaitReady(ctx context.Context, vs []runner.Variant) int
	Measure(ctx context.Context, v runner.Variant) autotune.Result
}

var _ measurer = (*runner.Worker)(nil)

// evaluator is the paper's Figure 2 for one point: it turns the point into
// transforms.Params, applies the passes, generates the OpenCL and has the
// runner measure it. The runner's builders build the upcoming variants
// while the current one runs.
//
// In OrderReady, when the point Tune asks for is not built yet, the
// evaluator measures the upcoming points that are, in the order they were
// proposed, and keeps their results until Tune asks for them: the device
// measures whatever is ready, and the strategy hears the results in the
// order it proposed the points. Every result carries its position in the
// order of measurement (Result.Order).
type evaluator struct {
	prob     *transforms.Problem
	toParams func(autotune.Point) transforms.Params
	w        measurer
	ready    bool             // OrderReady
	made     map[string]*made // variants prepared and not yet evaluated, by point
	ahead    []string         // keys of made, in the order they were prepared
	done     map[string]autotune.Result
	measured map[string][2]time.Time // when the results in done were measured
	last     [2]time.Time            // when the result Evaluate returned last was measured
	keep     int                     // how many generated variants to remember at most
	best     float64                 // fastest verified time so far (at first the single-point kernel's), ms
	base     float64                 // the single-point kernel's time, ms; 0: unknown
	slow     float64                 // Settings.SlowLimit with its default; 0: none
	order    int                     // evaluations carried out so far
	// gen, when not nil, takes the prepared points to the goroutine that
	// generates their variants (background); nil: Prepare generates.
	gen chan *made
}

// made is a point's variant, generated once gen is closed.
type made struct {
	pt  autotune.Point
	v   runner.Variant
	err error
	gen chan struct{}
}

// generated reports whether m's variant is generated.
func (m *made) generated() bool {
	select {
	case <-m.gen:
		return true
	default:
		return false
	}
}

// newEvaluator makes the evaluator of prob's points on w; base is the
// single-point kernel's time in ms (0: unknown), slow the limit
// (Settings.slowLimit) on a variant's first launch relative to it.
func newEvaluator(prob *transforms.Problem, toParams func(autotune.Point) transforms.Params, w measurer, ready bool, keep int, base, slow float64) *evaluator {
	return &evaluator{prob: prob, toParams: toParams, w: w, ready: ready, made: map[string]*made{}, done: map[string]autotune.Result{},
		measured: map[string][2]time.Time{}, keep: keep, best: base, base: base, slow: slow}
}

// background makes the evaluator generate the prepared points' variants
// in a goroutine, one after another in the order prepared, and give them
// to the measurer from there (which must then be safe for concurrent use,
// as a *runner.Worker is): the passes and the printer (about a millisecond
// of CPU for a MATMUL variant) then run while the variants before are
// measured, not between two measurements. The variants, the points
// evaluated and their results are those of a synchronous evaluator. stop
// ends the goroutine; call it before the measurer is closed.
func (e *evaluator) background() (stop func()) {
	e.gen = make(chan *made, e.keep)
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case m := <-e.gen:
				e.fillSafe(m)
				if m.err == nil {
					e.w.Prepare(m.v)
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-ended
	}
}

// generate returns pt's variant, made by Prepare (once its generation
// ends) or now; it forgets it.
func (e *evaluator) generate(pt autotune.Point) *made {
	k := pt.Key()
	if m, ok := e.made[k]; ok {
		e.forget(k)
		<-m.gen
		return m
	}
	m := &made{pt: pt, gen: make(chan struct{})}
	e.fill(m)
	return m
}

// fillSafe is fill that makes a panic m's error: in the background
// goroutine, Tune's recovery does not reach it.
func (e *evaluator) fillSafe(m *made) {
	defer close(m.gen) // after the error is set
	defer func() {
		if x := recover(); x != nil {
			m.err = fmt.Errorf("optimizer: generating the variant of %s: %v", m.pt.Key(), x)
		}
	}()
	e.variant(m)
}

// fill generates m's variant and closes m.gen.
func (e *evaluator) fill(m *made) {
	defer close(m.gen)
	e.variant(m)
}

// variant generates m's variant: the passes, then the OpenCL.
func (e *evaluator) variant(m *made) {
	v, err := transforms.Apply(e.prob, e.toParams(m.pt))
	if err != nil {
		m.err = err
		return
	}
	src, err := codegen.Source(v.Kernel)
	if err != nil {
		m.err = err
		return
	}
	m.v = runner.Variant{Source: src, KernelName: v.Kernel.Name, Global: v.Global, Local: v.Local}
}

func (e *evaluator) forget(k string) {
	delete(e.made, k)
	e.ahead = slices.DeleteFunc(e.ahead, func(s string) bool { return s == k })
}

// Prepare generates pt's variant and has the worker build it ahead; with
// a background generator, it only hands pt to it.
func (e *evaluator) Prepare(pt autotune.Point) {
	k := pt.Key()
	if _, ok := e.made[k]; ok {
		return
	}
	if _, ok := e.done[k]; ok {
		return
	}
	for len(e.ahead) >= e.keep {
		e.forget(e.ahead[0])
	}
	m := &made{pt: pt, gen: make(chan struct{})}
	e.made[k] = m
	e.ahead = append(e.ahead, k)
	if e.gen != nil {
		e.gen <- m
		return
	}
	e.fill(m)
	if m.err == nil {
		e.w.Prepare(m.v)
	}
}

// Ready reports whether evaluating pt would not wait for a build: it was
// measured ahead, its variant could not be generated (its evaluation fails
// at once), or the worker has built it.
func (e *evaluator) Ready(pt autotune.Point) bool {
	if _, ok := e.done[pt.Key()]; ok {
		return true
	}
	m, ok := e.made[pt.Key()]
	if !ok || !m.generated() {
		return false
	}
	return m.err != nil || e.w.Ready(m.v)
}

// when returns when the result Evaluate returned last was measured; a
// result not measured (a setting the passes reject) has started, and now.
func (e *evaluator) when(started time.Time) (time.Time, time.Time) {
	if e.last[0].IsZero() {
		return started, time.Now()
	}
	return e.last[0], e.last[1]
}

// Evaluate measures pt's variant (or returns its result, measured ahead).
func (e *evaluator) Evaluate(ctx context.Context, pt autotune.Point) autotune.Result {
	e.last = [2]time.Time{}
	if r, ok := e.done[pt.Key()]; ok {
		delete(e.done, pt.Key())
		e.last = e.measured[pt.Key()]
		delete(e.measured, pt.Key())
		return r
	}
	start := time.Now()
	m := e.generate(pt)
	gen := time.Since(start) // waiting for the background generator, or generating
	if m.err != nil {
		e.order++
		o := autotune.Compile
		if errors.Is(m.err, transforms.ErrIllegal) {
			o = autotune.Illegal
		}
		return autotune.Result{Outcome: o, Err: m.err, Order: e.order, Cost: autotune.Cost{Generate: gen}}
	}
	if e.ready {
		e.w.PrepareFirst(m.v) // wanted now: its build before the others'
	}
	var waited time.Duration // for builds, not measuring others
	for e.ready && ctx.Err() == nil && !e.w.Ready(m.v) {
		// Measure what is built while pt's build goes on; or wait for
		// pt's build or another's to end.
		if q, ok := e.readyAhead(); ok {
			r := e.measure(ctx, q.v)
			if ctx.Err() != nil && r.Outcome != autotune.OK {
				break // cut by the end of the search: not q's result
			}
			e.forget(q.pt.Key())
			e.done[q.pt.Key()], e.measured[q.pt.Key()] = r, e.last
			continue
		}
		vs := []runner.Variant{m.v}
		for _, k := range e.ahead {
			if q := e.made[k]; q.generated() && q.err == nil {
				vs = append(vs, q.v)
			}
		}
		wait := time.Now()
		i := e.w.WaitReady(ctx, vs)
		waited += time.Since(wait)
		if i <= 0 {
			break // pt is ready, or the worker says to go on, or ctx is done
		}
	}
	r := e.measure(ctx, m.v)
	r.Cost.Build += waited
	r.Cost.Generate += gen
	return r
}

// readyAhead returns the first prepared point whose variant is built.
func (e *evaluator) readyAhead() (*made, bool) {
	for _, k := range e.ahead {
		if q := e.made[k]; q.generated() && q.err == nil && e.w.Ready(q.v) {
			return q, true
		}
	}
	return nil, false
}

// measure measures v: it is timed once if it is four times slower than
// the best so far, stopped if its first launch runs e.slow times longer
// than the single-point kernel (SlowFloor at least), and timed with fewer
// launches when the search's end (ctx's deadline) leaves no time for all.
// e.last says when.
func (e *evaluator) measure(ctx context.Context, v runner.Variant) autotune.Result {
	if e.best > 0 {
		v.CutoffMs = 4 * e.best
	}
	if ref := max(e.base, e.best); e.slow > 0 && ref > 0 {
		v.SlowAfter = max(SlowFloor, time.Duration(e.slow*ref*float64(time.Millisecond)))
		whose := "the single-point kernel's"
		if ref > e.base {
			whose = "the best variant's"
		}
		ms := fmt.Sprintf("%.3g", ref)
		if ref >= 100 {
			ms = fmt.Sprintf("%.0f", ref)
		}
		v.SlowWhy = fmt.Sprintf("slower than %g x %s %s ms", e.slow, whose, ms)
	}
	if d, ok := ctx.Deadline(); ok {
		v.Deadline = d
	}
	start := time.Now()
	r := e.w.Measure(ctx, v)
	e.last = [2]time.Time{start, time.Now()}
	if r.Outcome == autotune.OK && (e.best == 0 || r.Ms < e.best) {
		e.best = r.Ms
	}
	e.order++
	r.Order = e.order
	return r
}
