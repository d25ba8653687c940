package genetic_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/optimizer"
)

func table2(t testing.TB, spec optimizer.Table2Spec) *autotune.Space {
	t.Helper()
	s, _, err := optimizer.Table2(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// model is a made-up cost over Table 2 points of a 2D kernel with one
// loop: best near work-groups of 128, 4 points per work-item, 32-wide
// tiles, uf 4, local memory; lmem with too large a footprint is illegal.
func model(_ context.Context, p autotune.Point) autotune.Result {
	l2 := func(v int) float64 { return math.Log2(float64(max(v, 1))) }
	wg := p.Get("lszx") * p.Get("lszy")
	bs := p.Get("bszx") * p.Get("bszy")
	perItem := (1024 / p.Get("bszx") / p.Get("szx")) * (1024 / p.Get("bszy") / p.Get("szy"))
	tw := p.Get("tw0")
	if p.Get("lmem") == 1 && (tw == 0 || p.Get("lszx")*p.Get("bszx")*tw*8 > 48<<10) {
		return autotune.Result{Outcome: autotune.Illegal}
	}
	ms := 10.0
	ms *= 1 + 0.3*math.Abs(l2(wg)-7)
	ms *= 1 + 0.2*math.Abs(l2(bs)-2)
	ms *= 1 + 0.1*math.Abs(l2(perItem)-1)
	if tw == 0 {
		ms *= 1.5
	} else {
		ms *= 1 + 0.1*math.Abs(l2(tw)-5)
	}
	ms *= 1 + 0.1*math.Abs(l2(p.Get("uf"))-2)
	if p.Get("lmem") == 1 {
		ms *= 0.6
	}
	if p.Get("fullunroll") == 1 {
		ms *= 0.9
	}
	return autotune.Result{Outcome: autotune.OK, Ms: ms}
}

// simple is a cost for any space: the sum of the values, with points
// whose first value is 2 failing.
func simple(_ context.Context, p autotune.Point) autotune.Result {
	if p.Value(0) == 2 {
		return autotune.Result{Outcome: autotune.Compile}
	}
	sum := 0
	for _, v := range p.Values() {
		sum += v
	}
	return autotune.Result{Outcome: autotune.OK, Ms: float64(sum)}
}

func run(t testing.TB, space *autotune.Space, seed uint64, set genetic.Settings, max int) *autotune.Report {
	t.Helper()
	return runWith(t, space, seed, set, max, model)
}

func runWith(t testing.TB, space *autotune.Space, seed uint64, set genetic.Settings, max int, ev autotune.EvaluatorFunc) *autotune.Report {
	t.Helper()
	rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: max, Seed: seed}, space, genetic.New(space, autotune.NewRand(seed), set), ev)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func history(rep *autotune.Report) string {
	var b strings.Builder
	for _, e := range rep.History {
		b.WriteString(e.Point.Key())
		b.WriteString(e.Result.Outcome.String())
		b.WriteByte(';')
	}
	return b.String()
}

// TestEveryPointOnce runs the genetic search on a small space to the end:
// it must propose every point of the space exactly once (duplicates are
// never re-measured) and each proposal must be in the space.
func TestEveryPointOnce(t *testing.T) {
	for _, spec := range []optimizer.Table2Spec{
		{Domain: []int{8}, Loops: []int{8}},
		{Domain: []int{12, 3}},
	} {
		space := table2(t, spec)
		n := int(space.Size().Int64())
		for _, set := range []genetic.Settings{{}, {Islands: 1}, {Population: 5, Mutation: -1}, {Population: 50}, {Islands: 3, Population: 7}} {
			rep := runWith(t, space, 1, set, 0, simple)
			seen := map[string]bool{}
			for _, e := range rep.History {
				if seen[e.Point.Key()] {
					t.Fatalf("%+v %+v: %v measured twice", spec, set, e.Point)
				}
				if !space.Contains(e.Point) {
					t.Fatalf("%+v: %v not in the space", spec, e.Point)
				}
				seen[e.Point.Key()] = true
			}
			if rep.Evaluations != n || rep.Stopped != autotune.StopExhausted {
				t.Errorf("%+v %+v: %d evaluations of %d points, stopped %v", spec, set, rep.Evaluations, n, rep.Stopped)
			}
		}
	}
}

func TestReproducible(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	a, b, c := run(t, space, 7, genetic.Settings{}, 300), run(t, space, 7, genetic.Settings{}, 300), run(t, space, 8, genetic.Settings{}, 300)
	if history(a) != history(b) {
		t.Errorf("same seed, different histories")
	}
	if history(a) == history(c) {
		t.Errorf("different seeds, same history")
	}
	for _, e := range a.History {
		if !space.Contains(e.Point) {
			t.Fatalf("%v not in the space", e.Point)
		}
	}
	if !a.Found || math.IsInf(a.BestMs, 0) || a.Failures.Illegal == 0 {
		t.Errorf("best %v ms, failures %+v", a.BestMs, a.Failures)
	}
}

func TestSeeds(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	base, err := space.PointOf(map[string]int{"szx": 1024, "szy": 1024, "lszx": 64, "lszy": 1, "bszx": 1, "bszy": 1})
	if err != nil {
		t.Fatal(err)
	}
	// uf=0 is outside the space: Repair makes it 1.
	ga := genetic.New(space, autotune.NewRand(1), genetic.Settings{Seeds: []autotune.Point{base, base}, Local: -1})
	p, ok := ga.Next()
	if !ok || p.Key() != space.Repair(base).Key() || p.Get("uf") != 1 || ga.Generation() != 2 {
		t.Errorf("first proposal %v (generation %d), want the repaired seed (both islands' first generations)", p, ga.Generation())
	}
	ga.Tell(p, autotune.Result{Outcome: autotune.OK, Ms: 1})
	for range 19 {
		q, _ := ga.Next()
		if q.Equal(p) {
			t.Errorf("seed proposed twice")
		}
		ga.Tell(q, autotune.Result{Outcome: autotune.Wrong})
	}
	// The first island was measured: the next proposal is the second
	// island's, and the first island's second generation is bred.
	q, ok := ga.Next()
	if !ok || ga.Generation() != 3 || slices.ContainsFunc(genetic.Population(ga, 0), q.Equal) || !slices.ContainsFunc(genetic.Population(ga, 1), q.Equal) {
		t.Errorf("after the first island's generation: generation %d, proposal %v not the second island's", ga.Generation(), q)
	}
	// The working seed is the only elite, kept in the first island's
	// second generation.
	if !slices.ContainsFunc(genetic.Population(ga, 0), p.Equal) {
		t.Errorf("elite lost")
	}
}

// TestBeatsRandom compares the genetic search with random search, the
// baseline, on the made-up cost model over 12 seeds of 300 evaluations.
func TestBeatsRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	var ga, rnd []float64
	for seed := uint64(1); seed <= 12; seed++ {
		ga = append(ga, run(t, space, seed, genetic.Settings{}, 300).BestMs)
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 300}, space, autotune.NewRandom(space, autotune.NewRand(seed)), autotune.EvaluatorFunc(model))
		if err != nil {
			t.Fatal(err)
		}
		rnd = append(rnd, rep.BestMs)
	}
	slices.Sort(ga)
	slices.Sort(rnd)
	t.Logf("best ms over 12 seeds, sorted:\ngenetic %.3f\nrandom  %.3f", ga, rnd)
	if ga[len(ga)/2] > rnd[len(rnd)/2] {
		t.Errorf("median best: genetic %.3f, random %.3f", ga[len(ga)/2], rnd[len(rnd)/2])
	}
}

