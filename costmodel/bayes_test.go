package costmodel

import (
	"context"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// The GP interpolates a smooth function of two inputs from 40 samples, is
// sure at a sample and unsure far from every sample.
func TestGPFits(t *testing.T) {
	r := autotune.NewRand(1)
	f := func(a, b float64) float64 { return (a-0.3)*(a-0.3)*4 + math.Sin(3*b) }
	var x [][]float64
	var y []float64
	for range 40 {
		a, b := r.Float64()*0.5, r.Float64()
		x, y = append(x, []float64{a, b}), append(y, f(a, b))
	}
	gp, err := FitGP(x, y)
	if err != nil {
		t.Fatal(err)
	}
	var sse, sst, mean float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for range 200 {
		a, b := r.Float64()*0.5, r.Float64()
		m, _ := gp.Predict([]float64{a, b}, nil)
		sse += (m - f(a, b)) * (m - f(a, b))
		sst += (f(a, b) - mean) * (f(a, b) - mean)
	}
	if r2 := 1 - sse/sst; r2 < 0.95 {
		t.Errorf("R² on unseen points %.3f, want at least 0.95", r2)
	}
	if m, sd := gp.Predict(x[0], nil); math.Abs(m-y[0]) > 0.05 || sd > 0.1 {
		t.Errorf("at a sample: %.3f ± %.3f, want %.3f ± at most 0.1", m, sd, y[0])
	}
	_, near := gp.Predict([]float64{0.25, 0.5}, nil)
	if _, far := gp.Predict([]float64{3, 3}, nil); far < 5*near {
		t.Errorf("standard deviation far from the samples %.3f, near them %.3f: want far at least 5 times larger", far, near)
	}
	if _, err := FitGP(x[:1], y[:1]); err == nil {
		t.Error("FitGP on one sample: no error")
	}
}

func TestExpectedImprovement(t *testing.T) {
	for _, c := range []struct{ best, mean, sd, want float64 }{
		{1, 0.5, 0, 0.5},
		{1, 2, 0, 0},
		{1, 1, 1, 1 / math.Sqrt(2*math.Pi)},
		{0, 10, 1, 0},
	} {
		if got := expectedImprovement(c.best, c.mean, c.sd); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("expectedImprovement(%v, %v, %v) = %v, want %v", c.best, c.mean, c.sd, got, c.want)
		}
	}
	// More uncertainty, more expected improvement.
	if expectedImprovement(1, 1.5, 0.1) >= expectedImprovement(1, 1.5, 1) {
		t.Error("expected improvement does not grow with the standard deviation")
	}
}

// foundAt returns the evaluation at which s first measured the optimum of
// gridTime's space (budget+1 if it never did).
func foundAt(t *testing.T, s autotune.Strategy, space *autotune.Space, opt float64, budget int) int {
	t.Helper()
	n, at := 0, budget+1
	ev := autotune.EvaluatorFunc(func(ctx context.Context, p autotune.Point) autotune.Result {
		n++
		r := gridTime(ctx, p)
		if r.Fitness() == opt && at > budget {
			at = n
		}
		return r
	})
	if _, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: budget}, space, s, ev); err != nil {
		t.Fatal(err)
	}
	return at
}

// On the 343 points of a smooth space with a failing corner, Bayesian
// optimization finds the optimum in at least 7 of 8 seeds within 40
// evaluations (12% of the space), and its median number of evaluations to
// the optimum is less than half of random search's.
func TestBayesBeatsRandom(t *testing.T) {
	s := gridSpace(t)
	opt := math.Inf(1)
	for i := range s.Size().Int64() {
		opt = math.Min(opt, gridTime(context.Background(), s.At(big.NewInt(i))).Fitness())
	}
	const budget = 40
	var bayes, random []int
	found := 0
	for seed := uint64(1); seed <= 8; seed++ {
		b := NewBayes(s, autotune.NewRand(seed), BayesSettings{})
		at := foundAt(t, b, s, opt, budget)
		if b.Settings().Init != 5 {
			t.Errorf("seed %d: %d initial points for a budget of %d, want 5", seed, b.Settings().Init, budget)
		}
		if at <= budget {
			found++
		}
		bayes = append(bayes, at)
		random = append(random, foundAt(t, autotune.NewRandom(s, autotune.NewRand(seed)), s, opt, s.Len()*1000))
	}
	slices.Sort(bayes)
	slices.Sort(random)
	t.Logf("evaluations to the optimum: bayes %v, random %v", bayes, random)
	if mb, mr := bayes[4], random[4]; found < 7 || 2*mb >= mr {
		t.Errorf("Bayesian optimization found the optimum in %d of 8 seeds, median after %d evaluations (random search %d); want at least 7 and less than half", found, mb, mr)
	}
}

