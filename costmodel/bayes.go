package costmodel

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

// PlateauRounds is BayesSettings.PlateauRounds's default: the first rounds
// a plateau widens.
const PlateauRounds = 3

var (
	_ autotune.Strategy  = (*Bayes)(nil)
	_ autotune.Lookahead = (*Bayes)(nil)
	_ autotune.Picker    = (*Bayes)(nil)
	_ autotune.Planner   = (*Bayes)(nil)
	_ autotune.Foresight = (*Bayes)(nil)
)

// BayesSettings controls Bayesian optimization. The zero value gives the
// defaults below.
type BayesSettings struct {
	// Evaluations is the search's budget of evaluations when it is known;
	// Init follows it. Default 0: unknown.
	Evaluations int
	// Init is the number of points measured before the first model: the
	// seeds, then random points. Default: a tenth of Evaluations, from 5
	// to 20; 20 when Evaluations is unknown.
	Init int
	// Batch is the number of points chosen per round, each the point of
	// the largest expected improvement given the model updated with the
	// ones chosen before it at their predicted times (the "kriging
	// believer"): the tuner builds a round's points in parallel. Default 1.
	Batch int
	// Whole is the largest space the acquisition scores whole (every
	// point never measured). Default 5000 (at least Pool).
	Whole int
	// Pool is the number of random points never measured, drawn anew each
	// round, that the acquisition scores in a space of more than Whole
	// points. Default 1000: scoring is most of a round's time (with 300
	// results, about 300 covariances a point), and 1000 keeps a round
	// within milliseconds (see Bayes).
	Pool int
	// MaxTrain is the largest number of results the model is fitted to:
	// beyond it, the best half and the latest half. Default 300.
	MaxTrain int
	// Refit is how often, in results, the GP's length scale and noise are
	// chosen anew from the grid once the model is fitted to more than
	// MaxTrain/2 results; in between the model is fitted with the last
	// ones chosen (one factorization instead of the grid's 35). Up to
	// MaxTrain/2 results they are chosen at every fit. Default 50.
	Refit int
	// Xi is the margin, in log time, by which expected improvement counts
	// a point better than the best measured: a larger one explores more.
	// Default 0.
	Xi float64
	// Local is the number of a round's Batch points chosen among the
	// neighbours (autotune.Space.Neighbours: one parameter moved to an
	// adjacent value) of the LocalBest fastest points measured, by the
	// same expected improvement, before the rest of the round is chosen
	// in the whole pool: the local search that hill-climbing ends with,
	// steered by the model. Default 0: none (at most Batch).
	Local int
	// LocalBest is the number of the fastest points measured whose
	// neighbours Local chooses among. Default 3.
	LocalBest int
	// Minima has Local choose among the neighbours of the LocalBest
	// fastest local minima of the points measured (successes no measured
	// neighbour of which is faster; the fastest point is one), each the
	// bottom of its own basin among the points measured, instead of the
	// LocalBest fastest points, which after a few rounds are the fastest
	// and its own slower neighbours. Fewer minima than LocalBest are made
	// up with the fastest other points. Default false.
	Minima bool
	// Anchored has the first of Local's points each round chosen among
	// the anchored moves (autotune.Space.Anchored) of the points whose
	// neighbours Local chooses among, never proposed, by the same expected
	// improvement, while there are any: moves of one parameter in which a
	// later parameter at the top of a range of two or more values stays at
	// the top when the move changes that range (a work-item's one block
	// along x stays one block when the blocks grow). They change several
	// parameters at once, so the model, fitted with one length scale,
	// rarely ranks them above the plain neighbours. Default false.
	Anchored bool
	// CoverMax has the first of Local's points each round chosen, by the
	// same expected improvement, among the neighbours of the points whose
	// neighbours Local chooses among that give a parameter whose range
	// there has at most CoverMax values a value no point told has (a flag
	// never tried), while there are any; before the anchored moves.
	// Default 0: none.
	CoverMax int
	// OmitIllegal leaves the points rejected as Illegal (before anything
	// was built: the transforms refused the setting, or it is over the
	// device's limits; in a replay, a row recorded so or not in the
	// table) out of the model, instead of taking them, as the other
	// failures, for the slowest time measured: a setting the space cannot
	// hold says nothing of how fast its legal neighbours run, and taken
	// for the slowest it writes off a parameter's value (local memory)
	// wherever it made some settings illegal (docs/replay.md, "Illegal
	// points left out of the model"). They are still never proposed
	// again. Default false: a candidate for the opening
	// (strategies.OpeningSettings.OmitIllegal), not its default.
	OmitIllegal bool
	// Plateau, when positive, has the first PlateauRounds rounds look
	// wider while the points measured when the model is first fitted lie
	// on a plateau (the median time of their successes within Plateau, a
	// share, of the best) and no time measured since is faster than that
	// best by more than Plateau: the round's Local points are first the
	// neighbours that flip a flag (a parameter of at most 2 values there)
	// of each point measured within Plateau of the best time, those of
	// the fastest points first, then chosen by expected improvement among
	// the neighbours and anchored moves of those points instead of the
	// LocalBest centres'. On a plateau the model cannot tell where a flag
	// pays (local memory only with some tiles), and the fastest point is
	// as good a centre as the others. Default 0: none.
	Plateau float64
	// PlateauRounds is the number of first rounds Plateau may widen
	// Default 0: the package's PlateauRounds.
	PlateauRounds int
	// GlobalRounds, when positive, has only the first GlobalRounds rounds
	// choose their points after the Local ones in the whole pool; from
	// the next round every point of a round is chosen among the local
	// points (the neighbours and anchored moves of the LocalBest centres)
	// while there are any. Early on the model has seen little, and a
	// point anywhere of the largest expected improvement explores; later
	// it is mostly a guess far from anything measured, while the round's
	// local points take the basins found down to their minima (on the
	// tables, bicg 4096's optimum, two moves from its only successful
	// start point; docs/replay.md, "Local rounds after two": a candidate
	// for the opening, strategies.OpeningSettings.GlobalRounds).
	// Default 0: every round (Batch-Local points anywhere).
	GlobalRounds int
	// Exploit, when positive, has the rounds from the Exploit-th on
	// (the first model's round is the first) choose their points after
	// the Local ones, the points anywhere, by the model's prediction
	// alone: the point never measured of the lowest predicted time, as
	// Falch and Elster's second stage measures the best predicted, while
	// that time is below the fastest measured; else, and in the rounds
	// before, by expected improvement. Expected improvement also pays for
	// the model's uncertainty, and once the fastest basin is found it
	// spends the point anywhere on parameters that hardly matter (bicg
	// 4096's unroll factor; docs/replay.md, "The round's point anywhere
	// by the predicted time"). Default 0: every round by expected
	// improvement.
	Exploit int
	// ARD fits the model with a length scale per parameter instead of
	// one for all: each parameter's weight (0.25 to 4 times the GP's
	// reciprocal length scale) chosen each round by the marginal
	// likelihood under a prior that keeps it near 1 (ardWeights). The
	// model then learns that the time follows some parameters closely and
	// others hardly, which one length scale cannot say. Default false
	// (the opening's default is true: strategies.OpeningSettings).
	ARD bool
	// Seeds are measured first (repaired into the space). Default none.
	Seeds []autotune.Point
	// Name is the name the strategy reports (a registry entry with its
	// own settings names itself). Default "bayes".
	Name string
}