// TestNeighbours: the first island's first generation holds, after the
// seeds, Population/2 neighbours of the seeds after the first (one
// parameter moved to the next value of its range, repaired), the second
// island's none; Neighbours < 0 turns them off.
func TestNeighbours(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	var seeds []autotune.Point
	for _, m := range []map[string]int{
		{"szx": 1024, "szy": 1024, "lszx": 64, "lszy": 1, "bszx": 1, "bszy": 1},
		{"bszx": 4, "bszy": 4, "lszx": 16, "lszy": 16, "szx": 256, "szy": 256, "fullunroll": 1, "interleave": 1, "tw0": 32, "uf": 4, "lmem": 1},
		{"bszx": 8, "bszy": 8, "lszx": 16, "lszy": 16, "szx": 128, "szy": 128, "fullunroll": 1, "interleave": 1, "tw0": 16, "uf": 4, "lmem": 1},
	} {
		p, err := space.PointOf(m)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, space.Repair(p))
	}
	neighbour := func(p autotune.Point) bool {
		for _, s := range seeds[1:] {
			for k := range s.Len() {
				r := space.Range(k, s)
				i := slices.Index(r, s.Value(k))
				for _, j := range []int{i - 1, i + 1} {
					if i >= 0 && j >= 0 && j < len(r) && space.Repair(s.With(k, r[j])).Equal(p) {
						return true
					}
				}
			}
		}
		return false
	}
	count := func(pop []autotune.Point) int {
		n := 0
		for _, p := range pop {
			if !slices.ContainsFunc(seeds, p.Equal) && neighbour(p) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		set         genetic.Settings
		first, next int // neighbours in the first and second island's first generations
	}{
		{genetic.Settings{Seeds: seeds}, 10, 0},
		{genetic.Settings{Seeds: seeds, Neighbours: 4}, 4, 0},
		{genetic.Settings{Seeds: seeds, Neighbours: -1}, 0, 0},
	} {
		ga := genetic.New(space, autotune.NewRand(1), c.set)
		if _, ok := ga.Next(); !ok {
			t.Fatal("no proposal")
		}
		first, next := genetic.Population(ga, 0), genetic.Population(ga, 1)
		if !slices.EqualFunc(first[:3], seeds, autotune.Point.Equal) {
			t.Errorf("Neighbours %d: first generation starts %v, want the seeds", c.set.Neighbours, first[:3])
		}
		if got, gotNext := count(first), count(next); got != c.first || gotNext != c.next || len(first) != 20 {
			t.Errorf("Neighbours %d: %d and %d neighbours in the islands' first generations of %d, want %d and %d", c.set.Neighbours, got, gotNext, len(first), c.first, c.next)
		}
	}
}
