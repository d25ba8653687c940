package autotune

import (
	"context"
	"slices"
	"testing"
)

// recorder is a random search that records what it proposed and was told.
type recorder struct {
	*Random
	proposed  int
	told      []Eval
	toldFirst int // results told before its first proposal, -1 before it
}

func newRecorder(r *Random) *recorder { return &recorder{Random: r, toldFirst: -1} }

func (r *recorder) Next() (Point, bool) {
	p, ok := r.Random.Next()
	if ok {
		if r.toldFirst < 0 {
			r.toldFirst = len(r.told)
		}
		r.proposed++
	}
	return p, ok
}

func (r *recorder) Take(p Point) bool {
	ok := r.Random.Take(p)
	if ok {
		if r.toldFirst < 0 {
			r.toldFirst = len(r.told)
		}
		r.proposed++
	}
	return ok
}

func (r *recorder) Tell(p Point, res Result) { r.told = append(r.told, Eval{Point: p, Result: res}) }

// lookingAhead is an evaluator that says it prepares points, so that Tune asks
// the strategy for its upcoming points.
type lookingAhead struct{ EvaluatorFunc }

func (lookingAhead) Prepare(Point) {}

// TestOpeningHandOver: the opening proposes the first K points; the second
// strategy is made once, from the K results in the order told, and is told
// each of them before it proposes anything; no point is evaluated twice
// (the second strategy here, a random search knowing nothing, proposes
// the opening's points again), the search makes MaxEvals evaluations, and
// a seed reproduces it; with and without Tune looking ahead.
func TestOpeningHandOver(t *testing.T) {
	s := divSpace(t)
	const k, evals = 7, 20
	timeOf := func(p Point) Result {
		return Result{Outcome: OK, Ms: float64(1 + p.Get("a") + 3*p.Get("d"))}
	}
	run := func(seed uint64, lookahead int) []string {
		r := NewRand(seed)
		first := newRecorder(NewRandom(s, r))
		var second *recorder
		var given [][]Eval
		o := NewOpening("opening", first, k, func(told []Eval) Strategy {
			given = append(given, told)
			second = newRecorder(NewRandom(s, r))
			return second
		})
		var ev Evaluator = EvaluatorFunc(func(_ context.Context, p Point) Result { return timeOf(p) })
		if lookahead > 0 {
			ev = lookingAhead{EvaluatorFunc(func(_ context.Context, p Point) Result { return timeOf(p) })}
		}
		rep, err := Tune(context.Background(), Settings{MaxEvals: evals, Lookahead: lookahead}, s, o, ev)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.History) != evals {
			t.Fatalf("seed %d, lookahead %d: %d evaluations, want %d", seed, lookahead, len(rep.History), evals)
		}
		var keys []string
		for _, e := range rep.History {
			if slices.Contains(keys, e.Point.Key()) {
				t.Errorf("seed %d, lookahead %d: %v evaluated twice", seed, lookahead, e.Point)
			}
			keys = append(keys, e.Point.Key())
		}
		if first.proposed != k || len(first.told) != k {
			t.Errorf("seed %d, lookahead %d: the opening proposed %d points and was told %d results, want %d", seed, lookahead, first.proposed, len(first.told), k)
		}
		if len(given) != 1 {
			t.Fatalf("seed %d, lookahead %d: the second strategy made %d times, want once", seed, lookahead, len(given))
		}
		if second.toldFirst != k {
			t.Errorf("seed %d, lookahead %d: the second strategy was told %d results before its first proposal, want %d", seed, lookahead, second.toldFirst, k)
		}
		if len(second.told) != evals {
			t.Errorf("seed %d, lookahead %d: the second strategy was told %d results, want all %d", seed, lookahead, len(second.told), evals)
		}
		for i, e := range rep.History {
			if i < k && (!given[0][i].Point.Equal(e.Point) || given[0][i].Result.Ms != e.Result.Ms) {
				t.Errorf("seed %d, lookahead %d: the second strategy was made from result %d %v, want %v", seed, lookahead, i, given[0][i].Point, e.Point)
			}
			if i < len(second.told) && !second.told[i].Point.Equal(e.Point) {
				t.Errorf("seed %d, lookahead %d: the second strategy's result %d is of %v, want %v", seed, lookahead, i, second.told[i].Point, e.Point)
			}
		}
		if o.Phase() != 2 {
			t.Errorf("seed %d, lookahead %d: phase %d after the search, want 2", seed, lookahead, o.Phase())
		}
		return keys
	}
	for _, lookahead := range []int{0, 5} {
		a, b, c := run(1, lookahead), run(1, lookahead), run(2, lookahead)
		if !slices.Equal(a, b) {
			t.Errorf("lookahead %d: seed 1 gave two searches:\n%v\n%v", lookahead, a, b)
		}
		if slices.Equal(a, c) {
			t.Errorf("lookahead %d: seeds 1 and 2 gave the same search", lookahead)
		}
	}
}

