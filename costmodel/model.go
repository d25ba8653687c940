package costmodel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

var (
	_ autotune.Strategy  = (*Model)(nil)
	_ autotune.Lookahead = (*Model)(nil)
	_ autotune.Picker    = (*Model)(nil)
	_ autotune.Planner   = (*Model)(nil)
	_ autotune.Foresight = (*Model)(nil)
)

// Settings controls the model-guided search. The zero value gives the
// defaults below.
type Settings struct {
	// Evaluations is the search's budget of evaluations when it is known
	// (the -e of a replay); the stage sizes follow from it. Default 0:
	// unknown.
	Evaluations int
	// Sample is the number of random points measured to train the model
	// (the first stage). Default: a fifth of Evaluations, at least 10; 100
	// when Evaluations is unknown. Negative: no first stage, not even the
	// seeds; the model is trained on the results told before its first
	// round (a search that continues another's:
	// strategies.OpeningSettings.Then).
	Sample int
	// Second is the number of points predicted fastest that are measured
	// in the second stage's first round. Default: Evaluations/Parts, at
	// least 5; 25 when Evaluations is unknown.
	Second int
	// Parts is the number of parts of the budget a round measures one of
	// when Second is not given: the rounds follow the budget when Plan
	// learns it later as when it is given. Default 0: 20 (rounds of a
	// twentieth).
	Parts int
	// Round is the number of points measured in each later round of the
	// second stage: the model is retrained on every result so far before
	// each round. Default Second. (Falch & Elster measure the second stage
	// in one round, Second = the rest of the budget; on the recorded
	// tables of testdata/replay, rounds of 5% of the budget after a sample
	// of 20% did better than halves: docs/replay.md.)
	Round int
	// Pool is the largest number of points predicted: the whole space
	// when it is no larger, else a random sample of Pool points never
	// measured, drawn anew for each round. Default 20000.
	Pool int
	// Screen trains a second network (one, of MLP's units and
	// iterations) on every result, 1 for a success and 0 for a failure,
	// and ranks the points it predicts to fail (below 0.5) after the
	// others: a model trained on successes alone takes no account of
	// where points fail, and its fastest predictions can lie there.
	// Default false (Falch & Elster's model).
	Screen bool
	// Refill replaces each point of a round rejected as illegal
	// (autotune.Illegal: nothing built) by the next point predicted
	// fastest, so that a round measures its Second or Round points
	// before the model is trained again. Default false: a round's
	// rejected points are lost, as in Falch & Elster's stage.
	Refill bool
	// MLP controls the regressor. Default MLPSettings{}.
	MLP MLPSettings
	// Seeds are measured first, as part of the sample (repaired into the
	// space). Default none.
	Seeds []autotune.Point
}

func (s Settings) withDefaults() Settings {
	switch {
	case s.Sample < 0:
		s.Sample = 0
	case s.Sample == 0:
		s.Sample = 100
		if s.Evaluations > 0 {
			s.Sample = max(10, s.Evaluations/5)
		}
	}
	if s.Parts <= 0 {
		s.Parts = 20
	}
	if s.Second <= 0 {
		s.Second = 25
		if s.Evaluations > 0 {
			s.Second = max(5, s.Evaluations/s.Parts)
		}
	}
	if s.Round <= 0 {
		s.Round = s.Second
	}
	if s.Pool <= 0 {
		s.Pool = 20000
	}
	return s
}

// minTrain is the fewest successful results a model is trained on; with
// fewer, the search draws another random round.
const minTrain = 3

// Model is Falch & Elster's two-stage search: it measures Sample random
// points, trains an MLP on the successful ones (log time from the
// parameters, each scaled as log2(1+v) to [0, 1]), predicts the time of
// every point never measured (or of Pool random ones) and measures the
// Second predicted fastest, then goes on in rounds of Round points, the
// model retrained on all results before each (Falch & Elster's second
// stage is one round). Failed points are left out of training (Falch &
// Elster found that best); a point predicted fast that fails is simply a
// failure of the second stage, unless Screen (failures learnt apart) or
// Refill (illegal points replaced). With fewer than 3 successes to train
// on it samples another round at random. Next returns ok=false once every
// point was proposed.
//
// Model is a Lookahead and a Picker: the rest of the current stage's (or
// round's) points are known in advance. It is a Foresight too: Likely
// guesses the next round's points from the model that chose the current
// one.
//
// Cost: training the networks before each round is nearly all of it. A
// replay of 20 searches of 162 evaluations on 3DCONV 128 (a 1626-point
// table whose 5 free parameters of 28 are the only input columns not 0
// everywhere: training reads only those) takes 68 s on a 2-core machine
// (docs/replay.md, "Training the model's networks faster").
type Model struct {
	stages
	set     Settings
	given   Settings // as given, before the defaults
	first   int      // points queued for the first stage
	trained int      // rounds planned by the model
	// spare holds the points predicted fastest after the current round's,
	// in order, and round the keys of the round's points (Refill).
	spare []autotune.Point
	round map[string]bool
}

