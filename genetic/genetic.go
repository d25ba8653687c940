// Package genetic is the paper's genetic-algorithm search strategy for
// package autotune: populations of points evolved by tournament
// selection, uniform crossover, per-gene mutation and elitism, with the
// fitness of a point being its measured time (lower is better; a failed
// point has fitness +Inf and never wins a tournament against a working
// one).
//
// The search keeps Settings.Islands populations, islands, each evolving
// by itself, whose generations take turns: while one island's generation
// is measured, the next generation of the island measured before it is
// bred and offered as upcoming points (autotune.Lookahead), so that an
// evaluator that builds ahead (autotune.Preparer) builds it meanwhile. A
// single population would leave the device waiting at every generation's
// end for the first build of the next, which cannot be bred before the
// last result of its parents is known. The islands share what they
// measured: a point is measured at most once over all of them, and when
// an island breeds, the best point measured on any island joins its
// elites (migration). The first island's first generation holds, after
// the seeds, neighbours of them (Settings.Neighbours: a seed with one
// parameter moved to the next value of its range): a local start around
// the shapes the caller expects to be good, while the other islands start
// from random points.
//
// The search is memetic: each generation after an island's first holds,
// beside its elites and children, Settings.Local local points, never
// measured, chosen among candidates: the neighbours (one parameter moved
// to an adjacent value of its range) of the Settings.LocalBest fastest
// points measured on any island, and Settings.LocalRandom random points.
// They are those Settings.Rank ranks first, given every measurement so
// far; the strategies registry's "genetic" ranks them by a Gaussian
// process's predicted time (costmodel.RankLocal) among the neighbours and
// 50 random points. Without Rank (or when it ranks none, as before it has
// 3 successes) they are those a cheap surrogate predicts fastest
// (AdditiveRank): an additive model of log time, log t = m + sum_k
// e_k(v_k): each parameter k has an effect e_k(v) per value v, fitted by a
// few rounds of backfitting (each effect the mean, over the points with
// that value, of the log time less the mean and the other parameters'
// effects, centred), a value never measured having the parameter's mean
// effect, 0, and a failure counting as twice the slowest time measured.
// The local points are proposed before the islands' other points, but
// after every point that
// Upcoming could see before they were bred (an evaluator may be building
// them; so the order of the search does not depend on how far ahead the
// caller looked): they are bred with the generation, so the lookahead
// offers them as soon as it is bred, and they are the island's
// individuals for its next breeding.
//
// Children are brought back into the search space with Space.Repair, so
// every proposal satisfies the space's constraints. A point is measured at
// most once: results are cached by Point.Key, and a child measured before,
// or already in its generation, is replaced by a random point never
// measured.
package genetic

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

var _ autotune.Strategy = (*GA)(nil)

// Settings controls the genetic algorithm. The zero value gives the
// defaults below.
type Settings struct {
	// Population is the number of individuals per generation of each
	// island. Default 20.
	Population int
	// Islands is the number of populations that evolve side by side,
	// their generations measured in turn (see the package doc). Each
	// island's first generation holds the seeds (measured once, as the
	// first island's), the rest of it drawn at random. When an island breeds,
	// the best point measured on any island joins its elites, if it is
	// not one of them and the population leaves room for a child beside
	// the elites. 1 is the paper's single population. Default 2.
	Islands int
	// Tournament is the number of individuals drawn (with replacement) to
	// select a parent; the fittest of them wins. Default 3.
	Tournament int
	// Crossover is the probability that a child is the uniform crossover
	// of two parents (each gene from either with equal probability) rather
	// than a copy of the first. Default 0.9; negative for none.
	Crossover float64
	// Mutation is the per-gene probability that a child's gene is redrawn
	// from its range (given the genes before it). Default 0.1; negative
	// for none.
	Mutation float64
	// Elite is the number of the best working individuals carried over
	// unchanged to the next generation. Default 2; negative for none.
	Elite int
	// Seeds are individuals of every island's first generation (for
	// example the baseline setting), repaired into the space; the rest of
	// it is drawn at random. Default none.
	Seeds []autotune.Point
	// Neighbours is the number of individuals of the first island's first
	// generation, after the seeds, that are neighbours of the seeds: a
	// seed with one parameter moved to an adjacent value of its range,
	// the seeds after the first (the single-point setting, when it is
	// given first) taken in turn. Default Population/2 with two or more
	// seeds, else 0; negative for none.
	Neighbours int
	// Local is the number of local points that each generation after an
	// island's first holds besides its Population individuals (elites and
	// children): candidates never measured, the neighbours (one parameter
	// moved to an adjacent value of its range, autotune.Space.Neighbours)
	// of the LocalBest fastest points measured on any island and
	// LocalRandom random points, those Rank ranks first given every
	// measurement so far (see the package doc). They are proposed before
	// the islands' other points (after every point Upcoming could see).
	// Fewer when the candidates run out. Default 10; negative for none.
	Local int
	// LocalBest is the number of the fastest points measured whose
	// neighbours are the local points' candidates. Default 3.
	LocalBest int
	// LocalRandom is the number of random points never measured added to
	// the local points' candidates, drawn anew each generation. Default
	// 0: none (the strategies registry's "genetic" makes it 50 when it
	// gives Rank).
	LocalRandom int
	// Rank ranks the local points' candidates: given the points measured
	// so far, in the order they were told, and their times (+Inf for a
	// failure), it returns the indices of up to n of cand, best first. It
	// is called once a generation, from Next or Upcoming. An empty answer
	// falls back on AdditiveRank. Default nil: AdditiveRank (the
	// strategies registry's "genetic" gives costmodel.RankLocal).
	Rank func(measured []autotune.Point, fit []float64, cand []autotune.Point, n int) []int
}