func (s BayesSettings) withDefaults() BayesSettings {
	if s.Init <= 0 {
		s.Init = 20
		if s.Evaluations > 0 {
			s.Init = min(20, max(5, s.Evaluations/10))
		}
	}
	if s.Batch <= 0 {
		s.Batch = 1
	}
	if s.Pool <= 0 {
		s.Pool = 1000
	}
	if s.Whole <= 0 {
		s.Whole = 5000
	}
	s.Whole = max(s.Whole, s.Pool)
	if s.MaxTrain <= 0 {
		s.MaxTrain = 300
	}
	if s.Refit <= 0 {
		s.Refit = 50
	}
	s.Local = min(max(s.Local, 0), s.Batch)
	if s.LocalBest <= 0 {
		s.LocalBest = 3
	}
	if s.PlateauRounds <= 0 {
		s.PlateauRounds = PlateauRounds
	}
	return s
}

// Bayes is Bayesian optimization, the strategy Kernel Tuner found best at
// small budgets (Willemsen, van Nieuwpoort and van Werkhoven, "Bayesian
// optimization for auto-tuning GPU kernels", 2021): a Gaussian process
// (GP: Matérn 5/2, its length scale and noise fitted by marginal
// likelihood) models the logarithm of the time from the parameters (each
// scaled as log2(1+v) to [0, 1]); after Init points (the seeds, then
// random ones), each round measures the point of the largest expected
// improvement over the best time among those never measured, and refits.
// A failed point is fitted as the slowest time measured, so that the
// model steers away from it. Next returns ok=false once every point was
// proposed.
//
// Bayes is a Lookahead and a Picker: the initial points and a round's
// Batch points are known in advance.
//
// Cost. A round fits the GP (the grid of 35 length scales and noises, in
// parallel; beyond MaxTrain/2 results only every Refit results, the last
// choice refitted in between, and the kriging believer's points added to
// the factor a row at a time) and scores the pool: the means and a bound
// of each point's expected improvement first (in parallel), the O(n²)
// variance only for the points whose bound can beat the best, which picks
// the point the plain loop would. On the Table 2 space of MATMUL 4096 on a
// GPU (3.3e9 points) with a synthetic evaluator, the strategy's mean time
// per evaluation on a loaded 2-core machine was, after 300 and after 1500
// evaluations: bayes 15 and 22 ms, hybrid 7 and 13 ms (the largest of one
// evaluation 70 to 210 ms), measured by
//
//	go test ./optimizer -run '^$' -bench StrategyCost -benchtime 1x
//
// (before these changes, with a pool of 20000 and the grid at every fit:
// bayes 361 ms and hybrid 116 ms after 300 evaluations, hybrid 567 ms
// after 1500).
type Bayes struct {
	stages
	set   BayesSettings
	given BayesSettings
	// hyper is the last GP whose length scale and noise were chosen from
	// the grid beyond MaxTrain/2 results, when len(data) was gridAt.
	hyper  *GP
	gridAt int
	// guess is what the last round's choice leaves for Likely: its last
	// model and the pool it scored, the round's points taken.
	guess *guess
	// plateau is the initial points' best time when they lie on a
	// plateau (Plateau), else 0; plateauSet says it was decided.
	plateau    float64
	plateauSet bool
	// carry is the last round's correlations, for the next round's
	// (corrCarry).
	carry *corrCarry
	// guessed counts the points chosen as the model's best guess
	// (Exploit).
	guessed int
}