// Seeds come first; Init follows the budget told before the initial points
// were all proposed; a batch's points are distinct and never measured.
func TestBayesPlanSeedsBatch(t *testing.T) {
	s := gridSpace(t)
	seed := s.Repair(autotune.Point{})
	b := NewBayes(s, autotune.NewRand(1), BayesSettings{Seeds: []autotune.Point{seed}})
	if b.Settings().Init != 20 {
		t.Fatalf("Init %d for an unknown budget, want 20", b.Settings().Init)
	}
	first, ok := b.Next()
	if !ok || !first.Equal(seed) {
		t.Fatalf("first point %v, want the seed %v", first, seed)
	}
	b.Tell(first, gridTime(context.Background(), first))
	b.Plan(100) // Init 10: 9 more initial points.
	n := 1
	for b.rounds == 0 {
		p, ok := b.Next()
		if !ok {
			t.Fatal("exhausted")
		}
		b.Tell(p, gridTime(context.Background(), p))
		n++
	}
	// The point proposed after the initial ones is the first of a round.
	if n-1 != 10 {
		t.Errorf("%d initial points for a budget of 100, want 10", n-1)
	}

	b = NewBayes(s, autotune.NewRand(2), BayesSettings{Init: 8, Batch: 4})
	if rep := tuneGrid(t, s, b, 8); rep.Evaluations != 8 {
		t.Fatalf("%d evaluations, want 8", rep.Evaluations)
	}
	p, ok := b.Next()
	if !ok {
		t.Fatal("exhausted")
	}
	batch := append([]autotune.Point{p}, b.Upcoming(10)...)
	if len(batch) != 4 {
		t.Fatalf("a round of %d points, want 4", len(batch))
	}
	for i, p := range batch {
		if _, told := b.seen.Fitness(p); told {
			t.Errorf("batch point %v was measured", p)
		}
		for _, q := range batch[:i] {
			if p.Equal(q) {
				t.Errorf("batch point %v twice", p)
			}
		}
	}
}

// With Local, a round's first points are never-measured neighbours of the
// LocalBest fastest points measured; the others may lie anywhere.
func TestBayesLocal(t *testing.T) {
	s := gridSpace(t)
	b := NewBayes(s, autotune.NewRand(3), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2})
	measureNext(t, b, 8)
	for round := range 4 {
		near := nearFastest(b, s, 2)
		batch := nextRound(t, b, 4)
		for _, q := range batch[:min(3, len(near))] {
			if !near[q.Key()] {
				t.Errorf("round %d: %v is not a new neighbour of the 2 fastest points", round, q)
			}
		}
		for _, q := range batch {
			b.Tell(q, gridTime(context.Background(), q))
		}
	}
}

// measureNext tells b the grid's times of its next n points.
func measureNext(t *testing.T, b *Bayes, n int) {
	t.Helper()
	for range n {
		p, ok := b.Next()
		if !ok {
			t.Fatal("exhausted")
		}
		b.Tell(p, gridTime(context.Background(), p))
	}
}

// nextRound returns b's next round: its next point and those upcoming,
// n in all.
func nextRound(t *testing.T, b *Bayes, n int) []autotune.Point {
	t.Helper()
	p, ok := b.Next()
	if !ok {
		t.Fatal("exhausted")
	}
	batch := append([]autotune.Point{p}, b.Upcoming(10)...)
	if len(batch) != n {
		t.Fatalf("a round of %d points, want %d", len(batch), n)
	}
	return batch
}