func (s Settings) withDefaults() Settings {
	if s.Population <= 0 {
		s.Population = 20
	}
	if s.Islands <= 0 {
		s.Islands = 2
	}
	if s.Tournament <= 0 {
		s.Tournament = 3
	}
	if s.Neighbours == 0 && len(s.Seeds) >= 2 {
		s.Neighbours = s.Population / 2
	}

	if s.Crossover == 0 {
		s.Crossover = 0.9
	}
	if s.Mutation == 0 {
		s.Mutation = 0.1
	}
	switch {
	case s.Elite == 0:
		s.Elite = 2
	case s.Elite < 0:
		s.Elite = 0
	}
	s.Elite = min(s.Elite, s.Population-1)
	switch {
	case s.Local == 0:
		s.Local = 10
	case s.Local < 0:
		s.Local = 0
	}
	if s.LocalBest <= 0 {
		s.LocalBest = 3
	}
	return s
}

// GA is the genetic-algorithm strategy. Make one with New.
type GA struct {
	space   *autotune.Space
	r       *rand.Rand
	set     Settings
	sampler *autotune.Random // distinct random points: first generations, duplicate children's replacements

	islands  []*island
	queue    []*island          // the islands in the order their generations were made: Next proposes from the first
	fitness  map[string]float64 // measured points, on any island: time, +Inf for failures
	measured []measurement      // the same, in the order they were told
	front    []autotune.Point   // local points, proposed before the islands' other points
	promised []autotune.Point   // the points the last Upcoming could see, proposed first, in order
	asked    map[string]bool    // points proposed whose results were not told yet
	best     autotune.Point     // the fittest working point measured, if hasBest
	bestFit  float64
	hasBest  bool
	gen      int // generations made, over all islands
	started  bool
	done     bool
}

// island is one population of the search.
type island struct {
	pop     []autotune.Point // current generation
	pending []autotune.Point // its points not yet proposed, in order
	stalled bool             // its last breeding left nothing to measure
}

// New returns a genetic search of space drawing from r.
func New(space *autotune.Space, r *rand.Rand, set Settings) *GA {
	return &GA{
		space:   space,
		r:       r,
		set:     set.withDefaults(),
		sampler: autotune.NewRandom(space, r),
		fitness: map[string]float64{},
		asked:   map[string]bool{},
	}
}

// Name returns "genetic".
func (*GA) Name() string { return "genetic" }

// Generation returns the number of generations made so far, over all
// islands, each island's first included (0 before the first proposal).
func (g *GA) Generation() int { return g.gen }

// Next returns the next individual never measured, breeding the next
// generation of every island whose individuals were all measured: the
// points the last Upcoming could see, in order, then the local points not
// yet proposed, then those of the island whose generation was made first
// among those with one left. ok is false once every point of the space
// was measured.
func (g *GA) Next() (autotune.Point, bool) {
	g.start()
	for !g.done {
		g.breedMeasured()
		for _, q := range []*[]autotune.Point{&g.promised, &g.front} {
			for len(*q) > 0 {
				p := (*q)[0]
				*q = (*q)[1:]
				if g.open(p.Key()) {
					g.Take(p)
					return p, true
				}
			}
		}
		for _, is := range g.queue {
			for len(is.pending) > 0 {
				p := is.pending[0]
				is.pending = is.pending[1:]
				if g.open(p.Key()) {
					g.Take(p)
					return p, true
				}
			}
		}
		// Nothing left to propose: an island still waiting for results
		// (Next called before Tell) breeds with them counted as
		// failures; with none, the space was measured.
		bred := false
		for _, is := range slices.Clone(g.queue) {
			if !is.stalled {
				g.breed(is)
				bred = true
			}
		}
		if !bred {
			g.done = true
		}
	}
	return autotune.Point{}, false
}

