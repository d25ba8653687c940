// Package costmodel predicts the time of a kernel variant from its tuning
// parameters, and searches with the prediction: Model is the two-stage
// model-guided strategy of Falch & Elster ("Machine learning-based
// auto-tuning for enhanced performance portability of OpenCL
// applications"): a regression model trained on a random sample of the
// space predicts the times of the space (or of a large sample of it), and
// the points predicted fastest are measured. Bayes is Bayesian
// optimization: a Gaussian process (GP) fitted to every result chooses
// each next point by its expected improvement.
//
// The regressor is theirs: bagged neural networks with one hidden layer of
// sigmoid units, trained on the logarithm of the times (so that the squared
// error is a relative one), failed points left out. The networks are
// trained with gonum's L-BFGS, in parallel. Everything draws from the
// *rand.Rand it is given, so a search is reproduced by its seed.
package costmodel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// MLPSettings controls the networks. The zero value gives the defaults
// below.
type MLPSettings struct {
	// Hidden is the number of sigmoid units of the hidden layer. Default
	// 20 (Falch & Elster use 40 to 70 with thousands of samples; ours
	// are smaller).
	Hidden int
	// Bags is the number of networks: the samples are split into Bags
	// parts and each network is trained on all but one (Falch & Elster's
	// bagging); the prediction is their mean. Default 11 (theirs), at
	// most the number of samples.
	Bags int
	// Iterations is the largest number of L-BFGS iterations per network.
	// Default 200.
	Iterations int
	// L2 is the weight decay: L2 times the sum of the squared weights is
	// added to the mean squared error. Default 1e-4; negative for none.
	L2 float64
}

func (s MLPSettings) withDefaults() MLPSettings {
	if s.Hidden <= 0 {
		s.Hidden = 20
	}
	if s.Bags <= 0 {
		s.Bags = 11
	}
	if s.Iterations <= 0 {
		s.Iterations = 200
	}
	switch {
	case s.L2 == 0:
		s.L2 = 1e-4
	case s.L2 < 0:
		s.L2 = 0
	}
	return s
}

// MLP is a bag of one-hidden-layer networks: a regressor of y from x.
// Inputs are expected scaled to about [0, 1] and targets standardized
// (Model does both); Fit then Predict.
type MLP struct {
	set  MLPSettings
	r    *rand.Rand
	dim  int
	nets [][]float64 // weights of each network: W1 (Hidden×dim), b1, w2, b2
}

// NewMLP returns an untrained regressor whose initial weights and bags are
// drawn from r.
func NewMLP(r *rand.Rand, set MLPSettings) *MLP {
	return &MLP{set: set.withDefaults(), r: r}
}

// Fit trains the networks on the rows of x (all of one length) and their
// targets y. It needs at least 2 rows.
func (m *MLP) Fit(x [][]float64, y []float64) error {
	n := len(x)
	if n < 2 || len(y) != n {
		return fmt.Errorf("costmodel: %d inputs and %d targets, want at least 2 of each, as many", n, len(y))
	}
	m.dim = len(x[0])
	for i, row := range x {
		if len(row) != m.dim {
			return fmt.Errorf("costmodel: input %d has %d values, input 0 has %d", i, len(row), m.dim)
		}
	}
	bags := min(m.set.Bags, n)
	// Split a permutation of the rows into bags parts; network b leaves
	// part b out (with one network, none). The random draws are made here,
	// in order; the networks are then trained in parallel, each
	// deterministically from its initial weights.
	perm := m.r.Perm(n)
	type job struct {
		x   [][]float64
		y   []float64
		w0  []float64
		w   []float64
		err error
	}
	jobs := make([]job, bags)
	for b := range jobs {
		for i, j := range perm {
			if bags > 1 && i%bags == b {
				continue
			}
			jobs[b].x, jobs[b].y = append(jobs[b].x, x[j]), append(jobs[b].y, y[j])
		}
		jobs[b].w0 = m.initial()
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for b := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func(j *job) {
			defer func() { <-sem; wg.Done() }()
			j.w, j.err = m.train(j.x, j.y, j.w0)
		}(&jobs[b])
	}
	wg.Wait()
	m.nets = m.nets[:0]
	for _, j := range jobs {
		if j.err != nil {
			return j.err
		}
		m.nets = append(m.nets, j.w)
	}
	return nil
}