// nearFastest returns the keys of the neighbours never told of b's n
// fastest points measured.
func nearFastest(b *Bayes, s *autotune.Space, n int) map[string]bool {
	idx := make([]int, len(b.fit))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(b.fit[i], b.fit[j]) })
	near := map[string]bool{}
	for _, i := range idx[:n] {
		for _, q := range s.Neighbours(b.data[i]) {
			if _, told := b.seen.Fitness(q); !told {
				near[q.Key()] = true
			}
		}
	}
	return near
}

// With GlobalRounds 1, the rounds after the first choose all their points
// among the new neighbours of the 2 fastest points (while there are
// enough); without it, each round's last point is chosen anywhere, and in
// some round it is no such neighbour.
func TestBayesGlobalRounds(t *testing.T) {
	for _, global := range []int{0, 1} {
		s := gridSpace(t)
		b := NewBayes(s, autotune.NewRand(3), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, GlobalRounds: global})
		measureNext(t, b, 8)
		farther := 0 // rounds after the first with a point not local
		for round := range 6 {
			near := nearFastest(b, s, 2)
			batch := nextRound(t, b, 4)
			for k, q := range batch {
				if k < len(near) && !near[q.Key()] {
					if round > 0 && global > 0 {
						t.Errorf("GlobalRounds %d: round %d: %v is not a new neighbour of the 2 fastest points", global, round, q)
					}
					if round > 0 && k == 3 {
						farther++
					}
				}
			}
			for _, q := range batch {
				b.Tell(q, gridTime(context.Background(), q))
			}
		}
		if global == 0 && farther == 0 {
			t.Error("GlobalRounds 0: every round's last point was a new neighbour of the 2 fastest points; the test shows nothing")
		}
	}
}

// With Minima, the local points are the neighbours of the fastest point
// and of the fastest other local minimum of the points measured (a slower
// basin far away), not of the fastest point's slower neighbour; without
// it, of the two fastest points.
func TestBayesMinima(t *testing.T) {
	s := gridSpace(t)
	pt := func(a, b, c int) autotune.Point {
		p, err := s.PointOf(map[string]int{"a": a, "b": b, "c": c})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	best, next, far := pt(2, 2, 2), pt(2, 4, 2), pt(32, 32, 32)
	told := []struct {
		p  autotune.Point
		ms float64
	}{{best, 1}, {next, 1.1}, {far, 2}, {pt(64, 64, 64), 0}}
	for _, minima := range []bool{false, true} {
		b := NewBayes(s, autotune.NewRand(1), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Minima: minima})
		for _, e := range told {
			r := autotune.Result{Outcome: autotune.OK, Ms: e.ms}
			if e.ms == 0 {
				r = autotune.Result{Outcome: autotune.Launch} // a failure is no minimum
			}
			b.Tell(e.p, r)
		}
		local := map[string]bool{}
		points, _, _ := b.neighbourhood(false)
		for _, q := range points {
			local[q.Key()] = true
		}
		for _, c := range []struct {
			of   autotune.Point
			want bool
		}{{best, true}, {next, !minima}, {far, minima}} {
			for _, q := range s.Neighbours(c.of) {
				if q.Key() == best.Key() || q.Key() == next.Key() {
					continue // measured
				}
				switch {
				case c.want && !local[q.Key()]:
					t.Errorf("minima=%v: %v, a neighbour of %v, not among the local points", minima, q, c.of)
				case !c.want && local[q.Key()] && !isNeighbour(s, q, best):
					t.Errorf("minima=%v: %v, a neighbour of %v only, among the local points", minima, q, c.of)
				}
			}
		}
	}
}

func isNeighbour(s *autotune.Space, q, of autotune.Point) bool {
	for _, n := range s.Neighbours(of) {
		if n.Key() == q.Key() {
			return true
		}
	}
	return false
}

