package costmodel

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// GP is a Gaussian-process regressor: a Matérn 5/2 covariance of one
// length scale over the inputs (scaled to about [0, 1]), a constant mean
// (that of the targets) and a noise term. FitGP chooses the length scale
// and the noise by the marginal likelihood, from a grid, the signal's
// variance in closed form. Predict gives a mean and a standard deviation:
// what Bayesian optimization needs to weigh a point's promise against its
// uncertainty.
type GP struct {
	x     [][]float64
	mean  float64   // of the targets
	alpha []float64 // K⁻¹(y - mean)
	l     []float64 // Cholesky factor of K, lower, row-major n×n
	n     int
	scale float64 // length scale
	sig2  float64 // signal variance
	noise float64 // noise variance, relative to sig2
}

// The grids FitGP searches.
var (
	gpScales = []float64{0.1, 0.17, 0.3, 0.5, 0.8, 1.3, 2}
	gpNoises = []float64{1e-4, 1e-3, 1e-2, 0.05, 0.2}
)

// matern52 is the Matérn 5/2 correlation at distance r over length scale
// s.
func matern52(r, s float64) float64 {
	d := math.Sqrt(5) * r / s
	return (1 + d + d*d/3) * math.Exp(-d)
}

func dist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// FitGP fits a GP to the samples x (inputs) and y (targets), choosing the
// length scale and the noise of the largest marginal likelihood. It needs
// at least 2 samples.
func FitGP(x [][]float64, y []float64) (*GP, error) {
	return fitGP(x, y, gpScales, gpNoises)
}

// refit fits a GP of g's length scale and noise to x and y: one
// factorization instead of FitGP's grid.
func (g *GP) refit(x [][]float64, y []float64) (*GP, error) {
	return fitGP(x, y, []float64{g.scale}, []float64{g.noise})
}

// fitGP is FitGP over the given grid. The grid's length scales are fitted
// in parallel (one goroutine per CPU), and the first point of the largest
// likelihood in grid order is kept, as a loop over the grid would.
func fitGP(x [][]float64, y []float64, scales, noises []float64) (*GP, error) {
	gp, _, err := fitGPL(x, y, scales, noises)
	return gp, err
}

// fitGPL is fitGP, also returning the log marginal likelihood (constants
// left out) of the GP it keeps.
func fitGPL(x [][]float64, y []float64, scales, noises []float64) (*GP, float64, error) {
	n := len(x)
	if n < 2 || len(y) != n {
		return nil, 0, errors.New("costmodel: a GP needs at least 2 samples")
	}
	mean, yc := centred(y)
	d := make([]float64, n*n)
	for i := range n {
		for j := range i {
			d[i*n+j] = dist(x[i], x[j])
		}
	}
	type cand struct {
		ok  bool
		lml float64
		gp  *GP
	}
	grid := len(scales) * len(noises)
	cands := make([]cand, grid)
	parallel(len(scales), func(lo, hi int) {
		// kb holds the correlations of the current length scale above the
		// diagonal (row-major, upper), u a copy of it factorized in place
		// (K = UᵀU) for each noise. LAPACK's Cholesky factorization and
		// its solve (solveUpper's, the same operations) as mat.Cholesky
		// calls them, without the condition number it estimates after
		// each factorization (a tenth of a replay's time): K's least
		// eigenvalue is at least the noise (the Matérn correlations are
		// positive semidefinite), 1e-4 or more, so its condition number
		// stays far below mat.ConditionTolerance.
		kb := make([]float64, n*n)
		u := make([]float64, n*n)
		for g := lo * len(noises); g < hi*len(noises); g++ {
			s, noise := scales[g/len(noises)], noises[g%len(noises)]
			if g%len(noises) == 0 {
				for i := range n {
					for j := range i {
						kb[j*n+i] = matern52(d[i*n+j], s)
					}
				}
			}
			copy(u, kb)
			for i := range n {
				u[i*n+i] = 1 + noise
			}
			tri, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: u})
			if !ok {
				continue
			}
			alpha := slices.Clone(yc)
			solveUpper(tri.Data, n, alpha)
			// The signal variance of the largest likelihood is y'K⁻¹y/n;
			// the log likelihood, constants left out, follows.
			quad := blas64.Dot(blas64.Vector{N: n, Inc: 1, Data: alpha}, blas64.Vector{N: n, Inc: 1, Data: yc})
			sig2 := max(quad/float64(n), 1e-12)
			var logDet float64
			for i := range n {
				logDet += 2 * math.Log(u[i*n+i])
			}
			lml := -float64(n)/2*math.Log(sig2) - logDet/2
			l := make([]float64, n*n) // L = Uᵀ
			for i := range n {
				for j := 0; j <= i; j++ {
					l[i*n+j] = u[j*n+i]
				}
			}
			cands[g] = cand{true, lml, &GP{x: x, mean: mean, alpha: alpha, l: l, n: n, scale: s, sig2: sig2, noise: noise}}
		}
	})
	var best *GP
	bestLML := math.Inf(-1)
	for _, c := range cands {
		if c.ok && c.lml > bestLML {
			bestLML, best = c.lml, c.gp
		}
	}
	if best == nil {
		return nil, 0, errors.New("costmodel: no covariance of the grid factorizes")
	}
	return best, bestLML, nil
}

