package costmodel

import (
	"math"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"gonum.org/v1/gonum/mat"
)

// argmaxEI picks what the plain loop over Predict picks: the first point of
// the largest expected improvement, with its mean, whatever the number of
// workers and the points already taken.
func TestArgmaxEIIsPlainLoop(t *testing.T) {
	defer func(w int) { workers = w }(workers)
	r := autotune.NewRand(7)
	for trial := range 30 {
		dim, n, m := 2+trial%5, 5+trial*7, 50+trial*31
		var x, cand [][]float64
		var y []float64
		for range n {
			v := make([]float64, dim)
			for k := range v {
				v[k] = r.Float64()
			}
			x, y = append(x, v), append(y, math.Sin(3*v[0])+v[1]*v[1]+0.1*r.Float64())
		}
		for i := range m {
			v := make([]float64, dim)
			for k := range v {
				v[k] = r.Float64() * 1.2
			}
			if i%9 == 0 { // a sample again: no improvement expected
				copy(v, x[i%n])
			}
			cand = append(cand, v)
		}
		gp, err := FitGP(x, y)
		if err != nil {
			t.Fatal(err)
		}
		taken := make([]bool, m)
		for i := range taken {
			taken[i] = r.IntN(5) == 0
		}
		best := y[0]
		for _, v := range y {
			best = min(best, v)
		}
		best -= 0.01 * float64(trial%3)
		want, wantEI, wantMean := -1, math.Inf(-1), 0.0
		for i, c := range cand {
			if taken[i] {
				continue
			}
			mean, sd := gp.Predict(c, nil)
			if ei := expectedImprovement(best, mean, sd); ei > wantEI {
				want, wantEI, wantMean = i, ei, mean
			}
		}
		for _, w := range []int{1, 2, 3, 8} {
			workers = w
			got, mean := gp.argmaxEI(cand, taken, best)
			if got != want || mean != wantMean {
				t.Errorf("trial %d, %d workers: pick %d (mean %v), want %d (mean %v)", trial, w, got, mean, want, wantMean)
			}
		}
	}
}

// refit keeps the length scale and the noise and fits the new samples as
// FitGP does when its grid holds only them.
func TestGPRefit(t *testing.T) {
	x := [][]float64{{0}, {0.3}, {0.5}, {0.9}}
	y := []float64{1, 0.2, 0.4, 1.5}
	gp, err := FitGP(x, y)
	if err != nil {
		t.Fatal(err)
	}
	x2, y2 := append(x, []float64{0.7}), append(y, 0.9)
	re, err := gp.refit(x2, y2)
	if err != nil {
		t.Fatal(err)
	}
	if re.scale != gp.scale || re.noise != gp.noise || re.n != 5 {
		t.Errorf("refit: scale %v noise %v n %d, want %v %v 5", re.scale, re.noise, re.n, gp.scale, gp.noise)
	}
	if m, _ := re.Predict([]float64{0.7}, nil); math.Abs(m-0.9) > 0.2 {
		t.Errorf("refit predicts %.3f at a new sample of 0.9", m)
	}
}

// A search is the same whatever the number of workers, also beyond
// MaxTrain/2 results, where the length scale and noise are chosen from the
// grid only every Refit results.
func TestBayesWorkersDeterministic(t *testing.T) {
	defer func(w int) { workers = w }(workers)
	s := gridSpace(t)
	run := func(w int, set BayesSettings) []autotune.Eval {
		workers = w
		b := NewBayes(s, autotune.NewRand(5), set)
		return tuneGrid(t, s, b, 70).History
	}
	for _, set := range []BayesSettings{
		{MaxTrain: 30, Refit: 7},
		{MaxTrain: 30, Refit: 7, Batch: 4, Local: 3, LocalBest: 2},
	} {
		want := run(1, set)
		for _, w := range []int{2, 5} {
			got := run(w, set)
			if len(got) != len(want) {
				t.Fatalf("%+v, %d workers: %d evaluations, want %d", set, w, len(got), len(want))
			}
			for i := range got {
				if !got[i].Point.Equal(want[i].Point) {
					t.Errorf("%+v, %d workers: evaluation %d is %v, want %v", set, w, i, got[i].Point, want[i].Point)
					break
				}
			}
		}
	}
}

