package genetic

import (
	"cmp"
	"math"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

// measurement is a point told to the search and its fitness.
type measurement struct {
	p   autotune.Point
	fit float64 // time, +Inf for a failure
}

// local returns the generation's local points: up to Local neighbours of
// the LocalBest fastest points measured, open and not in avoid, those the
// additive surrogate fitted on every measurement predicts fastest (ties in
// the order of the neighbours: by the rank of the point they neighbour,
// then Space.Neighbours's order).
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
	if len(cand) <= g.set.Local {
		return cand
	}
	model := fitAdditive(g.measured, g.space.Len())
	pred := make([]float64, len(cand))
	order := make([]int, len(cand))
	for i, q := range cand {
		pred[i] = model.predict(q)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pred[a], pred[b]) })
	out := make([]autotune.Point, g.set.Local)
	for i := range out {
		out[i] = cand[order[i]]
	}
	return out
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