// TestOpeningPlan: Plan reaches the opening and, once made, the second
// strategy.
func TestOpeningPlan(t *testing.T) {
	s := divSpace(t)
	first := &planner{Random: NewRandom(s, NewRand(1))}
	var second *planner
	o := NewOpening("opening", first, 2, func([]Eval) Strategy {
		second = &planner{Random: NewRandom(s, NewRand(2))}
		return second
	})
	o.Plan(10)
	for range 3 {
		p, ok := o.Next()
		if !ok {
			t.Fatal("no point")
		}
		o.Tell(p, Result{Outcome: OK, Ms: 1})
	}
	if second == nil {
		t.Fatal("no hand-over after 3 points, the opening's 2 told")
	}
	if !slices.Equal(first.told, []int{10}) || !slices.Equal(second.told, []int{10}) {
		t.Errorf("Plan(10) told the opening %v and the second strategy %v, want [10] each", first.told, second.told)
	}
}

// TestOpeningShare: with Share, the opening proposes Share of the budget
// Estimate tells (estimated from a time budget) when that is fewer than K
// (at least 1), K otherwise, and a budget told after the hand-over changes
// nothing; a budget Plan tells (evaluations given) does not bound it.
func TestOpeningShare(t *testing.T) {
	s := divSpace(t)
	for _, c := range []struct {
		k     int
		share float64
		plans []int // told in turn, one before each proposal (0: none): by Estimate, or negated by Plan
		want  int   // the opening's proposals
	}{
		{k: 8, share: 0, plans: []int{4}, want: 8},
		{k: 8, share: 0.5, plans: nil, want: 8},
		{k: 8, share: 0.5, plans: []int{30}, want: 8},
		{k: 8, share: 0.5, plans: []int{10}, want: 5},
		{k: 8, share: 0.25, plans: []int{1}, want: 1},
		// An estimate that shrinks after 4 proposals hands over at once.
		{k: 8, share: 0.5, plans: []int{100, 0, 0, 0, 6}, want: 4},
		// One that grows after the hand-over (at 3) changes nothing.
		{k: 8, share: 0.5, plans: []int{6, 0, 0, 0, 100}, want: 3},
		// Evaluations given: the opening proposes its K, or the budget.
		{k: 8, share: 0.5, plans: []int{-10}, want: 8},
		{k: 8, share: 0.25, plans: []int{-1}, want: 8},
		// An estimate, then evaluations given before the hand-over.
		{k: 8, share: 0.5, plans: []int{10, 0, 0, -12}, want: 8},
	} {
		first := newRecorder(NewRandom(s, NewRand(1)))
		o := NewOpening("opening", first, c.k, func([]Eval) Strategy { return NewRandom(s, NewRand(2)) })
		o.Share = c.share
		for i := range 12 {
			switch {
			case i >= len(c.plans):
			case c.plans[i] > 0:
				o.Estimate(c.plans[i])
			case c.plans[i] < 0:
				o.Plan(-c.plans[i])
			}
			p, ok := o.Next()
			if !ok {
				t.Fatal("no point")
			}
			o.Tell(p, Result{Outcome: OK, Ms: 1})
		}
		if first.proposed != c.want {
			t.Errorf("k %d, share %g, budgets %v: the opening proposed %d points, want %d", c.k, c.share, c.plans, first.proposed, c.want)
		}
	}
}
