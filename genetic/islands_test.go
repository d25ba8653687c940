package genetic_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/optimizer"
)

// tell measures every point Next proposes with f until n were measured.
func tell(t *testing.T, ga *genetic.GA, n int, f func(autotune.Point) autotune.Result) []autotune.Point {
	t.Helper()
	var out []autotune.Point
	for range n {
		p, ok := ga.Next()
		if !ok {
			t.Fatalf("search ended after %d points", len(out))
		}
		ga.Tell(p, f(p))
		out = append(out, p)
	}
	return out
}

func modelOf(p autotune.Point) autotune.Result { return model(context.Background(), p) }

func keys(ps []autotune.Point) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Key())
	}
	return out
}

// TestIslandsTakeTurns checks that Upcoming offers the second island's
// first generation behind the first island's, and that an island whose
// individuals were all measured breeds at once, in Upcoming, its new
// generation offered behind the other island's, which is measured next
// (without local points, which go before both: TestLocalFirst).
func TestIslandsTakeTurns(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	ga := genetic.New(space, autotune.NewRand(3), genetic.Settings{Local: -1})
	up := ga.Upcoming(100)
	first, second := genetic.Population(ga, 0), genetic.Population(ga, 1)
	if len(first) != 20 || len(second) != 20 || ga.Generation() != 2 {
		t.Fatalf("first generations of %d and %d individuals (generation %d), want 20 each", len(first), len(second), ga.Generation())
	}
	if !slices.Equal(keys(up), append(keys(first), keys(second)...)) {
		t.Fatalf("upcoming %v,\nwant the first island's generation, then the second's", keys(up))
	}
	measured := tell(t, ga, 19, modelOf)
	if !slices.Equal(keys(measured), keys(first[:19])) {
		t.Errorf("Next did not propose the first island's individuals first")
	}
	last, _ := ga.Next()
	// The first island's last individual is being measured: its next
	// generation cannot be bred yet, the second island's is upcoming.
	if up := ga.Upcoming(100); !slices.Equal(keys(up), keys(second)) || ga.Generation() != 2 {
		t.Errorf("while the first island's last individual is measured: generation %d, upcoming %v, want the second island's", ga.Generation(), keys(up))
	}
	ga.Tell(last, modelOf(last))
	up = ga.Upcoming(100)
	bred := genetic.Population(ga, 0)
	if ga.Generation() != 3 || slices.Equal(keys(bred), keys(first)) {
		t.Fatalf("the first island did not breed when its generation was measured")
	}
	if !slices.Equal(keys(genetic.Population(ga, 1)), keys(second)) {
		t.Errorf("the second island bred with the first")
	}
	if !slices.Equal(keys(up[:20]), keys(second)) || len(up) == 20 || !slices.ContainsFunc(bred, up[20].Equal) {
		t.Errorf("upcoming %v,\nwant the second island's generation, then the first's new one", keys(up))
	}
	// The second island is measured next, then the first's new
	// generation; the second breeds alone when it was measured.
	measured = tell(t, ga, 20, modelOf)
	if !slices.Equal(keys(measured), keys(second)) {
		t.Errorf("Next did not propose the second island's generation after the first's")
	}
	if ga.Upcoming(1); ga.Generation() != 4 || !slices.Equal(keys(genetic.Population(ga, 0)), keys(bred)) {
		t.Errorf("generation %d after the second island was measured, want 4 (the second island bred, the first not)", ga.Generation())
	}
	p, _ := ga.Next()
	if !slices.ContainsFunc(bred, p.Equal) {
		t.Errorf("after the second island, Next proposed %v, not the first island's new generation", p)
	}
}

// TestMigration checks that the best point measured on one island joins
// the other island's next generation.
func TestMigration(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	ga := genetic.New(space, autotune.NewRand(5), genetic.Settings{Population: 6, Mutation: -1, Local: -1})
	// The first island's first individual is the best; every other point
	// fails, so the second island has no elite of its own, and without
	// mutation its children are crossovers of its own individuals.
	var best autotune.Point
	n := 0
	tell(t, ga, 12, func(p autotune.Point) autotune.Result {
		if n++; n == 1 {
			best = p
			return autotune.Result{Outcome: autotune.OK, Ms: 1}
		}
		return autotune.Result{Outcome: autotune.Wrong}
	})
	ga.Upcoming(1)
	if ga.Generation() != 4 {
		t.Fatalf("generation %d after each island's first generation was measured, want 4", ga.Generation())
	}
	if second := genetic.Population(ga, 1); !slices.ContainsFunc(second, best.Equal) {
		t.Errorf("the first island's best %v did not join the second island's elites: %v", best, keys(second))
	}
	if !slices.ContainsFunc(genetic.Population(ga, 0), best.Equal) {
		t.Errorf("the first island lost its elite")
	}
}