// centred returns the mean of y (the GP's constant mean) and y less it.
func centred(y []float64) (mean float64, yc []float64) {
	for _, v := range y {
		mean += v / float64(len(y))
	}
	yc = make([]float64, len(y))
	for i, v := range y {
		yc[i] = v - mean
	}
	return mean, yc
}

// solveUpper solves UᵀU x = b for x in place, U upper triangular, n×n,
// row-major in u: the operations of LAPACK's Potrs with one right-hand
// side (gonum's Dtrsm, Uᵀ then U, each diagonal applied as the product
// with its reciprocal, zeros of U skipped), in the same order, so the
// same x to the bit, without Dtrsm's call per element of a column of one.
// The conversions keep each product rounded (no fused multiply-add).
func solveUpper(u []float64, n int, b []float64) {
	for k := range n {
		b[k] *= 1 / u[k*n+k]
		bk := b[k]
		for ia, va := range u[k*n+k+1 : k*n+n] {
			if va != 0 {
				b[k+1+ia] += float64(-va * bk)
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for ka, va := range u[i*n+i+1 : i*n+n] {
			if va != 0 {
				s += float64(-va * b[i+1+ka])
			}
		}
		b[i] = s * (1 / u[i*n+i])
	}
}

// workers is the number of goroutines parallel uses (tests vary it: the
// results never depend on it).
var workers = runtime.NumCPU()

// parallel calls f on consecutive parts [lo, hi) of [0, n), one goroutine
// per worker, and returns when all are done.
func parallel(n int, f func(lo, hi int)) {
	w := min(workers, n)
	if w <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// Predict returns the predicted mean and standard deviation (of the
// underlying function, without the noise) at x. k is scratch space of
// the number of samples, or nil.
func (g *GP) Predict(x []float64, k []float64) (mean, sd float64) {
	return g.predict(x, k, nil)
}

// predict is Predict with x's correlations with the samples taken from
// corr where it holds them (a corrCache row), computed where not.
func (g *GP) predict(x []float64, k []float64, corr []float64) (mean, sd float64) {
	if len(k) < g.n {
		k = make([]float64, g.n)
	}
	k = k[:g.n]
	mean = g.mean
	for i, xi := range g.x {
		if i < len(corr) {
			k[i] = corr[i]
		} else {
			k[i] = matern52(dist(x, xi), g.scale)
		}
		mean += k[i] * g.alpha[i]
	}
	// v = L⁻¹k in place; the variance is sig2 (1 - v'v).
	vv := 0.0
	for i := range g.n {
		s := k[i]
		row := g.l[i*g.n:]
		for j := range i {
			s -= row[j] * k[j]
		}
		k[i] = s / row[i]
		vv += k[i] * k[i]
	}
	return mean, math.Sqrt(g.sig2 * max(1-vv, 1e-12))
}

// argmaxEI returns the index of the first of xs (skipping those taken)
// of the largest expected improvement over best, and its predicted mean;
// -1 when none has one. It is the loop over xs calling Predict, made
// cheaper without changing its answer: the means and an upper bound of
// each point's expected improvement are computed first (in parallel), and
// Predict's variance, O(n²) a point, only for the points in decreasing
// order of that bound while the bound can still beat the best found.
//
// The bound: the variance is sig2 (1 - k'K⁻¹k), and k'K⁻¹k is at least
// kᵢ²/Kᵢᵢ for every sample i, so the standard deviation is at most
// sqrt(sig2 (1 - maxᵢ kᵢ²/(1+noise))); expected improvement grows with it.
func (g *GP) argmaxEI(xs [][]float64, taken []bool, best float64) (pick int, mean float64) {
	picks, means := g.topEI(xs, taken, best, 1)
	if len(picks) == 0 {
		return -1, 0
	}
	return picks[0], means[0]
}

// topEI returns the indices of the k points of xs (skipping those taken)
// of the largest expected improvement over best, the largest first (ties
// by index), with their predicted means: argmaxEI's answer, then the
// points it would give with each one before taken. The same bound limits
// the points whose variance is computed.
func (g *GP) topEI(xs [][]float64, taken []bool, best float64, k int) (picks []int, means []float64) {
	return g.topEICached(xs, taken, best, k, nil)
}

// corrCache keeps the correlations of a round's candidates with its
// samples, at one length scale, for the round's later choices: within a
// round the samples only grow (the kriging believer appends each point
// chosen), and the grid often keeps the length scale, so the next fit's
// correlations are mostly those computed already (the exponentials were
// a quarter of a replay's time). rows[i] holds candidate i's correlations
// with the first len(rows[i]) samples; x the samples they were computed
// with. A different length scale or samples that are not the same
// prefix empty it.
type corrCache struct {
	scale float64
	x     [][]float64
	rows  [][]float64
}

// newCorrCache returns an empty cache for n candidates.
func newCorrCache(n int) *corrCache { return &corrCache{rows: make([][]float64, n)} }

// use readies c for g's samples and length scale: its rows are kept when
// g's samples begin with those they were computed with, at the same
// length scale, and emptied otherwise. A nil c stays nil.
func (c *corrCache) use(g *GP) {
	if c == nil {
		return
	}
	keep := c.scale == g.scale && len(c.x) <= len(g.x)
	for j := 0; keep && j < len(c.x); j++ {
		keep = len(c.x[j]) > 0 && len(g.x[j]) > 0 && &c.x[j][0] == &g.x[j][0]
	}
	if !keep {
		for i := range c.rows {
			c.rows[i] = c.rows[i][:0]
		}
	}
	c.scale, c.x = g.scale, g.x
}

// keepCorrelations has Bayes keep its candidates' correlations with the
// samples through a round and into the next (corrCache, corrCarry);
// tests turn it off to check that the searches are the same without.
var keepCorrelations = true

// corrCarry is a round's correlations kept for the next round of
// Bayes: each candidate's (by its key) with the round's measured samples
// (the kriging believer's left out), at the length scale of the round's
// last choice, and the encoder and samples they were computed with. The
// next round's measured samples begin with the same points, and in a
// space scored whole its encoder is usually the same: its correlations
// with them are then those computed already, and only its first choice's
// correlations with the samples measured since are new.
type corrCarry struct {
	lo, hi, w []float64 // the encoder's
	scale     float64
	x         [][]float64
	rows      map[string][]float64
}

// carryOf keeps c's correlations with the samples x (c's first ones,
// measured), for the candidates of the given keys (c's rows in order),
// encoded by enc.
func carryOf(c *corrCache, enc *encoder, x [][]float64, keys []string) *corrCarry {
	if c == nil || len(c.x) < len(x) {
		return nil
	}
	out := &corrCarry{lo: enc.lo, hi: enc.hi, w: enc.w, scale: c.scale, x: x, rows: make(map[string][]float64, len(keys))}
	for i, k := range keys {
		if r := c.rows[i]; len(r) > 0 {
			// A copy: the round's guess (Likely) may still use c.
			out.rows[k] = slices.Clone(r[:min(len(r), len(x))])
		}
	}
	return out
}

// seed returns the cache of a round's pool (the candidates of the given
// keys) encoded by enc, its measured samples x: with the correlations
// carried over when enc is the encoder they were computed with and x
// begins with the same samples (by value), else empty.
func (cc *corrCarry) seed(enc *encoder, x [][]float64, keys []string) *corrCache {
	c := newCorrCache(len(keys))
	if cc == nil || len(cc.x) > len(x) || !slices.Equal(cc.lo, enc.lo) || !slices.Equal(cc.hi, enc.hi) || !slices.Equal(cc.w, enc.w) {
		return c
	}
	for j := range cc.x {
		if !slices.Equal(cc.x[j], x[j]) {
			return c
		}
	}
	c.scale, c.x = cc.scale, x[:len(cc.x)]
	for i, k := range keys {
		c.rows[i] = cc.rows[k]
	}
	return c
}

// topEICached is topEI with xs's correlations with the samples kept in
// cache (candidate i of xs is its row i), or computed each time when
// cache is nil: the same answer either way.
func (g *GP) topEICached(xs [][]float64, taken []bool, best float64, k int, cache *corrCache) (picks []int, means []float64) {
	cache.use(g)
	ub := make([]float64, len(xs))
	parallel(len(xs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if taken[i] {
				ub[i] = math.Inf(-1)
				continue
			}
			m, kmax := cache.meanOf(g, i, xs[i])
			sd := math.Sqrt(g.sig2*max(1-kmax/(1+g.noise), 1e-12)) * (1 + 1e-6)
			ub[i] = expectedImprovement(best, m, sd)
			if math.IsNaN(ub[i]) {
				ub[i] = math.Inf(1)
			}
		}
	})
	order := make([]int, 0, len(xs))
	for i := range xs {
		if !taken[i] {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmpFloat(ub[j], ub[i]) })
	type scored struct {
		i        int
		ei, mean float64
	}
	var top []scored // the k best so far, the largest first
	better := func(a, b scored) bool { return a.ei > b.ei || a.ei == b.ei && a.i < b.i }
	chunk := 4 * workers
	ei := make([]float64, chunk)
	ms := make([]float64, chunk)
	for start := 0; start < len(order); start += chunk {
		// A point whose bound is below the k-th found cannot be among
		// them (the margin covers rounding).
		if len(top) == k {
			if last := top[k-1].ei; ub[order[start]] < last-1e-9*math.Abs(last) {
				break
			}
		}
		part := order[start:min(start+chunk, len(order))]
		parallel(len(part), func(lo, hi int) {
			kv := make([]float64, g.n)
			for c := lo; c < hi; c++ {
				m, sd := g.predict(xs[part[c]], kv, cache.row(part[c]))
				ms[c], ei[c] = m, expectedImprovement(best, m, sd)
			}
		})
		for c, i := range part {
			s := scored{i, ei[c], ms[c]}
			if math.IsNaN(s.ei) || len(top) == k && !better(s, top[k-1]) {
				continue
			}
			at := len(top)
			for at > 0 && better(s, top[at-1]) {
				at--
			}
			top = slices.Insert(top, at, s)
			if len(top) > k {
				top = top[:k]
			}
		}
	}
	for _, s := range top {
		picks, means = append(picks, s.i), append(means, s.mean)
	}
	return picks, means
}

// meanOf returns the predicted mean at x and the largest squared
// correlation of x with a sample, the correlations taken from corr where
// it holds them and computed after; with keep, corr with those computed
// appended (a corrCache row), else corr as given.
func (g *GP) meanOf(x, corr []float64, keep bool) (mean, kmax float64, row []float64) {
	mean = g.mean
	for j, xj := range g.x {
		var k float64
		if j < len(corr) {
			k = corr[j]
		} else {
			k = matern52(dist(x, xj), g.scale)
			if keep {
				corr = append(corr, k)
			}
		}
		mean += k * g.alpha[j]
		kmax = max(kmax, k*k)
	}
	return mean, kmax, corr
}

// row returns candidate i's correlations kept so far (nil c: none).
func (c *corrCache) row(i int) []float64 {
	if c == nil {
		return nil
	}
	return c.rows[i]
}

// meanOf is g.meanOf at x, candidate i of c's round, its correlations
// read from c's row i and the ones computed kept there (nil c: computed
// each time, none kept).
func (c *corrCache) meanOf(g *GP, i int, x []float64) (mean, kmax float64) {
	mean, kmax, row := g.meanOf(x, c.row(i), c != nil)
	if c != nil {
		c.rows[i] = row
	}
	return mean, kmax
}

// lowestMean returns the index of the point of xs (skipping those taken)
// of the lowest predicted mean, and that mean, when it is below below;
// -1 when none is left or the lowest is not below. It
// reads and fills cache's rows as topEICached does (nil: none), and needs
// no variance: O(n) a point.
func (g *GP) lowestMean(xs [][]float64, taken []bool, below float64, cache *corrCache) (pick int, mean float64) {
	cache.use(g)
	ms := make([]float64, len(xs))
	parallel(len(xs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !taken[i] {
				ms[i], _ = cache.meanOf(g, i, xs[i])
			}
		}
	})
	pick = -1
	for i, m := range ms {
		if !taken[i] && !math.IsNaN(m) && (pick < 0 || m < ms[pick]) {
			pick = i
		}
	}
	if pick < 0 || !(ms[pick] < below) {
		return -1, 0
	}
	return pick, ms[pick]
}

// extend returns the GP of g's length scale and noise fitted to x and y,
// g's samples followed by one more: the Cholesky factor grows by a row,
// O(n²), instead of being computed anew, O(n³). It is refit up to
// rounding (the factor's new row is solved for, not factorized), and
// falls back on refit when the new row is not positive.
func (g *GP) extend(x [][]float64, y []float64) (*GP, error) {
	n := g.n + 1
	if len(x) != n || len(y) != n {
		return g.refit(x, y)
	}
	l := make([]float64, n*n)
	for i := range g.n {
		copy(l[i*n:i*n+i+1], g.l[i*g.n:i*g.n+i+1])
	}
	// The new row z solves L z = k; its diagonal is sqrt(1+noise - z'z).
	row := l[g.n*n:]
	zz := 0.0
	for i := range g.n {
		s := matern52(dist(x[g.n], x[i]), g.scale)
		for j := range i {
			s -= l[i*n+j] * row[j]
		}
		row[i] = s / l[i*n+i]
		zz += row[i] * row[i]
	}
	d := 1 + g.noise - zz
	if !(d > 0) {
		return g.refit(x, y)
	}
	row[g.n] = math.Sqrt(d)
	mean, yc := centred(y)
	// alpha = K⁻¹(y - mean) = L'⁻¹ L⁻¹ (y - mean).
	w := make([]float64, n)
	for i := range yc {
		s := yc[i]
		for j := range i {
			s -= l[i*n+j] * w[j]
		}
		w[i] = s / l[i*n+i]
	}
	alpha := make([]float64, n)
	quad := 0.0
	for i := n - 1; i >= 0; i-- {
		s := w[i]
		for j := i + 1; j < n; j++ {
			s -= l[j*n+i] * alpha[j]
		}
		alpha[i] = s / l[i*n+i]
		quad += alpha[i] * yc[i]
	}
	return &GP{x: x, mean: mean, alpha: alpha, l: l, n: n, scale: g.scale, sig2: max(quad/float64(n), 1e-12), noise: g.noise}, nil
}