// New returns a model-guided search of space drawing from r.
func New(space *autotune.Space, r *rand.Rand, set Settings) *Model {
	return &Model{stages: newStages(space, r), set: set.withDefaults(), given: set}
}

// Plan sets the budget of evaluations the stage sizes follow (those the
// settings did not give). Told while the first stage is under way, it
// shortens or lengthens that stage to the new sample size.
func (m *Model) Plan(evaluations int) {
	if evaluations <= 0 {
		return
	}
	g := m.given
	g.Evaluations = evaluations
	old := m.set.Sample
	m.set = g.withDefaults()
	if !m.started || m.rounds > 0 || m.set.Sample == old {
		return
	}
	// The first stage is under way: its points are those proposed and
	// the queue.
	queued := len(m.queue)
	m.resize(max(0, m.set.Sample-(m.first-queued)))
	m.first = len(m.queue) + m.first - queued
}

// Name returns "model".
func (*Model) Name() string { return "model" }

// Settings returns the settings in effect: those given, the defaults
// filled in, Evaluations as Plan last set it.
func (m *Model) Settings() Settings { return m.set }

// Trainings returns how many times the model was trained.
func (m *Model) Trainings() int { return m.trained }

// Next returns the next point of the current stage, planning the next
// round when it is done.
func (m *Model) Next() (autotune.Point, bool) { return m.next(m.plan) }

// Likely returns up to n points the next round may measure: those the
// model that chose the current round predicted fastest after the round's
// own (and after those Refill took), never proposed, so that a live
// search's builders build them while the round is measured and the model
// trained (autotune.Foresight). None before the first trained round. It
// uses no random numbers: a search is the same with or without it.
func (m *Model) Likely(n int) []autotune.Point { return m.unproposed(m.spare, n) }

// Tell records p's result; with Refill, a point of the current round
// rejected as illegal is replaced in the round by the next point
// predicted fastest never proposed.
func (m *Model) Tell(p autotune.Point, r autotune.Result) {
	m.stages.Tell(p, r)
	if !m.set.Refill || r.Outcome != autotune.Illegal || !m.round[p.Key()] {
		return
	}
	delete(m.round, p.Key())
	for len(m.spare) > 0 {
		q := m.spare[0]
		m.spare = m.spare[1:]
		if !m.seen.Seen(q) {
			m.seen.Propose(q)
			m.queue = append(m.queue, q)
			m.round[q.Key()] = true
			return
		}
	}
}

// Upcoming returns up to n of the points Next returns next (those of the
// current stage or round).
func (m *Model) Upcoming(n int) []autotune.Point { return m.upcoming(n, m.plan) }

// plan fills the queue with the next stage or round; false when no point
// is left.
func (m *Model) plan() bool {
	if !m.started {
		m.start(m.set.Seeds, m.set.Sample)
		m.first = len(m.queue)
		if len(m.queue) > 0 || m.given.Sample >= 0 {
			return len(m.queue) > 0
		}
		// No first stage: the first round at once.
	}
	m.rounds++
	n := m.set.Round
	if m.trained == 0 {
		n = m.set.Second
	}
	ok := 0
	for _, f := range m.fit {
		if !math.IsInf(f, 1) {
			ok++
		}
	}
	if ok >= minTrain {
		if best := m.predictBest(n); len(best) > 0 {
			m.trained++
			m.spare = best[min(n, len(best)):]
			best = best[:min(n, len(best))]
			m.round = map[string]bool{}
			for _, p := range best {
				m.round[p.Key()] = true
			}
			m.enqueue(best)
			return true
		}
	}
	m.spare, m.round = nil, nil
	m.random(n)
	return len(m.queue) > 0
}

// poolOf returns the points to predict: every point of the space never
// proposed (seen), or n random ones drawn from r when the space is larger.
// The whole space is enumerated once, into s.all, for every later round.
func (s *stages) poolOf(n int) []autotune.Point {
	var out []autotune.Point
	size := s.space.Size()
	if size.IsInt64() && size.Int64() <= int64(n) {
		if s.all == nil {
			s.all = make([]autotune.Point, 0, size.Int64())
			for i := int64(0); i < size.Int64(); i++ {
				s.all = append(s.all, s.space.At(big.NewInt(i)))
			}
		}
		for _, p := range s.all {
			if !s.seen.Seen(p) {
				out = append(out, p)
			}
		}
		return out
	}
	rs := autotune.NewRandom(s.space, s.r)
	for tries := 0; len(out) < n && tries < 4*n; tries++ {
		p, ok := rs.Next()
		if !ok {
			break
		}
		if !s.seen.Seen(p) {
			out = append(out, p)
		}
	}
	return out
}