// extend gives the GP refit gives, up to rounding.
func TestGPExtend(t *testing.T) {
	r := autotune.NewRand(3)
	var x [][]float64
	var y []float64
	for range 60 {
		v := []float64{r.Float64(), r.Float64(), r.Float64()}
		x, y = append(x, v), append(y, math.Cos(4*v[0])+v[1]-v[2]*v[2])
	}
	gp, err := FitGP(x[:59], y[:59])
	if err != nil {
		t.Fatal(err)
	}
	ext, err := gp.extend(x, y)
	if err != nil {
		t.Fatal(err)
	}
	re, err := gp.refit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ext.sig2-re.sig2) > 1e-9*re.sig2 {
		t.Errorf("extend: signal variance %v, refit %v", ext.sig2, re.sig2)
	}
	for range 50 {
		v := []float64{r.Float64(), r.Float64(), r.Float64()}
		m1, s1 := ext.Predict(v, nil)
		m2, s2 := re.Predict(v, nil)
		if math.Abs(m1-m2) > 1e-6 || math.Abs(s1-s2) > 1e-6 {
			t.Errorf("at %v: extend %v ± %v, refit %v ± %v", v, m1, s1, m2, s2)
		}
	}
}

// fitGPCholesky is fitGP as it was written with mat.Cholesky (before
// 2026-12-03), its condition number estimated after each factorization
// and a grid point whose solve reports it too large skipped: the
// reference TestFitGPIsCholesky holds fitGP to.
func fitGPCholesky(x [][]float64, y []float64, scales, noises []float64) *GP {
	n := len(x)
	mean, yc := centred(y) // unchanged by the rewrite
	var best *GP
	bestLML := math.Inf(-1)
	for _, s := range scales {
		for _, noise := range noises {
			k := mat.NewSymDense(n, nil)
			for i := range n {
				for j := range i {
					k.SetSym(i, j, matern52(dist(x[i], x[j]), s))
				}
				k.SetSym(i, i, 1+noise)
			}
			var chol mat.Cholesky
			if !chol.Factorize(k) {
				continue
			}
			alpha := mat.NewVecDense(n, nil)
			if err := chol.SolveVecTo(alpha, mat.NewVecDense(n, yc)); err != nil {
				continue
			}
			quad := mat.Dot(alpha, mat.NewVecDense(n, yc))
			sig2 := max(quad/float64(n), 1e-12)
			lml := -float64(n)/2*math.Log(sig2) - chol.LogDet()/2
			if lml <= bestLML {
				continue
			}
			var lt mat.TriDense
			chol.LTo(&lt)
			l := make([]float64, n*n)
			for i := range n {
				for j := 0; j <= i; j++ {
					l[i*n+j] = lt.At(i, j)
				}
			}
			bestLML = lml
			best = &GP{x: x, mean: mean, alpha: alpha.RawVector().Data, l: l, n: n, scale: s, sig2: sig2, noise: noise}
		}
	}
	return best
}

// fitGP, which calls LAPACK's factorization and solve directly, fits
// exactly the GP mat.Cholesky's fit did: the same length scale, noise,
// signal variance, factor and weights, bit for bit, on samples of several
// sizes and dimensions, some of them repeated (the replays' figures rest
// on it), whatever the number of workers.
func TestFitGPIsCholesky(t *testing.T) {
	defer func(w int) { workers = w }(workers)
	r := autotune.NewRand(11)
	for trial := range 24 {
		dim, n := 1+trial%6, 2+trial*9
		var x [][]float64
		var y []float64
		for i := range n {
			v := make([]float64, dim)
			for k := range v {
				v[k] = float64(r.IntN(5)) / 4 // a grid: neighbours and repeats
			}
			if i%7 == 3 {
				copy(v, x[i/2])
			}
			x, y = append(x, v), append(y, math.Log(1+v[0]+3*v[dim-1]*v[dim-1])+0.05*r.Float64())
		}
		want := fitGPCholesky(x, y, gpScales, gpNoises)
		for _, w := range []int{1, 3} {
			workers = w
			got, err := FitGP(x, y)
			if err != nil {
				t.Fatalf("trial %d (n=%d): %v", trial, n, err)
			}
			if got.scale != want.scale || got.noise != want.noise || got.sig2 != want.sig2 || got.mean != want.mean {
				t.Fatalf("trial %d (n=%d, %d workers): scale %g noise %g sig2 %g mean %g, want %g %g %g %g", trial, n, w, got.scale, got.noise, got.sig2, got.mean, want.scale, want.noise, want.sig2, want.mean)
			}
			if !slices.Equal(got.alpha, want.alpha) || !slices.Equal(got.l, want.l) {
				t.Fatalf("trial %d (n=%d, %d workers): the weights or the factor differ from mat.Cholesky's", trial, n, w)
			}
		}
	}
}