// Upcoming returns up to n individuals never measured that Next will
// propose next, without consuming them, after breeding the next
// generation of every island whose individuals were all measured (so
// that an evaluator builds it while the other islands are measured): the
// points the last Upcoming could see, then the local points, then the
// individuals of the island whose generation was made first, then the
// other islands'. Local points bred after a call come after every point
// it could see (whatever n), which Next proposes first.
func (g *GA) Upcoming(n int) []autotune.Point {
	g.start()
	g.breedMeasured()
	var out []autotune.Point
	in := map[string]bool{}
	lists := [][]autotune.Point{g.promised, g.front}
	for _, is := range g.queue {
		lists = append(lists, is.pending)
	}
	for _, ps := range lists {
		for _, p := range ps {
			if k := p.Key(); g.open(k) && !in[k] {
				in[k] = true
				out = append(out, p)
			}
		}
	}
	// Every point known now keeps its place before the local points bred
	// later, whatever n: the order of the search does not depend on how
	// far ahead the caller looked.
	g.promised = out
	return slices.Clone(out[:min(n, len(out))])
}

// Take removes p from the individuals still to be proposed, on every
// island, if it is one of them, as if Next had returned it.
func (g *GA) Take(p autotune.Point) bool {
	k := p.Key()
	g.asked[k] = true
	took := false
	for _, q := range []*[]autotune.Point{&g.promised, &g.front} {
		if i := slices.IndexFunc(*q, func(q autotune.Point) bool { return q.Key() == k }); i >= 0 {
			*q = slices.Delete(*q, i, i+1)
			took = true
		}
	}
	for _, is := range g.islands {
		if i := slices.IndexFunc(is.pending, func(q autotune.Point) bool { return q.Key() == k }); i >= 0 {
			is.pending = slices.Delete(is.pending, i, i+1)
			took = true
		}
	}
	return took
}

var (
	_ autotune.Lookahead = (*GA)(nil)
	_ autotune.Picker    = (*GA)(nil)
)

// Tell records the result of p.
func (g *GA) Tell(p autotune.Point, r autotune.Result) {
	f := r.Fitness()
	if _, again := g.fitness[p.Key()]; !again {
		g.measured = append(g.measured, measurement{p, f})
	}
	g.fitness[p.Key()] = f
	delete(g.asked, p.Key())
	if !math.IsInf(f, 1) && (!g.hasBest || f < g.bestFit) {
		g.best, g.bestFit, g.hasBest = p, f, true
	}
}

// fit returns p's fitness, +Inf if it was not measured.
func (g *GA) fit(p autotune.Point) float64 {
	if f, ok := g.fitness[p.Key()]; ok {
		return f
	}
	return math.Inf(1)
}