// TestBayesAnchored checks that with Anchored the first point of a round
// is an anchored move of a point whose neighbours Local chooses among
// (b's range, up to 64/a, depends on a), the other local points
// neighbours, and that without it the anchored moves are no candidates of
// their own.
func TestBayesAnchored(t *testing.T) {
	s, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: func(autotune.Point) []int { return []int{1, 2, 4, 8} }},
		autotune.Param{Name: "b", Deps: []string{"a"}, Range: func(p autotune.Point) []int {
			var r []int
			for v := 1; v <= 64/p.Get("a"); v *= 2 {
				r = append(r, v)
			}
			return r
		}},
		autotune.Param{Name: "c", Range: func(autotune.Point) []int { return []int{1, 2, 4, 8} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, anchored := range []bool{false, true} {
		b := NewBayes(s, autotune.NewRand(1), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Minima: true, Anchored: anchored})
		// The fastest, its slower neighbour, another minimum, slow points.
		for i, v := range [][]int{{2, 32, 2}, {2, 16, 2}, {8, 2, 1}, {1, 1, 1}, {8, 8, 8}, {1, 64, 8}} {
			p, err := s.FromValues(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: float64(1 + i)})
		}
		_, candidates, _ := b.neighbourhood(false) // the anchored moves among the local candidates
		round := b.acquire()
		if len(round) != 4 {
			t.Fatalf("anchored=%v: a round of %d points, want 4", anchored, len(round))
		}
		moves, near := map[string]bool{}, map[string]bool{}
		for _, v := range [][]int{{2, 32, 2}, {8, 2, 1}} { // the centres
			p, _ := s.FromValues(v)
			for _, q := range s.Anchored(p) {
				moves[q.Key()] = true
			}
			for _, q := range s.Neighbours(p) {
				near[q.Key()] = true
			}
		}
		if anchored != moves[round[0].Key()] {
			t.Errorf("anchored=%v: the round's first point %v is an anchored move: %v", anchored, round[0], moves[round[0].Key()])
		}
		if anchored && candidates == 0 {
			t.Errorf("anchored: no anchored move among the local candidates")
		}
		for _, q := range round[1:3] {
			if !near[q.Key()] && !moves[q.Key()] {
				t.Errorf("anchored=%v: local point %v is neither a neighbour nor an anchored move of the centres", anchored, q)
			}
		}
	}
}

// flagSpace returns the space of TestBayesCover, TestBayesOmitIllegal and
// TestBayesPlateau, two parameters of five powers of two and a flag f, and
// eight points with f=0, which the tests tell in order, each slower than
// the one before.
func flagSpace(t *testing.T) (*autotune.Space, [][]int) {
	t.Helper()
	pow := func(autotune.Point) []int { return []int{1, 2, 4, 8, 16} }
	s, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: pow},
		autotune.Param{Name: "b", Range: pow},
		autotune.Param{Name: "f", Range: func(autotune.Point) []int { return []int{0, 1} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s, [][]int{{4, 4, 0}, {4, 8, 0}, {16, 1, 0}, {1, 1, 0}, {16, 16, 0}, {1, 16, 0}, {2, 4, 0}, {8, 2, 0}}
}

// TestBayesCover checks that with CoverMax the first point of a round is
// a neighbour of a point whose neighbours Local chooses among that gives
// a parameter of at most CoverMax values a value no point told has (the
// flag f, never 1), that there are no such candidates once a point with
// f=1 is told, and none without CoverMax.
func TestBayesCover(t *testing.T) {
	s, told := flagSpace(t)
	for _, cover := range []int{0, 2} {
		b := NewBayes(s, autotune.NewRand(1), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Minima: true, Anchored: true, CoverMax: cover})
		for i, v := range told {
			p, err := s.FromValues(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: float64(1 + i)})
		}
		_, _, candidates := b.neighbourhood(false)
		if (candidates > 0) != (cover > 0) {
			t.Fatalf("CoverMax %d: %d candidates giving f a value never told", cover, candidates)
		}
		if cover == 0 {
			continue
		}
		round := b.acquire()
		if len(round) == 0 {
			t.Fatal("no round")
		}
		near := map[string]bool{}
		for _, v := range [][]int{{4, 4, 0}, {16, 1, 0}} { // the centres: the fastest, and the fastest other minimum
			p, _ := s.FromValues(v)
			for _, q := range s.Neighbours(p) {
				near[q.Key()] = true
			}
		}
		if f := round[0].Get("f"); f != 1 || !near[round[0].Key()] {
			t.Errorf("CoverMax %d: the round's first point %v, want a neighbour of a centre with f=1", cover, round[0])
		}
		// Told a point with f=1, f has no untried value left.
		p, _ := s.FromValues([]int{1, 2, 1})
		b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: 20})
		if _, _, candidates := b.neighbourhood(false); candidates != 0 {
			t.Errorf("CoverMax %d: %d candidates after f=1 was told, want none", cover, candidates)
		}
	}
}