// guess is a round's model and pool, and, once Likely asked, the pool's
// points ranked by the model (those of the round left out).
type guess struct {
	gp     *GP
	pool   []autotune.Point
	px     [][]float64
	taken  []bool
	best   float64
	ranked []autotune.Point
	corr   *corrCache // the round's, for px
	// exploit says the next round chooses its point anywhere as the
	// model's guess (Exploit) while it is below fastest, the fastest log
	// time measured.
	exploit bool
	fastest float64
}

// NewBayes returns a Bayesian optimization of space drawing from r.
func NewBayes(space *autotune.Space, r *rand.Rand, set BayesSettings) *Bayes {
	return &Bayes{stages: newStages(space, r), set: set.withDefaults(), given: set}
}

// Tell records p's result; with OmitIllegal, a point rejected as Illegal
// is only marked seen, so that it is never proposed again but stays out
// of the model.
func (b *Bayes) Tell(p autotune.Point, r autotune.Result) {
	if b.set.OmitIllegal && r.Outcome == autotune.Illegal {
		b.seen.Tell(p, r)
		return
	}
	b.stages.Tell(p, r)
}

// Name returns the settings' Name, "bayes" by default.
func (b *Bayes) Name() string {
	if b.set.Name != "" {
		return b.set.Name
	}
	return "bayes"
}

// Settings returns the settings in effect.
func (b *Bayes) Settings() BayesSettings { return b.set }

// Plan sets the budget of evaluations Init follows, unless the settings
// gave Init; told before the initial points are all proposed, it trims or
// extends them.
func (b *Bayes) Plan(evaluations int) {
	if evaluations <= 0 {
		return
	}
	g := b.given
	g.Evaluations = evaluations
	old := b.set.Init
	b.set = g.withDefaults()
	if !b.started || b.rounds > 0 || b.set.Init == old {
		return
	}
	b.resize(max(0, b.set.Init-(old-len(b.queue))))
}

