package strategies_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/costmodel"
	"github.com/hplopt/hplopt/strategies"
)

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{"": strategies.Default, "g": "genetic", "GEN": "genetic", "r": "random", "exhaustive": "exhaustive"} {
		s, err := strategies.Lookup(in)
		if err != nil || s.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, s.Name, err, want)
		}
	}
	if _, err := strategies.Lookup("simplex"); err == nil || !strings.Contains(err.Error(), "known: genetic") {
		t.Errorf("Lookup(simplex) = %v, want an error listing the strategies", err)
	}
}

// Every registered strategy proposes points of the space and names itself
// as registered.
func TestRegistryMakesWorkingStrategies(t *testing.T) {
	space, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: func(autotune.Point) []int { return []int{1, 2, 4, 8} }},
		autotune.Param{Name: "b", Range: func(autotune.Point) []int { return []int{0, 1} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range strategies.All() {
		if info.Doc == "" {
			t.Errorf("%s: no description", info.Name)
		}
		s, err := strategies.New(info.Name, space, autotune.NewRand(1), strategies.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != info.Name {
			t.Errorf("strategy registered as %q names itself %q", info.Name, s.Name())
		}
		for i := 0; i < 5; i++ {
			p, ok := s.Next()
			if !ok {
				break
			}
			if !space.Contains(p) {
				t.Errorf("%s proposed %v, not in the space", info.Name, p)
			}
			s.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: float64(p.Get("a"))})
		}
	}
}

// testSpace has dependent ranges (b a power of 2 up to a) and 210 points.
func testSpace(t testing.TB) *autotune.Space {
	t.Helper()
	space, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: func(autotune.Point) []int { return []int{1, 2, 4, 8, 16, 32} }},
		autotune.Param{Name: "b", Deps: []string{"a"}, Range: func(p autotune.Point) []int {
			var r []int
			for b := 1; b <= p.Get("a"); b *= 2 {
				r = append(r, b)
			}
			return r
		}},
		autotune.Param{Name: "c", Range: func(autotune.Point) []int { return []int{0, 1, 2, 3, 4} }},
		autotune.Param{Name: "d", Range: func(autotune.Point) []int { return []int{0, 1} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	if n := space.Size().Int64(); n != 210 {
		t.Fatalf("test space has %d points, want 210", n)
	}
	return space
}

// testEval is a smooth time with failures: a=32,b=1 does not compile,
// c=4,d=1 is illegal, and one point in 7 of a band fails at launch.
func testEval(_ context.Context, p autotune.Point) autotune.Result {
	a, b, c, d := p.Get("a"), p.Get("b"), p.Get("c"), p.Get("d")
	switch {
	case a == 32 && b == 1:
		return autotune.Result{Outcome: autotune.Compile}
	case c == 4 && d == 1:
		return autotune.Result{Outcome: autotune.Illegal}
	case (a*b+c)%7 == 3 && d == 0:
		return autotune.Result{Outcome: autotune.Launch}
	}
	la, lb := math.Log2(float64(a)), math.Log2(float64(b))
	return autotune.Result{Outcome: autotune.OK, Ms: 1 + (la-3)*(la-3) + (lb-2)*(lb-2) + math.Abs(float64(c)-1.5) + float64(d)/3}
}

// Every registered strategy proposes only points of the space, never one
// twice, copes with failures, and ends (ok=false) after proposing them all.
func TestStrategiesExhaustSpaceOnce(t *testing.T) {
	space := testSpace(t)
	for _, info := range strategies.All() {
		s, err := strategies.New(info.Name, space, autotune.NewRand(3), strategies.Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		ev := autotune.EvaluatorFunc(func(ctx context.Context, p autotune.Point) autotune.Result {
			if !space.Contains(p) {
				t.Errorf("%s proposed %v, not in the space", info.Name, p)
			}
			if seen[p.Key()] {
				t.Errorf("%s proposed %v twice", info.Name, p)
			}
			seen[p.Key()] = true
			return testEval(ctx, p)
		})
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 1000}, space, s, ev)
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		if rep.Stopped != autotune.StopExhausted || rep.Evaluations != 210 {
			t.Errorf("%s: %d evaluations, stopped by %s; want 210, exhausted", info.Name, rep.Evaluations, rep.Stopped)
		}
		if _, ok := s.Next(); ok {
			t.Errorf("%s: Next after exhaustion returned a point", info.Name)
		}
	}
}

