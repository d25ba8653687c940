package costmodel

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
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
	n := len(x)
	if n < 2 || len(y) != n {
		return nil, errors.New("costmodel: a GP needs at least 2 samples")
	}
	mean := 0.0
	for _, v := range y {
		mean += v / float64(n)
	}
	yc := make([]float64, n)
	for i, v := range y {
		yc[i] = v - mean
	}
	d := make([]float64, n*n)
	for i := range n {
		for j := range i {
			d[i*n+j] = dist(x[i], x[j])
		}
	}
	var best *GP
	bestLML := math.Inf(-1)
	k := mat.NewSymDense(n, nil)
	var chol mat.Cholesky
	for _, s := range gpScales {
		for _, noise := range gpNoises {
			for i := range n {
				k.SetSym(i, i, 1+noise)
				for j := range i {
					k.SetSym(i, j, matern52(d[i*n+j], s))
				}
			}
			if !chol.Factorize(k) {
				continue
			}
			alpha := mat.NewVecDense(n, nil)
			if err := chol.SolveVecTo(alpha, mat.NewVecDense(n, yc)); err != nil {
				continue
			}
			// The signal variance of the largest likelihood is y'K⁻¹y/n;
			// the log likelihood, constants left out, follows.
			quad := mat.Dot(alpha, mat.NewVecDense(n, yc))
			sig2 := max(quad/float64(n), 1e-12)
			lml := -float64(n)/2*math.Log(sig2) - chol.LogDet()/2
			if lml > bestLML {
				var lt mat.TriDense
				chol.LTo(&lt)
				raw := lt.RawTriangular()
				l := make([]float64, n*n)
				for i := range n {
					copy(l[i*n:i*n+i+1], raw.Data[i*raw.Stride:i*raw.Stride+i+1])
				}
				bestLML = lml
				best = &GP{x: x, mean: mean, alpha: append([]float64(nil), alpha.RawVector().Data...), l: l, n: n, scale: s, sig2: sig2, noise: noise}
			}
		}
	}
	if best == nil {
		return nil, errors.New("costmodel: no covariance of the grid factorizes")
	}
	return best, nil
}

// Predict returns the predicted mean and standard deviation (of the
// underlying function, without the noise) at x. k is scratch space of
// the number of samples, or nil.
func (g *GP) Predict(x []float64, k []float64) (mean, sd float64) {
	if len(k) < g.n {
		k = make([]float64, g.n)
	}
	k = k[:g.n]
	mean = g.mean
	for i, xi := range g.x {
		k[i] = matern52(dist(x, xi), g.scale)
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