// Next returns the next point of the current round.
func (b *Bayes) Next() (autotune.Point, bool) { return b.next(b.plan) }

// Upcoming returns up to n of the points of the current round.
func (b *Bayes) Upcoming(n int) []autotune.Point { return b.upcoming(n, b.plan) }

// Likely returns up to n points the next round may choose: the points of
// the largest expected improvement under the model that chose the current
// round, after the round's own (the round's choice continued without the
// kriging believer), never proposed, among the points the round scored
// (with Exploit, when the next round's point anywhere is the model's
// guess, the point of the lowest predicted time first, while it is below
// the fastest measured):
// the whole space when it is at most Whole points, else the neighbours
// (Local) only, the random pool being drawn anew each round. None before
// the first round. The ranking is made once a round, on the first call;
// it uses no random numbers, so a search is the same with or without it.
func (b *Bayes) Likely(n int) []autotune.Point {
	g := b.guess
	if g == nil || n <= 0 {
		return nil
	}
	if g.ranked == nil {
		g.ranked = []autotune.Point{}
		first := -1
		if g.exploit {
			// The point the next round's guess would be now, first.
			if i, _ := g.gp.lowestMean(g.px, g.taken, g.fastest, g.corr); i >= 0 {
				first = i
				g.ranked = append(g.ranked, g.pool[i])
			}
		}
		picks, _ := g.gp.topEICached(g.px, g.taken, g.best, max(2*n, 16), g.corr)
		for _, i := range picks {
			if i != first {
				g.ranked = append(g.ranked, g.pool[i])
			}
		}
		g.px, g.taken, g.corr = nil, nil, nil
	}
	return b.unproposed(g.ranked, n)
}

// plan fills the queue with the initial points or the next round; false
// when no point is left.
func (b *Bayes) plan() bool {
	if !b.started {
		b.start(b.set.Seeds, b.set.Init)
		return len(b.queue) > 0
	}
	b.rounds++
	if next := b.acquire(); len(next) > 0 {
		b.enqueue(next)
		return true
	}
	// Too few successes to model, or no model fits: a random point.
	b.random(1)
	return len(b.queue) > 0
}