// Predict returns the mean prediction of the networks for x (0 before
// Fit).
func (m *MLP) Predict(x []float64) float64 {
	if len(m.nets) == 0 {
		return 0
	}
	h := make([]float64, m.set.Hidden)
	s := 0.0
	for _, w := range m.nets {
		s += m.forward(w, x, h, nil)
	}
	return s / float64(len(m.nets))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// forward returns network w's output for x, leaving the hidden units'
// outputs in h. Only the inputs of cols are read (all of x when nil): an
// input that is 0 adds nothing to a unit's sum, so leaving out the columns
// that are 0 in every row gives the same output, faster.
func (m *MLP) forward(w, x, h []float64, cols []int) float64 {
	H, D := m.set.Hidden, m.dim
	b1, w2 := w[H*D:H*D+H], w[H*D+H:H*D+2*H]
	out := w[H*D+2*H]
	for j := 0; j < H; j++ {
		z := b1[j]
		row := w[j*D : (j+1)*D]
		if cols == nil {
			for k, v := range x {
				z += row[k] * v
			}
		} else {
			for _, k := range cols {
				z += row[k] * x[k]
			}
		}
		h[j] = sigmoid(z)
		out += w2[j] * h[j]
	}
	return out
}

// nonzero returns the columns of x that are not 0 in every row.
func nonzero(x [][]float64, dim int) []int {
	cols := make([]int, 0, dim)
	for k := range dim {
		for _, row := range x {
			if row[k] != 0 {
				cols = append(cols, k)
				break
			}
		}
	}
	return cols
}

// initial draws a network's initial weights.
func (m *MLP) initial() []float64 {
	H, D := m.set.Hidden, m.dim
	w0 := make([]float64, H*D+2*H+1)
	scale := 1 / math.Sqrt(float64(D+1))
	for i := range w0[:H*D+H] {
		w0[i] = (2*m.r.Float64() - 1) * scale
	}
	for i := H*D + H; i < H*D+2*H; i++ {
		w0[i] = (2*m.r.Float64() - 1) / math.Sqrt(float64(H))
	}
	return w0
}

// loss returns network w's mean squared error on (x, y) plus the weight
// decay, reading the inputs of cols only, and, when grad is not nil, sets
// grad to its gradient; h is scratch space of Hidden values.
func (m *MLP) loss(x [][]float64, y []float64, cols []int, h, grad, w []float64) float64 {
	H, D := m.set.Hidden, m.dim
	nw, n := len(w), float64(len(x))
	if grad != nil {
		clear(grad)
	}
	loss := 0.0
	for i, xi := range x {
		e := m.forward(w, xi, h, cols) - y[i]
		loss += e * e / n
		if grad == nil {
			continue
		}
		d := 2 * e / n
		w2 := w[H*D+H : H*D+2*H]
		for j := 0; j < H; j++ {
			grad[H*D+H+j] += d * h[j]
			dz := d * w2[j] * h[j] * (1 - h[j])
			grad[H*D+j] += dz
			for _, k := range cols {
				grad[j*D+k] += dz * xi[k]
			}
		}
		grad[nw-1] += d
	}
	// Weight decay on the weights, not the biases.
	for j := 0; j < H*D; j++ {
		loss += m.set.L2 * w[j] * w[j]
		if grad != nil {
			grad[j] += 2 * m.set.L2 * w[j]
		}
	}
	for j := H*D + H; j < H*D+2*H; j++ {
		loss += m.set.L2 * w[j] * w[j]
		if grad != nil {
			grad[j] += 2 * m.set.L2 * w[j]
		}
	}
	return loss
}

// train fits one network to (x, y) from the initial weights w0. It draws
// nothing, so networks train in parallel.
func (m *MLP) train(x [][]float64, y []float64, w0 []float64) ([]float64, error) {
	nw := len(w0)
	h := make([]float64, m.set.Hidden)
	// The columns that are 0 in every row (parameters the space or the
	// sample holds at their lowest value) add nothing to the outputs nor
	// to their weights' gradients but the weight decay: they are skipped,
	// which changes no result. On recorded tables, which pin most of the
	// Table 2 parameters, that is most columns (23 of 28 on 3DCONV 128,
	// whose model replay took 85 s instead of 138 s so).
	cols := nonzero(x, m.dim)
	lossGrad := func(grad, w []float64) float64 { return m.loss(x, y, cols, h, grad, w) }
	// The line search asks for the loss and the gradient at the same
	// weights, one call after the other: the loss is computed with the
	// gradient, which Grad then copies when asked at those weights, so
	// that each point takes one pass over the samples, not two (the same
	// figures, about twice as fast).
	var atW, atGrad []float64
	p := optimize.Problem{
		Func: func(w []float64) float64 {
			if atGrad == nil {
				atW, atGrad = make([]float64, nw), make([]float64, nw)
			}
			copy(atW, w)
			return lossGrad(atGrad, w)
		},
		Grad: func(grad, w []float64) {
			if atW != nil && slices.Equal(atW, w) {
				copy(grad, atGrad)
				return
			}
			lossGrad(grad, w)
		},
	}
	res, err := optimize.Minimize(p, w0, &optimize.Settings{MajorIterations: m.set.Iterations}, &optimize.LBFGS{})
	if res == nil {
		return nil, fmt.Errorf("costmodel: training a network: %w", err)
	}
	for _, v := range res.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("costmodel: training a network diverged")
		}
	}
	return res.X, nil
}