// A search is reproduced by its seed, and another seed gives another
// search.
func TestStrategiesDeterministic(t *testing.T) {
	space := testSpace(t)
	run := func(name string, seed uint64) string {
		s, err := strategies.New(name, space, autotune.NewRand(seed), strategies.Options{Evaluations: 30})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 30}, space, s, autotune.EvaluatorFunc(testEval))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range rep.History {
			keys = append(keys, e.Point.Key())
		}
		return strings.Join(keys, " ")
	}
	for _, name := range strategies.Names() {
		a, b := run(name, 7), run(name, 7)
		if a != b {
			t.Errorf("%s: two searches with seed 7 differ", name)
		}
		if name != strategies.Exhaustive && a == run(name, 8) {
			t.Errorf("%s: seeds 7 and 8 give the same search", name)
		}
	}
}

// A Lookahead's upcoming points are the ones Next returns next.
func TestStrategiesLookahead(t *testing.T) {
	space := testSpace(t)
	for _, info := range strategies.All() {
		s := info.New(space, autotune.NewRand(5), strategies.Options{Evaluations: 50})
		la, ok := s.(autotune.Lookahead)
		if !ok {
			continue
		}
		for step := 0; step < 50; {
			up := la.Upcoming(3)
			if len(up) == 0 {
				p, ok := s.Next()
				if !ok {
					break
				}
				s.Tell(p, testEval(context.Background(), p))
				step++
				continue
			}
			for _, q := range up {
				p, ok := s.Next()
				if !ok || !p.Equal(q) {
					t.Fatalf("%s, step %d: Upcoming promised %v, Next returned %v, %v", info.Name, step, q, p, ok)
				}
				s.Tell(p, testEval(context.Background(), p))
				step++
			}
		}
	}
}

// TestBayesBatch checks that bayes with Options.Batch B chooses its model's
// points B a round, all offered to the builders (Upcoming) before any of
// their results is told, and that Check takes a batch only for bayes.
func TestBayesBatch(t *testing.T) {
	space := testSpace(t)
	info, err := strategies.Lookup(strategies.Bayes)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 4, 8} {
		s := info.New(space, autotune.NewRand(3), strategies.Options{Evaluations: 60, Batch: batch})
		la := s.(autotune.Lookahead)
		// The start: a tenth of the budget (6) of random points, then rounds.
		rounds := map[int]int{} // round size -> count
		for step := 0; step < 60; {
			// A round is planned when Next finds none left: its other
			// points are then all upcoming, before any result is told.
			p, ok := s.Next()
			if !ok {
				break
			}
			up := la.Upcoming(100)
			if step >= 6 {
				rounds[len(up)+1]++
			}
			s.Tell(p, testEval(context.Background(), p))
			step++
			for range up {
				q, _ := s.Next()
				s.Tell(q, testEval(context.Background(), q))
				step++
			}
		}
		if rounds[batch] < 3 {
			t.Errorf("batch %d: rounds after the start by size %v, want rounds of %d", batch, rounds, batch)
		}
		for size := range rounds {
			if size > batch {
				t.Errorf("batch %d: a round of %d points offered at once", batch, size)
			}
		}
	}
	if err := (strategies.Options{Batch: 4}).Check(strategies.Genetic); err == nil {
		t.Error("Check took a batch for genetic")
	}
	for _, name := range []string{strategies.Bayes, strategies.Genetic} {
		if err := (strategies.Options{Batch: 1}).Check(name); err != nil {
			t.Errorf("Check(%s) with a batch of 1: %v", name, err)
		}
	}
	if err := (strategies.Options{Batch: 8}).Check(strategies.Bayes); err != nil {
		t.Errorf("Check(bayes) with a batch of 8: %v", err)
	}
}