// training returns the results to fit: log times, failures as the slowest
// time, at most MaxTrain of them (the best half by time and the latest
// half).
func (b *Bayes) training() ([]autotune.Point, []float64) {
	y, ok := logTimes(b.fit)
	if ok < minTrain {
		return nil, nil
	}
	if len(b.data) <= b.set.MaxTrain {
		return slices.Clone(b.data), y
	}
	return gather(b.data, y, subsample(b.fit, b.set.MaxTrain))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// acquire fits the model and returns the Batch points of the pool of the
// largest expected improvement (none without a model).
func (b *Bayes) acquire() []autotune.Point {
	train, y := b.training()
	if train == nil {
		return nil
	}
	plateau := b.onPlateau()
	local, anchored, cover := b.neighbourhood(plateau)
	pool := slices.Clone(local)
	keys := make([]string, 0, len(local)) // the pool's
	inLocal := map[string]bool{}
	for _, p := range local {
		k := p.Key()
		inLocal[k] = true
		keys = append(keys, k)
	}
	n, whole := b.set.Pool, false
	if size := b.space.Size(); size.IsInt64() && size.Int64() <= int64(b.set.Whole) {
		n, whole = b.set.Whole, true // the whole space
	}
	for _, p := range b.poolOf(n) {
		if k := p.Key(); !inLocal[k] {
			pool = append(pool, p)
			keys = append(keys, k)
		}
	}
	if len(pool) == 0 {
		return nil
	}
	enc := newEncoder(b.space.Len(), train, pool)
	xs := enc.all(train)
	if b.set.ARD {
		xs = weigh(enc, xs, y)
	}
	px := enc.all(pool)
	var out []autotune.Point
	taken := make([]bool, len(pool))
	large := len(xs) > b.set.MaxTrain/2
	if !large || b.gridAt == 0 || len(b.data) >= b.gridAt+b.set.Refit {
		b.hyper = nil // choose the length scale and noise anew
	}
	var gp *GP
	// The pool's correlations with the samples, kept through the round,
	// those the last round computed with the same samples carried over.
	var corr *corrCache
	if keepCorrelations {
		corr = b.carry.seed(enc, xs, keys)
	}
	measured := len(xs)
	fastest := slices.Min(y) // the fastest measured, in log time
	exploit := b.exploits(b.rounds)
	nLocal := b.set.Local
	if b.set.GlobalRounds > 0 && b.rounds > b.set.GlobalRounds {
		nLocal = b.set.Batch
	}
	for len(out) < b.set.Batch && len(out) < len(pool) {
		var err error
		switch {
		case large && gp != nil:
			// The believer's point added: the factor grows by a row.
			gp, err = gp.extend(xs, y)
		case large && b.hyper != nil:
			gp, err = b.hyper.refit(xs, y)
		default:
			gp, err = FitGP(xs, y)
			if err == nil && large {
				b.hyper, b.gridAt = gp, len(b.data)
			}
		}
		if err != nil {
			break
		}
		// The round's first Local points (all of them after GlobalRounds
		// rounds) come from the neighbourhood of the best (while it has
		// points left), the others from anywhere.
		cand, anywhere := px, true
		if plateau && len(out) < cover && len(out) < nLocal {
			// The flags flipped at the fastest centres first.
			pick := slices.Index(taken[:cover], false)
			mean, _ := gp.Predict(px[pick], nil)
			taken[pick] = true
			out = append(out, pool[pick])
			xs, y = append(xs, px[pick]), append(y, mean)
			continue
		}
		if len(out) < nLocal && len(out) < len(local) {
			cand, anywhere = px[:len(local)], false
			if len(out) == 0 && cover > 0 {
				cand = px[:cover]
			} else if len(out) == 0 && anchored > 0 {
				cand = px[:anchored]
			}
		}
		var picks []int
		var means []float64
		if anywhere && exploit {
			// The model's best guess, while it predicts a gain.
			if i, m := gp.lowestMean(px, taken, fastest, corr); i >= 0 {
				picks, means = []int{i}, []float64{m}
				b.guessed++
			}
		}
		if picks == nil {
			picks, means = gp.topEICached(cand, taken, slices.Min(y)-b.set.Xi, 1, corr)
		}
		if len(picks) == 0 {
			break
		}
		pick, pickMean := picks[0], means[0]
		taken[pick] = true
		out = append(out, pool[pick])
		// The kriging believer: the next point of the batch is chosen as if
		// this one took its predicted time.
		xs, y = append(xs, px[pick]), append(y, pickMean)
	}
	b.carry = carryOf(corr, enc, xs[:measured], keys)
	b.guess = nil
	if gp != nil && len(out) > 0 {
		g := &guess{gp: gp, pool: pool, px: px, taken: taken, best: slices.Min(y) - b.set.Xi, corr: corr}
		if b.exploits(b.rounds + 1) {
			// The next round's point anywhere may be the model's guess.
			g.exploit, g.fastest = true, fastest
		}
		if !whole {
			// The random points are drawn anew each round: the next
			// round may choose again among the neighbours only.
			g.pool, g.px, g.taken = pool[:len(local)], px[:len(local)], taken[:len(local)]
		}
		b.guess = g
	}
	return out
}

// exploits reports whether the round-th round (the first model's is the
// first) chooses its point anywhere as the model's guess (Exploit).
func (b *Bayes) exploits(round int) bool {
	return b.set.Exploit > 0 && round >= b.set.Exploit
}

// onPlateau reports whether this round looks wider (Plateau), deciding
// at the first model whether the points measured lie on a plateau.
func (b *Bayes) onPlateau() bool {
	if b.set.Plateau <= 0 || b.set.Local == 0 {
		return false
	}
	if !b.plateauSet {
		b.plateauSet = true
		var f []float64
		for _, x := range b.fit {
			if !math.IsInf(x, 1) {
				f = append(f, x)
			}
		}
		if len(f) >= 3 {
			slices.Sort(f)
			if f[(len(f)-1)/2] <= f[0]*(1+b.set.Plateau) {
				b.plateau = f[0]
			}
		}
	}
	return b.plateau > 0 && b.rounds <= b.set.PlateauRounds && slices.Min(b.fit)*(1+b.set.Plateau) >= b.plateau
}

// neighbourhood returns the neighbours never proposed nor measured of the
// LocalBest fastest points measured (none when Local is 0), with CoverMax
// those that give a small range's parameter a value never told first,
// then with Anchored their anchored moves, and how many of each there are;
// on a plateau (Plateau) those of every point within Plateau of the best,
// the flags flipped first (in place of CoverMax's).
func (b *Bayes) neighbourhood(plateau bool) (local []autotune.Point, anchored, cover int) {
	if b.set.Local == 0 {
		return nil, 0, 0
	}
	idx := make([]int, 0, len(b.fit))
	for i, f := range b.fit {
		if !math.IsInf(f, 1) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(b.fit[i], b.fit[j]) })
	keys := map[string]bool{}
	add := func(ps []autotune.Point) {
		for _, q := range ps {
			if k := q.Key(); !keys[k] && !b.seen.Seen(q) {
				keys[k] = true
				local = append(local, q)
			}
		}
	}
	centres := b.centres(idx)
	switch {
	case plateau:
		// Every point within Plateau of the best is a centre, and every
		// flag flipped at each comes first.
		centres = nil
		for _, i := range idx {
			if b.fit[i] <= b.fit[idx[0]]*(1+b.set.Plateau) {
				centres = append(centres, i)
			}
		}
		add(b.smallMoves(centres, 2, false))
		cover = len(local)
	case b.set.CoverMax > 0:
		add(b.smallMoves(centres, b.set.CoverMax, true))
		cover = len(local)
	}
	if b.set.Anchored {
		for _, i := range centres {
			add(b.space.Anchored(b.data[i]))
		}
		anchored = len(local) - cover
	}
	for _, i := range centres {
		add(b.space.Neighbours(b.data[i]))
	}
	return local, anchored, cover
}

