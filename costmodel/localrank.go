package costmodel

import (
	"math"
	"slices"

	"github.com/hplopt/hplopt/autotune"
)

// RankSettings controls Rank, a GP's ranking of candidate points for the
// genetic search's local points (genetic.Settings.Rank). The zero value
// gives the defaults below, those of RankLocal.
type RankSettings struct {
	// MaxTrain is the largest number of results the GP is fitted to:
	// beyond it, the best half and the latest half. Default 300.
	MaxTrain int
	// GridTrain is the largest number of results on which the GP's length
	// scale and noise are chosen from FitGP's grid (35 factorizations):
	// beyond it they are chosen on the best half and the latest half of
	// GridTrain results, and the GP of that choice is fitted to all (one
	// factorization). Default 100.
	GridTrain int
	// EI ranks by expected improvement over the best time measured, as
	// Bayes does, instead of the predicted time. Default false.
	EI bool
	// Believer, with EI, chooses the points one at a time, each of the
	// largest expected improvement given the GP updated with those chosen
	// before it at their predicted times (the kriging believer). Default
	// false.
	Believer bool
}

// RankLocal is RankSettings{}.Rank: the candidates the GP predicts
// fastest. The strategies registry gives it to the genetic search.
func RankLocal(measured []autotune.Point, fit []float64, cand []autotune.Point, n int) []int {
	return RankSettings{}.Rank(measured, fit, cand, n)
}

// Rank returns the indices of up to n of cand, best first, by a GP (as
// Bayes's: Matérn 5/2 over the parameters scaled as log2(1+v) to [0, 1])
// fitted to the log times of the points measured (fit is their times,
// +Inf for a failure, fitted as the slowest time measured): those of the
// fastest predicted time (or of the largest expected improvement, with
// EI), ties in cand's order. It returns nil with fewer than 3 successes or
// when no GP fits: the caller's fallback. It keeps no state: one call fits
// anew.
//
// Cost: with 300 results or more, 12 to 13 ms on a 2-core machine for
// 136 candidates (the grid on GridTrain results, one factorization of
// 300); 2 ms with 50 results; FitGP's grid on all 300 took 61 ms.
func (set RankSettings) Rank(measured []autotune.Point, fit []float64, cand []autotune.Point, n int) []int {
	if set.MaxTrain <= 0 {
		set.MaxTrain = 300
	}
	if set.GridTrain <= 0 {
		set.GridTrain = 100
	}
	train, y := trainingOf(measured, fit, set.MaxTrain)
	if train == nil || len(cand) == 0 || n <= 0 {
		return nil
	}
	enc := newEncoder(train[0].Len(), train, cand)
	xs, px := enc.all(train), enc.all(cand)
	var gp *GP
	var err error
	if len(xs) <= set.GridTrain {
		gp, err = FitGP(xs, y)
	} else {
		idx := subsample(y, set.GridTrain)
		sx, sy := make([][]float64, len(idx)), make([]float64, len(idx))
		for j, i := range idx {
			sx[j], sy[j] = xs[i], y[i]
		}
		if gp, err = FitGP(sx, sy); err == nil {
			gp, err = gp.refit(xs, y)
		}
	}
	if err != nil {
		return nil
	}
	n = min(n, len(cand))
	if set.EI && set.Believer {
		taken := make([]bool, len(cand))
		var out []int
		for len(out) < n {
			pick, m := gp.argmaxEI(px, taken, slices.Min(y))
			if pick < 0 {
				break
			}
			taken[pick] = true
			out = append(out, pick)
			if len(out) == n {
				break
			}
			xs, y = append(xs, px[pick]), append(y, m)
			if gp, err = gp.extend(xs, y); err != nil {
				break
			}
		}
		return out
	}
	best := slices.Min(y)
	score := make([]float64, len(cand)) // larger is better
	k := make([]float64, gp.n)
	for i, x := range px {
		if set.EI {
			m, sd := gp.Predict(x, k)
			score[i] = expectedImprovement(best, m, sd)
		} else {
			score[i] = -gp.predictMean(x)
		}
	}
	order := make([]int, len(cand))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(score[b], score[a]) })
	return order[:n]
}

// predictMean returns Predict's mean alone, O(n) instead of O(n²).
func (g *GP) predictMean(x []float64) float64 {
	m := g.mean
	for i, xi := range g.x {
		m += matern52(dist(x, xi), g.scale) * g.alpha[i]
	}
	return m
}

// subsample returns the indices, in order, of the best half and the
// latest half of n of key (lower is better).
func subsample(key []float64, n int) []int {
	keep := make([]bool, len(key))
	for i := len(key) - n/2; i < len(key); i++ {
		keep[i] = true
	}
	byKey := make([]int, len(key))
	for i := range byKey {
		byKey[i] = i
	}
	slices.SortStableFunc(byKey, func(i, j int) int { return cmpFloat(key[i], key[j]) })
	kept := n / 2
	for _, i := range byKey {
		if kept >= n {
			break
		}
		if !keep[i] {
			keep[i] = true
			kept++
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// logTimes returns the log times of fit, each failure (+Inf) as the
// slowest time measured, and the number of successes.
func logTimes(fit []float64) ([]float64, int) {
	worst, ok := math.Inf(-1), 0
	for _, f := range fit {
		if !math.IsInf(f, 1) {
			worst = max(worst, math.Log(max(f, 1e-9)))
			ok++
		}
	}
	y := make([]float64, len(fit))
	for i, f := range fit {
		y[i] = worst
		if !math.IsInf(f, 1) {
			y[i] = math.Log(max(f, 1e-9))
		}
	}
	return y, ok
}

// gather returns the points and values at idx.
func gather(pts []autotune.Point, y []float64, idx []int) ([]autotune.Point, []float64) {
	gp, gy := make([]autotune.Point, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		gp[j], gy[j] = pts[i], y[i]
	}
	return gp, gy
}

// trainingOf returns the results to fit: the points and their log times,
// failures as the slowest, at most maxTrain of them (the best half by log
// time and the latest half); nil with fewer than minTrain successes.
func trainingOf(pts []autotune.Point, fit []float64, maxTrain int) ([]autotune.Point, []float64) {
	y, ok := logTimes(fit)
	if ok < minTrain {
		return nil, nil
	}
	if len(pts) <= maxTrain {
		return slices.Clone(pts), y
	}
	return gather(pts, y, subsample(y, maxTrain))
}