// predictBest trains the model on the successful results and returns the
// n points of the pool predicted fastest (none if training failed), and
// up to 2n more (9n with Refill, to replace the round's illegal points),
// in the order predicted: Likely's guesses.
func (m *Model) predictBest(n int) []autotune.Point {
	pool := m.poolOf(m.set.Pool)
	if len(pool) == 0 {
		return nil
	}
	var train []autotune.Point
	var y []float64
	for i, p := range m.data {
		if f := m.fit[i]; !math.IsInf(f, 1) {
			train = append(train, p)
			y = append(y, math.Log(max(f, 1e-9)))
		}
	}
	enc := newEncoder(m.space.Len(), train, pool)
	standardize(y)
	mlp := NewMLP(m.r, m.set.MLP)
	if err := mlp.Fit(enc.all(train), y); err != nil {
		return nil // sample at random instead
	}
	pred := make([]float64, len(pool))
	x := make([]float64, m.space.Len())
	for i, p := range pool {
		enc.encode(p, x)
		pred[i] = mlp.Predict(x)
	}
	order := make([]int, len(pool))
	for i := range order {
		order[i] = i
	}
	// In the order of predicted time, with Screen the points predicted to
	// fail after the others.
	failing := m.screen(pool)
	slices.SortStableFunc(order, func(a, b int) int {
		if failing != nil && failing[a] != failing[b] {
			if failing[a] {
				return 1
			}
			return -1
		}
		return cmpFloat(pred[a], pred[b])
	})
	keep := 3 * n // the round, and Likely's guesses
	if m.set.Refill {
		keep = 10 * n
	}
	out := make([]autotune.Point, 0, min(keep, len(order)))
	for _, i := range order[:min(keep, len(order))] {
		out = append(out, pool[i])
	}
	return out
}

// screen returns, with Screen, whether a network trained on every result
// told (1 for a success, 0 for a failure) predicts each point of pool to
// fail (below 0.5); nil without Screen, before any failure, or when the
// network cannot be trained.
func (m *Model) screen(pool []autotune.Point) []bool {
	if !m.set.Screen || !slices.ContainsFunc(m.fit, func(f float64) bool { return math.IsInf(f, 1) }) {
		return nil
	}
	ok := make([]float64, len(m.fit))
	for i, f := range m.fit {
		if !math.IsInf(f, 1) {
			ok[i] = 1
		}
	}
	enc := newEncoder(m.space.Len(), m.data, pool)
	set := m.set.MLP
	set.Bags = 1
	net := NewMLP(m.r, set)
	if err := net.Fit(enc.all(m.data), ok); err != nil {
		return nil
	}
	out := make([]bool, len(pool))
	x := make([]float64, m.space.Len())
	for i, p := range pool {
		enc.encode(p, x)
		out[i] = net.Predict(x) < 0.5
	}
	return out
}

// encoder scales parameter values to [0, 1]: log2(1+|v|) with v's sign,
// then min-max over the points it was made from, then multiplied by the
// parameter's weight w (nil: 1 each; ardWeights's per-parameter length
// scales).
type encoder struct{ lo, hi, w []float64 }

func squash(v int) float64 {
	f := math.Log2(1 + math.Abs(float64(v)))
	if v < 0 {
		return -f
	}
	return f
}

func newEncoder(dim int, sets ...[]autotune.Point) *encoder {
	e := &encoder{lo: make([]float64, dim), hi: make([]float64, dim)}
	for k := range dim {
		e.lo[k], e.hi[k] = math.Inf(1), math.Inf(-1)
	}
	for _, ps := range sets {
		for _, p := range ps {
			for k := range dim {
				v := squash(p.Value(k))
				e.lo[k], e.hi[k] = min(e.lo[k], v), max(e.hi[k], v)
			}
		}
	}
	return e
}

func (e *encoder) encode(p autotune.Point, x []float64) {
	for k := range x {
		if d := e.hi[k] - e.lo[k]; d > 0 {
			x[k] = (squash(p.Value(k)) - e.lo[k]) / d
			if e.w != nil {
				x[k] *= e.w[k]
			}
		} else {
			x[k] = 0
		}
	}
}

func (e *encoder) all(ps []autotune.Point) [][]float64 {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		out[i] = make([]float64, len(e.lo))
		e.encode(p, out[i])
	}
	return out
}

// standardize makes y of mean 0 and deviation 1 (0 when constant).
func standardize(y []float64) {
	mean, sd := 0.0, 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(len(y)))
	for i := range y {
		y[i] -= mean
		if sd > 0 {
			y[i] /= sd
		}
	}
}
