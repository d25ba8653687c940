package costmodel

import (
	"math"
	"slices"
)

// ARD (automatic relevance determination): a length scale per input
// instead of one for all. ardWeights chooses each input's weight, the
// reciprocal of its length scale relative to the GP's, from ardMults by
// the marginal likelihood: at the length scale and noise FitGP chooses
// with every weight 1, one input at a time with the others held, in up to
// ardSweeps sweeps. A weight w other than 1 costs ardPenalty·log2(w)² of
// log likelihood: a prior on the log length scales, so that a few samples
// are not fitted by a scale per input. The weights multiply the encoded
// inputs (encoder.w), so the GP, its grid and its caches are unchanged.
var (
	ardMults   = []float64{0.25, 0.5, 1, 2, 4}
	ardSweeps  = 2
	ardPenalty = 0.5
)

// ardCost is the prior's cost of weight m, in log likelihood.
func ardCost(m float64) float64 {
	l := math.Log2(m)
	return ardPenalty * l * l
}

// ardWeights returns the weights of x's inputs (as the encoder gives
// them; y the targets), 1 for an input all samples share, and x weighed
// by them; nil, nil when no GP fits.
func ardWeights(x [][]float64, y []float64) (w []float64, weighed [][]float64) {
	iso, lml, err := fitGPL(x, y, gpScales, gpNoises)
	if err != nil {
		return nil, nil
	}
	d := len(x[0])
	w = make([]float64, d)
	varies := make([]bool, d)
	for j := range w {
		w[j] = 1
		for i := range x {
			varies[j] = varies[j] || x[i][j] != x[0][j]
		}
	}
	xs := make([][]float64, len(x)) // x weighed by w
	for i := range x {
		xs[i] = slices.Clone(x[i])
	}
	cost := 0.0 // the prior's, of w
	obj := lml  // the log likelihood of w less cost
	for range ardSweeps {
		moved := false
		for j := range d {
			if !varies[j] {
				continue
			}
			bestM, bestObj := w[j], obj
			rest := cost - ardCost(w[j])
			for _, m := range ardMults {
				if m == w[j] {
					continue
				}
				for i := range xs {
					xs[i][j] = x[i][j] * m
				}
				_, l, err := fitGPL(xs, y, []float64{iso.scale}, []float64{iso.noise})
				if err != nil {
					continue
				}
				if o := l - rest - ardCost(m); o > bestObj {
					bestM, bestObj = m, o
				}
			}
			moved = moved || bestM != w[j]
			w[j], obj, cost = bestM, bestObj, rest+ardCost(bestM)
			for i := range xs {
				xs[i][j] = x[i][j] * w[j]
			}
		}
		if !moved {
			break
		}
	}
	return w, xs
}

// weigh gives enc the weights ardWeights chooses for the samples xs
// (encoded by enc, without weights) and targets y, and returns xs
// weighed; xs unchanged when no GP fits.
func weigh(enc *encoder, xs [][]float64, y []float64) [][]float64 {
	w, weighed := ardWeights(xs, y)
	if w == nil {
		return xs
	}
	enc.w = w
	return weighed
}