// smallMoves returns the neighbours of the centres (indices of data), in
// their order, that move a parameter whose range there has at most
// maxValues values; with untried, only to a value no point told has.
func (b *Bayes) smallMoves(centres []int, maxValues int, untried bool) []autotune.Point {
	told := make([]map[int]bool, b.space.Len()) // each parameter's values told
	if untried {
		for k := range told {
			told[k] = map[int]bool{}
			for _, p := range b.data {
				told[k][p.Value(k)] = true
			}
		}
	}
	moves := func(p, q autotune.Point) bool {
		for k := range told {
			if v := q.Value(k); v != p.Value(k) && !told[k][v] && len(b.space.Range(k, q)) <= maxValues {
				return true
			}
		}
		return false
	}
	var out []autotune.Point
	for _, i := range centres {
		for _, q := range b.space.Neighbours(b.data[i]) {
			if moves(b.data[i], q) {
				out = append(out, q)
			}
		}
	}
	return out
}

// centres returns the points (indices of data) whose neighbours Local
// chooses among: the LocalBest first of idx (the successes, fastest
// first), or with Minima the LocalBest fastest local minima of the points
// measured, made up with the fastest others when there are fewer.
func (b *Bayes) centres(idx []int) []int {
	n := min(len(idx), b.set.LocalBest)
	if !b.set.Minima {
		return idx[:n]
	}
	var minima, others []int
	for _, i := range idx {
		if len(minima) == n {
			break
		}
		if b.localMinimum(i) {
			minima = append(minima, i)
		} else if len(others) < n {
			others = append(others, i)
		}
	}
	return append(minima, others[:n-len(minima)]...)
}

// localMinimum reports whether no measured neighbour of data[i] is faster.
func (b *Bayes) localMinimum(i int) bool {
	for _, q := range b.space.Neighbours(b.data[i]) {
		if f, told := b.seen.Fitness(q); told && f < b.fit[i] {
			return false
		}
	}
	return true
}

// expectedImprovement is E[max(best - f, 0)] for f ~ N(mean, sd²).
func expectedImprovement(best, mean, sd float64) float64 {
	if sd <= 0 {
		return max(best-mean, 0)
	}
	z := (best - mean) / sd
	return (best-mean)*0.5*math.Erfc(-z/math.Sqrt2) + sd*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
}