// A round's choices with the correlations kept (topEICached, as Bayes
// makes them) are those made without: the kriging believer's samples
// appended, the length scale changing between fits, samples that are
// copies rather than the same prefix, candidates that are a prefix of the
// pool, whatever the number of workers.
func TestTopEICachedIsUncached(t *testing.T) {
	defer func(w int) { workers = w }(workers)
	r := autotune.NewRand(5)
	for trial := range 12 {
		workers = 1 + trial%3
		dim, n, m := 2+trial%4, 6+trial*5, 80+trial*23
		var xs, px [][]float64
		var y []float64
		for range n {
			v := make([]float64, dim)
			for k := range v {
				v[k] = float64(r.IntN(6)) / 5
			}
			xs, y = append(xs, v), append(y, math.Sin(2*v[0])+v[dim-1]+0.05*r.Float64())
		}
		for range m {
			v := make([]float64, dim)
			for k := range v {
				v[k] = float64(r.IntN(6)) / 5
			}
			px = append(px, v)
		}
		cache := newCorrCache(len(px))
		taken := make([]bool, len(px))
		for step := range 8 {
			var gp *GP
			var err error
			switch step % 4 {
			case 2: // another length scale
				gp, err = fitGP(xs, y, []float64{gpScales[step%len(gpScales)]}, []float64{1e-3})
			case 3: // the same samples, copied: not the prefix kept
				cp := make([][]float64, len(xs))
				for i := range xs {
					cp[i] = slices.Clone(xs[i])
				}
				gp, err = FitGP(cp, y)
			default:
				gp, err = FitGP(xs, y)
			}
			if err != nil {
				t.Fatal(err)
			}
			cand := px
			if step%2 == 1 {
				cand = px[:m/3]
			}
			best := slices.Min(y)
			k := 1 + step%3
			want, wantMeans := gp.topEI(cand, taken, best, k)
			got, gotMeans := gp.topEICached(cand, taken, best, k, cache)
			if !slices.Equal(got, want) || !slices.Equal(gotMeans, wantMeans) {
				t.Fatalf("trial %d step %d: %v %v with the cache, want %v %v", trial, step, got, gotMeans, want, wantMeans)
			}
			if len(want) == 0 {
				break
			}
			taken[want[0]] = true
			xs, y = append(xs, px[want[0]]), append(y, wantMeans[0])
		}
	}
}

// Bayes makes the same search with its candidates' correlations kept
// through a round and carried into the next as without them: plain
// rounds, batches with local points around the minima, and a training
// set subsampled beyond MaxTrain (its samples no longer the last round's
// prefix), whatever the number of workers.
func TestBayesCorrelationsKept(t *testing.T) {
	defer func(w int, k bool) { workers, keepCorrelations = w, k }(workers, keepCorrelations)
	s := gridSpace(t)
	run := func(keep bool, w int, set BayesSettings) []autotune.Eval {
		keepCorrelations, workers = keep, w
		b := NewBayes(s, autotune.NewRand(9), set)
		return tuneGrid(t, s, b, 80).History
	}
	for _, set := range []BayesSettings{
		{},
		{Batch: 4, Local: 3, LocalBest: 2, Minima: true, Anchored: true},
		{MaxTrain: 30, Refit: 7, Batch: 4, Local: 3, LocalBest: 2},
	} {
		want := run(false, 1, set)
		for _, w := range []int{1, 3} {
			got := run(true, w, set)
			if len(got) != len(want) {
				t.Fatalf("%+v, %d workers: %d evaluations, want %d", set, w, len(got), len(want))
			}
			for i := range got {
				if !got[i].Point.Equal(want[i].Point) {
					t.Fatalf("%+v, %d workers: evaluation %d is %v, want %v", set, w, i, got[i].Point, want[i].Point)
				}
			}
		}
	}
}