func TestIslandsReproducible(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	for _, set := range []genetic.Settings{{Islands: 1}, {Islands: 3, Population: 8}} {
		a, b, c := run(t, space, 7, set, 200), run(t, space, 7, set, 200), run(t, space, 8, set, 200)
		if history(a) != history(b) {
			t.Errorf("%+v: same seed, different histories", set)
		}
		if history(a) == history(c) {
			t.Errorf("%+v: different seeds, same history", set)
		}
	}
	one, two := run(t, space, 7, genetic.Settings{Islands: 1}, 200), run(t, space, 7, genetic.Settings{}, 200)
	if history(one) == history(two) {
		t.Errorf("one island and two made the same search")
	}
}

// builder is a fake evaluator whose variants build in the background,
// build ms each, at most par at a time, and are measured in measure ms;
// Evaluate waits for a variant's build and adds up the waits.
type builder struct {
	build, measure time.Duration
	sem            chan struct{}
	mu             sync.Mutex
	built          map[string]chan struct{}
	wait           time.Duration
}

func newBuilder(build, measure time.Duration, par int) *builder {
	return &builder{build: build, measure: measure, sem: make(chan struct{}, par), built: map[string]chan struct{}{}}
}

// Prepare starts p's build.
func (b *builder) Prepare(p autotune.Point) { b.start(p) }

func (b *builder) start(p autotune.Point) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.built[p.Key()]; ok {
		return c
	}
	c := make(chan struct{})
	b.built[p.Key()] = c
	go func() {
		b.sem <- struct{}{}
		time.Sleep(b.build)
		<-b.sem
		close(c)
	}()
	return c
}

// Ready reports whether p's build ended.
func (b *builder) Ready(p autotune.Point) bool {
	b.mu.Lock()
	c, ok := b.built[p.Key()]
	b.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Evaluate waits for p's build, then measures it (the made-up model).
func (b *builder) Evaluate(ctx context.Context, p autotune.Point) autotune.Result {
	start := time.Now()
	<-b.start(p)
	b.wait += time.Since(start)
	time.Sleep(b.measure)
	return model(ctx, p)
}

// TestIslandsKeepMeasuring simulates a search whose builds (30 ms, 15 at
// a time, as many ahead as the tuner's lookahead) take ten times as long
// as a measurement (3 ms): with one island the measuring side waits for
// the first build of each generation, which is bred only when the last
// result of the one before is known; with two, one island's next
// generation is built while the other's is measured.
func TestIslandsKeepMeasuring(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s of simulated builds")
	}
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	waits := map[int]time.Duration{}
	for _, islands := range []int{1, 2} {
		ev := newBuilder(30*time.Millisecond, 3*time.Millisecond, 15)
		set := autotune.Settings{MaxEvals: 200, Lookahead: 30, ReadyFirst: true, Seed: 1}
		rep, err := autotune.Tune(context.Background(), set, space, genetic.New(space, autotune.NewRand(1), genetic.Settings{Islands: islands}), ev)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counted(200) != 200 {
			t.Fatalf("%d islands: %d evaluations", islands, rep.Evaluations)
		}
		waits[islands] = ev.wait
		t.Logf("%d island(s): %d evaluations in %v, waiting for builds %v", islands, rep.Evaluations, rep.Elapsed.Round(time.Millisecond), ev.wait.Round(time.Millisecond))
	}
	if waits[2] >= waits[1]/2 {
		t.Errorf("waiting for builds: %v with two islands, %v with one; want less than half", waits[2], waits[1])
	}
}

// TestMeasuredFirstGeneration: seeds told before the search starts (as
// when another strategy opened it) make first generations with nothing to
// measure; the islands breed from them at once instead of ending the
// search, and never propose a point told.
func TestMeasuredFirstGeneration(t *testing.T) {
	space := table2(t, optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}})
	sampler := autotune.NewRandom(space, autotune.NewRand(9))
	var seeds []autotune.Point
	for len(seeds) < 30 {
		p, ok := sampler.Next()
		if !ok {
			t.Fatal("space too small")
		}
		seeds = append(seeds, p)
	}
	ga := genetic.New(space, autotune.NewRand(1), genetic.Settings{Seeds: seeds})
	for _, p := range seeds {
		ga.Tell(p, modelOf(p))
	}
	for _, p := range tell(t, ga, 40, modelOf) {
		if slices.ContainsFunc(seeds, p.Equal) {
			t.Fatalf("%v proposed, told before the search", p)
		}
	}
	if pop := genetic.Population(ga, 0); len(pop) == 0 {
		t.Errorf("no first island")
	}
}