// TestBayesOmitIllegal: with OmitIllegal the points told as Illegal are
// not in the model's training (without it they are, at the slowest time
// told), and in neither case is one proposed again.
func TestBayesOmitIllegal(t *testing.T) {
	s, ok := flagSpace(t)
	illegal := [][]int{{16, 4, 1}, {16, 8, 1}, {16, 16, 1}, {8, 16, 1}}
	for _, omit := range []bool{false, true} {
		b := NewBayes(s, autotune.NewRand(1), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Minima: true, Anchored: true, OmitIllegal: omit})
		told := map[string]bool{}
		for i, v := range ok {
			p, _ := s.FromValues(v)
			b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: float64(1 + i)})
			told[p.Key()] = true
		}
		for _, v := range illegal {
			p, _ := s.FromValues(v)
			b.Tell(p, autotune.Result{Outcome: autotune.Illegal})
			told[p.Key()] = true
		}
		pts, y := b.training()
		want := len(ok) + len(illegal)
		if omit {
			want = len(ok)
		}
		if len(pts) != want {
			t.Errorf("OmitIllegal %v: %d points trained on, want %d", omit, len(pts), want)
		}
		if !omit && slices.Max(y) != math.Log(float64(len(ok))) {
			t.Errorf("OmitIllegal false: the slowest log time trained on %v, want the slowest told, log(%d)", slices.Max(y), len(ok))
		}
		// The rest of the space, proposed: none of the points told again.
		for range 40 {
			p, more := b.Next()
			if !more {
				break
			}
			if told[p.Key()] {
				t.Fatalf("OmitIllegal %v: %v proposed again", omit, p)
			}
			told[p.Key()] = true
			b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: 10})
		}
	}
}

// TestBayesPlateau: when the points told before the first model lie within
// Plateau of each other, the round's first points are the neighbours of
// the plateau's points that flip a flag, the fastest point's first; not
// on a plateau (one point twice as fast), or without Plateau, the round
// is chosen as before.
func TestBayesPlateau(t *testing.T) {
	s, told := flagSpace(t)
	for _, c := range []struct {
		plateau float64
		fastest float64 // the first point's time, the others 1.01 to 1.07
		want    bool    // the round's first point flips f at the fastest
	}{{0.1, 1, true}, {0, 1, false}, {0.1, 0.5, false}} {
		b := NewBayes(s, autotune.NewRand(1), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Minima: true, Anchored: true, Plateau: c.plateau})
		for i, v := range told {
			p, _ := s.FromValues(v)
			ms := 1 + float64(i)/100
			if i == 0 {
				ms = c.fastest
			}
			b.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: ms})
		}
		round := b.acquire()
		if len(round) == 0 {
			t.Fatal("no round")
		}
		got := round[0].Get("a") == 4 && round[0].Get("b") == 4 && round[0].Get("f") == 1
		if got != c.want {
			t.Errorf("Plateau %v, fastest %v: the round's first point %v; want the fastest with f flipped: %v", c.plateau, c.fastest, round[0], c.want)
		}
	}
}