// unmeasured returns the distinct points of pop that were never measured
// nor proposed.
func (g *GA) unmeasured(pop []autotune.Point) []autotune.Point {
	var out []autotune.Point
	seen := map[string]bool{}
	for _, p := range pop {
		k := p.Key()
		if !g.open(k) || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// fresh returns a random point never measured and not in avoid, or false
// when the sampler has no point left.
func (g *GA) fresh(avoid map[string]bool) (autotune.Point, bool) {
	for {
		p, ok := g.sampler.Next()
		if !ok {
			return autotune.Point{}, false
		}
		if k := p.Key(); g.open(k) && !avoid[k] {
			return p, true
		}
	}
}

// start makes the islands' first generations, once. A first generation
// whose points were all measured (told before the search started, as
// when another strategy opened it) is not stalled: it breeds at once.
func (g *GA) start() {
	if g.started {
		return
	}
	g.started = true
	for i := range g.set.Islands {
		is := &island{pop: g.first(i == 0)}
		g.islands = append(g.islands, is)
		g.queue = append(g.queue, is)
		g.made(is)
		is.stalled = is.stalled && len(is.pop) == 0
	}
}

// made counts island is's new generation and lists the points of it to
// propose, the island now last to be measured. An island with none whose
// points were all measured is stalled: the space has no point left that
// is not another island's.
func (g *GA) made(is *island) {
	g.gen++
	is.pending = g.unmeasured(is.pop)
	is.stalled = len(is.pending) == 0 && !slices.ContainsFunc(is.pop, g.waiting)
	g.queue = append(slices.DeleteFunc(g.queue, func(o *island) bool { return o == is }), is)
}

// first returns a first generation: the seeds, then random points (the
// sampler draws each point once, over all islands).
func (g *GA) first(near bool) []autotune.Point {
	var pop []autotune.Point
	in := map[string]bool{}
	for _, s := range g.set.Seeds {
		if len(pop) == g.set.Population {
			break
		}
		p := g.space.Repair(s)
		if !g.space.Contains(p) || in[p.Key()] {
			continue
		}
		in[p.Key()] = true
		pop = append(pop, p)
	}
	if near && g.set.Neighbours > 0 {
		seeds := slices.Clone(pop)
		if len(seeds) > 1 {
			seeds = seeds[1:]
		}
		for _, p := range g.neighbours(seeds, min(g.set.Neighbours, g.set.Population-len(pop)), in) {
			in[p.Key()] = true
			pop = append(pop, p)
		}
	}
	for len(pop) < g.set.Population {
		p, ok := g.fresh(in)
		if !ok {
			break
		}
		in[p.Key()] = true
		pop = append(pop, p)
	}
	return pop
}

// neighbours returns up to n distinct points, open and not in avoid,
// near the seeds (autotune.Space.Near: one parameter moved to the next
// value of its range).
func (g *GA) neighbours(seeds []autotune.Point, n int, avoid map[string]bool) []autotune.Point {
	return g.space.Near(g.r, seeds, n, func(key string) bool { return !g.open(key) || avoid[key] })
}

// breedMeasured breeds the next generation of every island whose
// individuals were all measured, in the order of g.queue.
func (g *GA) breedMeasured() {
	for _, is := range slices.Clone(g.queue) {
		if is.stalled || slices.ContainsFunc(is.pop, g.waiting) {
			continue
		}
		g.breed(is)
	}
}

// waiting reports whether p was not measured yet.
func (g *GA) waiting(p autotune.Point) bool {
	_, ok := g.fitness[p.Key()]
	return !ok
}

// open reports whether the point of key k was neither measured nor
// proposed: one the search may still propose.
func (g *GA) open(k string) bool {
	_, measured := g.fitness[k]
	return !measured && !g.asked[k]
}

// breed replaces is's population with its next generation.
func (g *GA) breed(is *island) {
	old := is.pop
	if len(old) == 0 {
		g.made(is)
		return
	}
	// Rank by fitness; ties keep population order.
	order := make([]int, len(old))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := g.fit(old[a]), g.fit(old[b])
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	})
	var next []autotune.Point
	for _, i := range order[:min(g.set.Elite, len(order))] {
		if !math.IsInf(g.fit(old[i]), 1) {
			next = append(next, old[i])
		}
	}
	// Migration: the best point of all islands joins the elites.
	if len(g.islands) > 1 && g.hasBest && len(next) < g.set.Population-1 && !slices.ContainsFunc(next, g.best.Equal) {
		next = append(next, g.best)
	}
	in := map[string]bool{}
	for _, p := range slices.Concat(next, g.front) {
		in[p.Key()] = true
	}
	local := g.local(in)
	for _, p := range local {
		in[p.Key()] = true
	}
	for len(next) < g.set.Population {
		a := g.tournament(old)
		child := a
		if g.r.Float64() < g.set.Crossover {
			child = g.crossover(a, g.tournament(old))
		}
		child = g.mutate(child)
		// A child measured before, or already in this generation, gives
		// its place to a random point never measured.
		if k := child.Key(); !g.open(k) || in[k] {
			if p, ok := g.fresh(in); ok {
				child = p
			}
		}
		in[child.Key()] = true
		next = append(next, child)
	}
	is.pop = slices.Concat(local, next)
	g.front = append(g.front, local...)
	g.made(is)
}

// tournament returns the fittest of Tournament individuals drawn at random.
func (g *GA) tournament(pop []autotune.Point) autotune.Point {
	best := pop[g.r.IntN(len(pop))]
	for i := 1; i < g.set.Tournament; i++ {
		p := pop[g.r.IntN(len(pop))]
		if g.fit(p) < g.fit(best) {
			best = p
		}
	}
	return best
}

// crossover returns the uniform crossover of a and b, repaired.
func (g *GA) crossover(a, b autotune.Point) autotune.Point {
	vals := a.Values()
	for k := range vals {
		if g.r.IntN(2) == 1 {
			vals[k] = b.Value(k)
		}
	}
	p, err := g.space.FromValues(vals)
	if err != nil {
		return a
	}
	return g.space.Repair(p)
}

// mutate redraws each gene with probability Mutation from its range given
// the genes before it, repairing the genes after it.
func (g *GA) mutate(p autotune.Point) autotune.Point {
	for k := 0; k < p.Len(); k++ {
		if g.r.Float64() >= g.set.Mutation {
			continue
		}
		r := g.space.Range(k, p)
		if len(r) == 0 {
			continue
		}
		p = g.space.Repair(p.With(k, r[g.r.IntN(len(r))]))
	}
	return p
}
