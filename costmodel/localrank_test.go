package costmodel

import (
	"context"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// RankLocal, fitted to 60 random points of gridSpace (343 points, some
// failing), ranks the other points: the mean time of the 10 it ranks
// first, and the time of its first, are within the fastest tenth of the
// candidates'; EI, the believer and the subsampled fits (more results
// than GridTrain and MaxTrain) rank n distinct candidates; with 2
// successes it ranks none.
func TestRankLocal(t *testing.T) {
	space := gridSpace(t)
	r := autotune.NewRand(3)
	all := make([]autotune.Point, space.Size().Int64())
	for i := range all {
		all[i] = space.At(big.NewInt(int64(i)))
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	timeOf := func(p autotune.Point) float64 { return gridTime(context.Background(), p).Fitness() }
	fits := func(ps []autotune.Point) []float64 {
		out := make([]float64, len(ps))
		for i, p := range ps {
			out[i] = timeOf(p)
		}
		return out
	}
	measured, cand := all[:60], all[60:]
	var candMean float64
	var candTimes []float64
	for _, p := range cand {
		if f := timeOf(p); !math.IsInf(f, 1) {
			candMean += f
			candTimes = append(candTimes, f)
		}
	}
	candMean /= float64(len(candTimes))
	slices.Sort(candTimes)
	idx := RankLocal(measured, fits(measured), cand, 10)
	if len(idx) != 10 {
		t.Fatalf("%d ranked, want 10", len(idx))
	}
	var top float64
	for _, i := range idx {
		top += timeOf(cand[i]) / 10 // a failure makes it +Inf
	}
	tenth := candTimes[len(candTimes)/10]
	if top > tenth {
		t.Errorf("mean time of the 10 ranked first %.3g (the candidates' %.3g): want at most the fastest tenth's slowest, %.3g", top, candMean, tenth)
	}
	if first := timeOf(cand[idx[0]]); first > tenth {
		t.Errorf("first ranked %.3g, want among the fastest tenth (at most %.3g)", first, tenth)
	}
	for _, set := range []RankSettings{{EI: true}, {EI: true, Believer: true}, {MaxTrain: 100, GridTrain: 40}} {
		m := all[:250]
		got := set.Rank(m, fits(m), all[250:], 10)
		seen := map[int]bool{}
		for _, i := range got {
			seen[i] = true
		}
		if len(got) != 10 || len(seen) != 10 || slices.Min(got) < 0 || slices.Max(got) >= len(all)-250 {
			t.Errorf("%+v: ranked %v, want 10 distinct candidates", set, got)
		}
	}
	two := []autotune.Point{space.At(big.NewInt(0)), space.At(big.NewInt(1)), space.At(big.NewInt(342))}
	if got := RankLocal(two, []float64{1, 2, math.Inf(1)}, cand, 10); got != nil {
		t.Errorf("with 2 successes ranked %v, want none", got)
	}
}