// lowestMean is the loop over the points calling Predict, keeping the
// first of the lowest mean, with or without the correlations cached.
func TestLowestMean(t *testing.T) {
	r := autotune.NewRand(2)
	f := func(a, b float64) float64 { return (a-0.6)*(a-0.6)*4 + math.Cos(4*b) }
	var x [][]float64
	var y []float64
	for range 30 {
		a, b := r.Float64(), r.Float64()
		x, y = append(x, []float64{a, b}), append(y, f(a, b))
	}
	gp, err := FitGP(x, y)
	if err != nil {
		t.Fatal(err)
	}
	pool := make([][]float64, 300)
	taken := make([]bool, len(pool))
	for i := range pool {
		pool[i] = []float64{r.Float64(), r.Float64()}
		taken[i] = i%7 == 0
	}
	want, wantMean := -1, math.Inf(1)
	for i, p := range pool {
		if m, _ := gp.Predict(p, nil); !taken[i] && m < wantMean {
			want, wantMean = i, m
		}
	}
	// The lowest mean of all, taken out, is not chosen.
	all, _ := gp.lowestMean(pool, make([]bool, len(pool)), math.Inf(1), nil)
	if !taken[all] {
		taken[all] = true
		want, wantMean = -1, math.Inf(1)
		for i, p := range pool {
			if m, _ := gp.Predict(p, nil); !taken[i] && m < wantMean {
				want, wantMean = i, m
			}
		}
	}
	cache := newCorrCache(len(pool))
	for _, c := range []*corrCache{nil, cache, cache} { // the cache empty, then filled
		got, mean := gp.lowestMean(pool, taken, math.Inf(1), c)
		if got != want || math.Abs(mean-wantMean) > 1e-12 {
			t.Errorf("lowestMean (cache %v): %d (%.6f), want %d (%.6f)", c != nil, got, mean, want, wantMean)
		}
	}
	if got, _ := gp.lowestMean(pool, slices.Repeat([]bool{true}, len(pool)), math.Inf(1), nil); got != -1 {
		t.Errorf("every point taken: %d, want -1", got)
	}
}

// With Exploit, the rounds from the Exploit-th choose some of their points
// anywhere as the model's best guess, none before; without it, none.
func TestBayesExploit(t *testing.T) {
	for _, exploit := range []int{0, 1, 3} {
		s := gridSpace(t)
		b := NewBayes(s, autotune.NewRand(3), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Exploit: exploit})
		measureNext(t, b, 8)
		for round := 1; round <= 6; round++ {
			before := b.guessed
			batch := nextRound(t, b, 4)
			if (exploit == 0 || round < exploit) && b.guessed > before {
				t.Errorf("Exploit %d: round %d chose %d points as the model's guess", exploit, round, b.guessed-before)
			}
			for _, q := range batch {
				b.Tell(q, gridTime(context.Background(), q))
			}
		}
		if exploit > 0 && b.guessed == 0 {
			t.Errorf("Exploit %d: no point chosen as the model's guess in 6 rounds; the test shows nothing", exploit)
		}
	}
}

// With Exploit, the points Likely guesses for the next round begin with
// the point of the lowest predicted time under the current round's model
// while it is below the fastest measured (the point the next round's
// guess would be now); from the round before the Exploit-th on.
func TestBayesLikelyExploit(t *testing.T) {
	s := gridSpace(t)
	b := NewBayes(s, autotune.NewRand(3), BayesSettings{Init: 8, Batch: 4, Local: 3, LocalBest: 2, Exploit: 2})
	measureNext(t, b, 8)
	checked := 0
	for round := 1; round <= 6; round++ {
		batch := nextRound(t, b, 4)
		g := b.guess
		if g == nil {
			t.Fatalf("round %d: no guess", round)
		}
		if g.exploit != (round+1 >= 2) {
			t.Errorf("round %d: exploit %v, want %v", round, g.exploit, round+1 >= 2)
		}
		i, _ := g.gp.lowestMean(g.px, g.taken, g.fastest, nil)
		likely := b.Likely(4)
		if g.exploit && i >= 0 {
			checked++
			if len(likely) == 0 || likely[0].Key() != g.pool[i].Key() {
				t.Errorf("round %d: Likely begins with %v, want the model's guess %v", round, likely, g.pool[i])
			}
		}
		for _, q := range batch {
			b.Tell(q, gridTime(context.Background(), q))
		}
	}
	if checked == 0 {
		t.Error("no round's model predicted a point faster than the fastest measured; the test shows nothing")
	}
}