// TestOpening: the opening strategy's first Options.Opening.Evaluations
// evaluations (with Share negative, or with the default share, a third of
// the budget when that is fewer) are those hybrid makes with the same
// seed and budget (the first K of its search) when Neighbours is
// negative, and else the start
// points, then one anchored move of each that has any (unless Anchored is
// negative), then Neighbours of their neighbours (one parameter moved to
// the next value) before hybrid's choices; after them the genetic algorithm
// takes over. No point is evaluated twice and the budget is kept (the
// points rejected as illegal not counted), with and without Tune looking
// ahead.
func TestOpening(t *testing.T) {
	space := testSpace(t)
	const evals = 40
	var start []autotune.Point
	for _, m := range []map[string]int{{"a": 8, "b": 4, "c": 2, "d": 1}, {"a": 4, "b": 2, "c": 0, "d": 0}, {"a": 8, "b": 8, "c": 2, "d": 1}} {
		p, err := space.PointOf(m)
		if err != nil {
			t.Fatal(err)
		}
		start = append(start, p)
	}
	// The third start point, b at the top of its range, has anchored
	// moves; the first two have none.
	start, anchoredStart := start[:2], start
	seeds := start
	run := func(name string, set strategies.OpeningSettings, lookahead int) []autotune.Point {
		s, err := strategies.New(name, space, autotune.NewRand(4), strategies.Options{Evaluations: evals, Opening: set, Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		var ev autotune.Evaluator = autotune.EvaluatorFunc(testEval)
		if lookahead > 0 {
			ev = preparing{autotune.EvaluatorFunc(testEval)}
		}
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: evals, Lookahead: lookahead}, space, s, ev)
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := s.(*autotune.Opening); ok && o.Phase() != 2 {
			t.Errorf("opening %+v: still phase 1 after %d evaluations", set, evals)
		}
		var out []autotune.Point
		seen := map[string]bool{}
		for _, e := range rep.History {
			if k := e.Point.Key(); seen[k] {
				t.Errorf("%s %+v: %v evaluated twice", name, set, e.Point)
			} else {
				seen[k] = true
				out = append(out, e.Point)
			}
		}
		if rep.Measured != evals || len(rep.History) != evals+rep.Rejected {
			t.Errorf("%s %+v: %d evaluations, %d measured and %d rejected as illegal; want %d measured", name, set, len(rep.History), rep.Measured, rep.Rejected, evals)
		}
		return out
	}
	str := func(ps []autotune.Point) string {
		var keys []string
		for _, p := range ps {
			keys = append(keys, p.Key())
		}
		return strings.Join(keys, " ")
	}
	for _, lookahead := range []int{0, 8} {
		hybrid := run(strategies.Hybrid, strategies.OpeningSettings{}, lookahead)
		for _, k := range []int{6, 16} {
			// One length scale, as hybrid's model.
			got := run(strategies.Opening, strategies.OpeningSettings{Evaluations: k, Neighbours: -1, Share: -1, Isotropic: true}, lookahead)
			if str(got[:k]) != str(hybrid[:k]) {
				t.Errorf("lookahead %d: opening k=%d began %v, want hybrid's %v", lookahead, k, got[:k], hybrid[:k])
			}
			if str(got) == str(hybrid) {
				t.Errorf("lookahead %d: opening k=%d searched as hybrid after its %d points", lookahead, k, k)
			}
			got = run(strategies.Opening, strategies.OpeningSettings{Evaluations: k, Neighbours: 3, Anchored: -1, Share: -1}, lookahead)
			if str(got[:2]) != str(start) {
				t.Errorf("lookahead %d: opening k=%d began %v, want the start points %v", lookahead, k, got[:2], start)
			}
			for _, p := range got[2:5] {
				if !slices.ContainsFunc(space.Neighbours(start[1]), p.Equal) {
					t.Errorf("lookahead %d: opening k=%d measured %v third to fifth, not a neighbour of %v", lookahead, k, p, start[1])
				}
			}
			// By default one anchored move of each start point that has
			// any comes after the start points, before the neighbours.
			seeds = anchoredStart
			got = run(strategies.Opening, strategies.OpeningSettings{Evaluations: k, Neighbours: 3, Share: -1}, lookahead)
			seeds = start
			next := len(anchoredStart)
			for _, s := range anchoredStart {
				if len(space.Anchored(s)) == 0 {
					continue
				}
				if !slices.ContainsFunc(space.Anchored(s), got[next].Equal) {
					t.Errorf("lookahead %d: opening k=%d measured %v after the start points, not an anchored move of %v", lookahead, k, got[next], s)
				}
				next++
			}
			if next != len(anchoredStart)+1 {
				t.Fatalf("%d start points of the test space have anchored moves, want 1", next-len(anchoredStart))
			}
			for _, p := range got[next:min(k, next+3)] {
				if !slices.ContainsFunc(append(space.Neighbours(start[1]), space.Neighbours(anchoredStart[2])...), p.Equal) {
					t.Errorf("lookahead %d: opening k=%d measured %v after the anchored moves, not a neighbour of %v or %v", lookahead, k, p, start[1], anchoredStart[2])
				}
			}
		}
		// The default share, a third of the budget of 40, ends an opening
		// of 16 after 13 points.
		got := run(strategies.Opening, strategies.OpeningSettings{Evaluations: 16, Neighbours: -1}, lookahead)
		share := strategies.OpeningShare
		if n := int(share * evals); str(got[:n]) != str(hybrid[:n]) || got[n].Equal(hybrid[n]) {
			t.Errorf("lookahead %d: opening k=16 with the default share of a budget of %d began %v, want hybrid's first %d, then another point than its %v", lookahead, evals, got[:n+1], n, hybrid[n])
		}
	}
}

