package autotune

import (
	"math"
	"math/rand/v2"
)

var (
	_ Strategy = (*Annealing)(nil)
	_ Planner  = (*Annealing)(nil)
)

// AnnealingSettings controls simulated annealing. The zero value gives the
// defaults below.
type AnnealingSettings struct {
	// Temperature is the starting temperature T0. Default 0.5 (the best
	// of 0.1 to 4 on the recorded tables of testdata/replay).
	Temperature float64
	// Horizon is the number of evaluations over which the temperature
	// falls linearly from T0 to 0 (CLTune's schedule, T0·(1 - k/Horizon)
	// after k evaluations); after it the search only moves to better
	// neighbours. Default 0: Evaluations when known (also when Tune tells
	// it later: Plan), else 2.5% of the space, at least 100 and at most
	// 1000 evaluations.
	Horizon int
	// Evaluations is the search's budget of evaluations when it is known.
	// Default 0: unknown.
	Evaluations int
	// Seeds are starting points, tried (repaired into the space) before
	// random ones. Default none: random starts.
	Seeds []Point
}

func (s AnnealingSettings) withDefaults(space *Space) AnnealingSettings {
	if s.Temperature <= 0 {
		s.Temperature = 0.5
	}
	if s.Horizon <= 0 && s.Evaluations > 0 {
		s.Horizon = s.Evaluations
	}
	if s.Horizon <= 0 {
		size := space.Size()
		h := 1000
		if size.IsInt64() && size.Int64() < 40*1000 {
			h = int(size.Int64() / 40)
		}
		s.Horizon = max(h, 100)
	}
	return s
}

// Annealing is CLTune's simulated annealing over a space's neighbourhood
// (Space.Neighbours: one parameter moved to an adjacent value of its
// range). It starts at a seed or a random point; each step proposes a
// random neighbour of the current point never measured, and moves there
// with probability
//
//	P = 1                   if t' < t
//	P = exp(-(t'-t)/t / T)  otherwise
//
// t and t' being the times of the current point and of the neighbour and T
// the temperature: CLTune's acceptance rule with the difference relative to
// t, so that T does not depend on the kernel's time scale (CLTune's is in
// the times' unit). A failed neighbour (fitness +Inf) is never moved to;
// from a failed current point any neighbour is. When every neighbour of
// the current point was measured, the search walks through measured
// neighbours by the same rule (no evaluation) to find one with unmeasured
// neighbours, and restarts at a random point never measured when that
// fails (CLTune would measure a visited neighbour again). Next returns
// ok=false once every point was proposed.
//
// Annealing is not a Lookahead: its next point depends on the result of
// the current one.
type Annealing struct {
	space *Space
	r     *rand.Rand
	set   AnnealingSettings
	given AnnealingSettings // as given, before the defaults
	seen  *Visited

	seeds   []Point
	cur     Point
	curFit  float64
	hasCur  bool
	last    Point // proposed, not yet told
	restart bool  // last is a (re)start point
	told    int   // results of own proposals told
}

// NewAnnealing returns a simulated annealing search of space drawing from
// r.
func NewAnnealing(space *Space, r *rand.Rand, set AnnealingSettings) *Annealing {
	return &Annealing{space: space, r: r, set: set.withDefaults(space), given: set, seen: NewVisited(space, r), seeds: set.Seeds}
}

// Plan sets the budget of evaluations the temperature falls to 0 over,
// unless the settings gave a Horizon.
func (a *Annealing) Plan(evaluations int) {
	if evaluations > 0 && a.given.Horizon <= 0 {
		a.set.Horizon = evaluations
	}
}

// Horizon returns the number of evaluations the temperature falls to 0
// over.
func (a *Annealing) Horizon() int { return a.set.Horizon }

// Name returns "annealing".
func (*Annealing) Name() string { return "annealing" }

// Temperature returns the current temperature.
func (a *Annealing) Temperature() float64 {
	return max(0, a.set.Temperature*(1-float64(a.told)/float64(a.set.Horizon)))
}

// Next returns an unmeasured neighbour of the current point, or a new
// start.
func (a *Annealing) Next() (Point, bool) {
	if a.hasCur {
		for walk := 0; walk < 16; walk++ {
			var fresh, measured []Point
			for _, q := range a.space.Neighbours(a.cur) {
				if !a.seen.Seen(q) {
					fresh = append(fresh, q)
				} else if _, ok := a.seen.Fitness(q); ok {
					measured = append(measured, q)
				}
			}
			if len(fresh) > 0 {
				p := fresh[a.r.IntN(len(fresh))]
				a.seen.Propose(p)
				a.last, a.restart = p, false
				return p, true
			}
			if len(measured) == 0 {
				break
			}
			q := measured[a.r.IntN(len(measured))]
			f, _ := a.seen.Fitness(q)
			if a.accept(f) {
				a.cur, a.curFit = q, f
			}
		}
	}
	p, ok := a.start()
	if !ok {
		return Point{}, false
	}
	a.last, a.restart = p, true
	return p, true
}

// start returns the next seed never proposed, or a random fresh point.
func (a *Annealing) start() (Point, bool) {
	p, rest, ok := a.seen.Seed(a.seeds)
	a.seeds = rest
	if ok {
		return p, true
	}
	return a.seen.Fresh()
}

// accept decides whether to move from the current point to one of fitness
// f.
func (a *Annealing) accept(f float64) bool {
	switch {
	case f < a.curFit || math.IsInf(a.curFit, 1):
		return true
	case math.IsInf(f, 1):
		return false
	}
	t := a.Temperature()
	if t <= 0 {
		return false
	}
	return a.r.Float64() < math.Exp(-(f-a.curFit)/a.curFit/t)
}

// Tell records p's result and, for the point just proposed, moves to it
// by the acceptance rule. Results of points it did not propose (another
// technique's, in a bandit) are only recorded.
func (a *Annealing) Tell(p Point, r Result) {
	a.seen.Tell(p, r)
	if !p.Equal(a.last) || a.last.IsZero() {
		return
	}
	a.last = Point{}
	a.told++
	f := r.Fitness()
	if a.restart || a.accept(f) {
		a.cur, a.curFit, a.hasCur = p, f, true
	}
}
