package costmodel

import (
	"math"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// ARD weighs what the targets follow and plays down what they do not:
// targets that vary fast along the first input, slowly along the second
// and not at all along the third give the first a weight above 1 and the
// third the least weight; a constant input keeps the weight 1; and the
// GP of those weights predicts held-out points better than the isotropic
// one.
func TestARDWeights(t *testing.T) {
	r := autotune.NewRand(3)
	f := func(v []float64) float64 { return math.Sin(6*v[0]) + 0.3*v[1] }
	sample := func(n int) ([][]float64, []float64) {
		var x [][]float64
		var y []float64
		for range n {
			v := []float64{r.Float64(), r.Float64(), r.Float64(), 0.5}
			x, y = append(x, v), append(y, f(v)+0.01*r.NormFloat64())
		}
		return x, y
	}
	x, y := sample(40)
	w, _ := ardWeights(x, y)
	if w == nil {
		t.Fatal("no weights")
	}
	t.Logf("weights %v", w)
	if !(w[0] > 1 && w[0] > w[1] && w[1] >= w[2]) || w[2] != ardMults[0] || w[3] != 1 {
		t.Errorf("weights %v: want the first input weighed most, the third least, the constant fourth at 1", w)
	}
	iso, err := FitGP(x, y)
	if err != nil {
		t.Fatal(err)
	}
	enc := &encoder{}
	xw := weigh(enc, x, y)
	if !slices.Equal(enc.w, w) {
		t.Fatalf("weigh gave the encoder %v, ardWeights %v", enc.w, w)
	}
	ard, err := FitGP(xw, y)
	if err != nil {
		t.Fatal(err)
	}
	hx, hy := sample(200)
	var eIso, eARD float64
	for i, v := range hx {
		m, _ := iso.Predict(v, nil)
		eIso += (m - hy[i]) * (m - hy[i])
		vw := make([]float64, len(v))
		for k := range v {
			vw[k] = v[k] * w[k]
		}
		m, _ = ard.Predict(vw, nil)
		eARD += (m - hy[i]) * (m - hy[i])
	}
	t.Logf("held-out squared error: isotropic %.4f, ARD %.4f", eIso, eARD)
	if eARD >= eIso {
		t.Errorf("ARD's held-out error %.4f is no smaller than the isotropic GP's %.4f", eARD, eIso)
	}
}
