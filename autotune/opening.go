package autotune

import "slices"

// Opening is a search in two phases: one strategy, the opening, chooses
// the first K points, then another, made when the opening's last result is
// told, chooses the rest. The second is made from every result told so far
// (its constructor may start from them, say as a first population) and is
// then told each of them, in the order they were told, so that it models
// them and never proposes them again; Opening also never proposes a point
// twice. Until the hand-over Upcoming returns only the opening's points
// (the second cannot be made before the opening's results are known), so
// an evaluator that builds ahead waits once, at the hand-over. The budget
// told by Plan goes to both phases (the opening's points are then those
// it would choose in a whole search of that budget). A search made with
// one random source for both phases is reproduced by its seed.
type Opening struct {
	name  string
	first Strategy
	k     int
	then  func(told []Eval) Strategy

	second   Strategy
	told     []Eval          // the results told before the hand-over, in order
	proposed map[string]bool // points proposed (Next or Take), either phase
	opened   int             // points the opening proposed
	plan     int             // the budget told by Plan or Estimate, 0 if none
	estimate bool            // plan is an estimate (Estimate), not a given budget

	// Share, when positive, bounds the opening by a budget Estimate tells
	// (one Tune estimates from a time budget): it proposes at most Share
	// of it (at least 1 point), fewer than k when the budget is small. A
	// budget Plan tells (evaluations given: MaxEvals, a stop condition's
	// bound) does not bound it: the opening is the better search of a
	// few evaluations, and those are the budget. A budget told after the
	// hand-over changes nothing. Default 0: k whatever the budget.
	Share float64
}

var (
	_ Strategy  = (*Opening)(nil)
	_ Lookahead = (*Opening)(nil)
	_ Picker    = (*Opening)(nil)
	_ Planner   = (*Opening)(nil)
	_ Estimator = (*Opening)(nil)
	_ Foresight = (*Opening)(nil)
)

// NewOpening returns a search named name whose first k points (at least
// 1) first proposes and whose later points the strategy then makes,
// given every result told, proposes.
func NewOpening(name string, first Strategy, k int, then func(told []Eval) Strategy) *Opening {
	return &Opening{name: name, first: first, k: max(k, 1), then: then, proposed: map[string]bool{}}
}

// Name returns the name NewOpening was given.
func (o *Opening) Name() string { return o.name }

// Phase returns 1 before the hand-over, 2 after it.
func (o *Opening) Phase() int {
	if o.second != nil {
		return 2
	}
	return 1
}

// handOver makes the second strategy once the opening proposed its k
// points and every result was told (or, asked for a point before, with
// the results told so far), and tells it every result.
func (o *Opening) handOver(force bool) bool {
	if o.second != nil {
		return true
	}
	if o.opened < o.limit() || (!force && len(o.told) < len(o.proposed)) {
		return false
	}
	o.k = o.opened // a larger budget told later does not reopen it
	o.second = o.then(slices.Clone(o.told))
	if p, ok := o.second.(Planner); ok && o.plan > 0 {
		p.Plan(o.plan)
	}
	for _, e := range o.told {
		o.second.Tell(e.Point, e.Result)
	}
	return true
}

// limit returns the number of points the opening proposes: k, or Share
// of the budget Estimate told when that is fewer.
func (o *Opening) limit() int {
	if o.Share <= 0 || o.plan <= 0 || !o.estimate {
		return o.k
	}
	return min(o.k, max(1, int(o.Share*float64(o.plan))))
}

// Next returns the opening's next point until it proposed its points (k,
// or fewer by Share), then the second strategy's.
func (o *Opening) Next() (Point, bool) {
	if o.opened < o.limit() {
		p, ok := o.first.Next()
		if ok {
			o.opened++
			o.proposed[p.Key()] = true
			return p, true
		}
		// The opening ran out: the second strategy takes over now.
		o.opened = o.k
	}
	o.handOver(true)
	for {
		p, ok := o.second.Next()
		if !ok {
			return Point{}, false
		}
		if k := p.Key(); !o.proposed[k] {
			o.proposed[k] = true
			return p, true
		}
	}
}

// Upcoming returns up to n points Next will return next: the opening's,
// at most as many as it has left to propose, or after the hand-over the
// second strategy's, when they are Lookaheads; none between the
// opening's last proposal and its result.
func (o *Opening) Upcoming(n int) []Point {
	var up []Point
	switch {
	case o.opened < o.limit():
		if la, ok := o.first.(Lookahead); ok {
			up = la.Upcoming(min(n, o.limit()-o.opened))
		}
	case o.handOver(false):
		if la, ok := o.second.(Lookahead); ok {
			up = la.Upcoming(n)
		}
	}
	return slices.DeleteFunc(up, func(p Point) bool { return o.proposed[p.Key()] })
}

// Likely returns up to n points the strategy of the current phase may
// propose next, when it is a Foresight: the opening's until it proposed
// its points (at most as many as it has left to propose), then the second
// strategy's.
func (o *Opening) Likely(n int) []Point {
	var s Strategy = o.second
	if o.opened < o.limit() {
		s, n = o.first, min(n, o.limit()-o.opened)
	}
	fs, ok := s.(Foresight)
	if !ok {
		return nil
	}
	return slices.DeleteFunc(fs.Likely(n), func(p Point) bool { return o.proposed[p.Key()] })
}

// Take removes p, one of the points Upcoming returned, from those Next
// will return, as if Next had returned it, when the strategy of the
// current phase is a Picker.
func (o *Opening) Take(p Point) bool {
	if o.proposed[p.Key()] {
		return false
	}
	var s Strategy = o.second
	if o.opened < o.limit() {
		s = o.first
	}
	if s == nil {
		return false
	}
	pk, ok := s.(Picker)
	if !ok || !pk.Take(p) {
		return false
	}
	if s == o.first {
		o.opened++
	}
	o.proposed[p.Key()] = true
	return true
}

// Tell records p's result and tells it to the strategy of the current
// phase (the second is told the opening's results when it is made).
func (o *Opening) Tell(p Point, r Result) {
	if o.second != nil {
		o.second.Tell(p, r)
		return
	}
	o.told = append(o.told, Eval{Point: p, Result: r}) // for the hand-over
	o.first.Tell(p, r)
}

// Plan tells the opening, and later the second strategy, the search's
// budget, when they are Planners.
func (o *Opening) Plan(evaluations int) {
	o.plan, o.estimate = evaluations, false
	o.tell(evaluations)
}

// Estimate is Plan for a budget estimated from a time budget, which Share
// bounds the opening by.
func (o *Opening) Estimate(evaluations int) {
	o.plan, o.estimate = evaluations, true
	o.tell(evaluations)
}

// tell tells both phases the budget.
func (o *Opening) tell(evaluations int) {
	if p, ok := o.first.(Planner); ok {
		p.Plan(evaluations)
	}
	if p, ok := o.second.(Planner); ok {
		p.Plan(evaluations)
	}
}
