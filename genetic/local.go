package genetic

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

// measurement is a point told to the search and its fitness.
type measurement struct {
	p   autotune.Point
	fit float64 // time, +Inf for a failure
}

// local returns the generation's local points: up to Local of the
// candidates, open and not in avoid (the neighbours of the LocalBest
// fastest points measured, by the rank of the point they neighbour, then
// in Space.Neighbours's order; then LocalRandom random points), those
// Settings.Rank ranks first, or else the additive surrogate fitted on
// every measurement predicts fastest (ties in the candidates' order).
func (g *GA) local(avoid map[string]bool) []autotune.Point {
	if g.set.Local == 0 {
		return nil
	}
	// The LocalBest fastest, earlier measurements first among equals.
	var best []measurement
	for _, m := range g.measured {
		if math.IsInf(m.fit, 1) {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, m, func(a, b measurement) int {
			return cmp.Or(cmp.Compare(a.fit, b.fit), -1) // after every equal one
		})
		if i < g.set.LocalBest {
			best = slices.Insert(best, i, m)[:min(len(best)+1, g.set.LocalBest)]
		}
	}
	var cand []autotune.Point
	seen := map[string]bool{}
	for _, m := range best {
		for _, q := range g.space.Neighbours(m.p) {
			if k := q.Key(); g.open(k) && !avoid[k] && !seen[k] {
				seen[k] = true
				cand = append(cand, q)
			}
		}
	}
	if g.set.LocalRandom > 0 {
		s := autotune.NewRandom(g.space, rand.New(rand.NewPCG(g.r.Uint64(), g.r.Uint64())))
		for tries, added := 0, 0; tries < 4*g.set.LocalRandom && added < g.set.LocalRandom; tries++ {
			q, ok := s.Next()
			if !ok {
				break
			}
			if k := q.Key(); g.open(k) && !avoid[k] && !seen[k] {
				seen[k] = true
				cand = append(cand, q)
				added++
			}
		}
	}
	if len(cand) <= g.set.Local {
		return cand
	}
	pts := make([]autotune.Point, len(g.measured))
	fit := make([]float64, len(g.measured))
	for i, m := range g.measured {
		pts[i], fit[i] = m.p, m.fit
	}
	var idx []int
	if g.set.Rank != nil {
		idx = g.set.Rank(pts, fit, cand, g.set.Local)
	}
	if len(idx) == 0 {
		idx = AdditiveRank(pts, fit, cand, g.set.Local)
	}
	out := make([]autotune.Point, 0, len(idx))
	for _, i := range idx[:min(len(idx), g.set.Local)] {
		out = append(out, cand[i])
	}
	return out
}

// AdditiveRank returns the indices of the n of cand that the additive
// surrogate (see the package doc) fitted on measured, of times fit (+Inf
// for a failure), predicts fastest, ties in cand's order: the ranking of
// the local points when Settings.Rank is nil or ranks none.
func AdditiveRank(measured []autotune.Point, fit []float64, cand []autotune.Point, n int) []int {
	ms := make([]measurement, len(measured))
	params := 0
	for i, p := range measured {
		ms[i] = measurement{p, fit[i]}
		params = max(params, p.Len())
	}
	model := fitAdditive(ms, params)
	pred := make([]float64, len(cand))
	order := make([]int, len(cand))
	for i, q := range cand {
		pred[i] = model.predict(q)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pred[a], pred[b]) })
	return order[:min(n, len(order))]
}

// backfitRounds is the number of rounds of backfitting of the additive
// surrogate: each round refits every parameter's effects to the residuals
// of the others'.
const backfitRounds = 4

// additive is a surrogate of a point's log time: a mean plus, for each
// parameter, an effect of its value. A value never measured has the
// parameter's mean effect, 0.
type additive struct {
	mean   float64
	effect []map[int]float64 // per parameter: value -> effect
}

// fitAdditive fits an additive model of log time to ms, over the first
// params parameters of their points, by backfitting: each parameter's
// effect of a value is the mean, over the points with that value, of
// their residual log time given the mean and the other parameters'
// effects, centred so that its mean over the points is 0. A failure
// counts as twice the slowest time measured, so that its neighbourhood
// looks slow.
func fitAdditive(ms []measurement, params int) *additive {
	m := &additive{effect: make([]map[int]float64, params)}
	for k := range m.effect {
		m.effect[k] = map[int]float64{}
	}
	worst := math.Inf(-1)
	for _, x := range ms {
		if !math.IsInf(x.fit, 1) {
			worst = max(worst, x.fit)
		}
	}
	if math.IsInf(worst, -1) {
		return m
	}
	y := make([]float64, len(ms))
	for i, x := range ms {
		f := x.fit
		if math.IsInf(f, 1) {
			f = 2 * worst
		}
		y[i] = math.Log(max(f, 1e-12))
		m.mean += y[i] / float64(len(ms))
	}
	res := make([]float64, len(ms)) // y minus the model
	for i := range res {
		res[i] = y[i] - m.mean
	}
	sum, n := map[int]float64{}, map[int]int{}
	for range backfitRounds {
		for k := range params {
			clear(sum)
			clear(n)
			centre := 0.0 // the new effects' mean over the points
			for i, x := range ms {
				v := x.p.Value(k)
				res[i] += m.effect[k][v] // the residual without k's effect
				sum[v] += res[i]
				n[v]++
				centre += res[i] / float64(len(ms))
			}
			for v, s := range sum {
				m.effect[k][v] = s / float64(n[v])
			}
			for v := range sum {
				m.effect[k][v] -= centre
			}
			m.mean += centre
			for i, x := range ms {
				res[i] -= m.effect[k][x.p.Value(k)] + centre
			}
		}
	}
	return m
}

// predict returns the model's log time of p.
func (m *additive) predict(p autotune.Point) float64 {
	y := m.mean
	for k, e := range m.effect {
		y += e[p.Value(k)] // 0 for a value never measured
	}
	return y
}