// preparing is an evaluator that says it prepares points, so that Tune
// asks the strategy for its upcoming points.
type preparing struct{ autotune.EvaluatorFunc }

func (preparing) Prepare(autotune.Point) {}

// With Then ThenModel the opening's first points are those it makes with
// the genetic continuation, and the model's rounds take over after them:
// no point twice, the budget kept, the same search from the same seed.
// Check rejects a continuation it does not know.
func TestOpeningThenModel(t *testing.T) {
	space := testSpace(t)
	const evals, k = 40, 12
	run := func(then string) []string {
		set := strategies.OpeningSettings{Evaluations: k, Neighbours: -1, Share: -1, Then: then}
		opt := strategies.Options{Evaluations: evals, Opening: set}
		if err := opt.Check(strategies.Opening); err != nil {
			t.Fatal(err)
		}
		s, err := strategies.New(strategies.Opening, space, autotune.NewRand(4), opt)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: evals, Lookahead: 4}, space, s, preparing{autotune.EvaluatorFunc(testEval)})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		seen := map[string]bool{}
		for _, e := range rep.History {
			if seen[e.Point.Key()] {
				t.Errorf("then %q: %v evaluated twice", then, e.Point)
			}
			seen[e.Point.Key()] = true
			keys = append(keys, e.Point.Key())
		}
		if rep.Measured != evals {
			t.Errorf("then %q: %d measured, want %d", then, rep.Measured, evals)
		}
		return keys
	}
	model, genetic := run(strategies.ThenModel), run(strategies.ThenGenetic)
	if !slices.Equal(model[:k], genetic[:k]) {
		t.Errorf("the first %d points differ with the model after them:\n%v\n%v", k, model[:k], genetic[:k])
	}
	if slices.Equal(model, genetic) {
		t.Error("the same search with the model as with the genetic algorithm after the opening")
	}
	if again := run(strategies.ThenModel); !slices.Equal(again, model) {
		t.Error("the same seed searched differently")
	}
	if err := (strategies.Options{Opening: strategies.OpeningSettings{Then: strategies.Annealing}}).Check(strategies.Opening); err == nil {
		t.Error("Check accepted annealing as the opening's continuation")
	}
	if err := (strategies.Options{Opening: strategies.OpeningSettings{Then: strategies.ThenModel}}).Check(strategies.Genetic); err == nil {
		t.Error("Check accepted the model's continuation for strategy genetic")
	}
	if err := (strategies.Options{Opening: strategies.OpeningSettings{Then: strategies.ThenGenetic}}).Check(strategies.Random); err != nil {
		t.Errorf("Check refused the default's continuation, named, for strategy random: %v", err)
	}
}

// The model's rounds after the opening are a tenth of the budget whether
// the search is given it (-e) or learns it later (a time budget,
// autotune.Planner); before it knows, 25.
func TestThenModelRounds(t *testing.T) {
	space := testSpace(t)
	for _, c := range []struct{ given, planned, want int }{{300, 0, 30}, {0, 300, 30}, {0, 0, 25}, {20, 0, 5}, {0, 20, 5}} {
		m := costmodel.New(space, autotune.NewRand(1), strategies.ThenModelSettings(c.given))
		m.Plan(c.planned)
		if got := m.Settings(); got.Second != c.want || got.Round != c.want {
			t.Errorf("budget given %d, planned %d: rounds of %d and %d, want %d", c.given, c.planned, got.Second, got.Round, c.want)
		}
	}
}
