package costmodel

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/optimize"

	"github.com/hplopt/hplopt/autotune"
)

// plainTrain is train as written before its shortcuts: every column read,
// the loss and the gradient computed apart, each a pass over the samples.
func (m *MLP) plainTrain(x [][]float64, y []float64, w0 []float64) []float64 {
	H, D := m.set.Hidden, m.dim
	nw, n := len(w0), float64(len(x))
	h := make([]float64, H)
	lossGrad := func(grad, w []float64) float64 {
		if grad != nil {
			clear(grad)
		}
		loss := 0.0
		for i, xi := range x {
			e := m.forward(w, xi, h, nil) - y[i]
			loss += e * e / n
			if grad == nil {
				continue
			}
			d := 2 * e / n
			w2 := w[H*D+H : H*D+2*H]
			for j := range H {
				grad[H*D+H+j] += d * h[j]
				dz := d * w2[j] * h[j] * (1 - h[j])
				grad[H*D+j] += dz
				for k, v := range xi {
					grad[j*D+k] += dz * v
				}
			}
			grad[nw-1] += d
		}
		for _, j := range append(seq(0, H*D), seq(H*D+H, H*D+2*H)...) {
			loss += m.set.L2 * w[j] * w[j]
			if grad != nil {
				grad[j] += 2 * m.set.L2 * w[j]
			}
		}
		return loss
	}
	p := optimize.Problem{
		Func: func(w []float64) float64 { return lossGrad(nil, w) },
		Grad: func(grad, w []float64) { lossGrad(grad, w) },
	}
	res, _ := optimize.Minimize(p, w0, &optimize.Settings{MajorIterations: m.set.Iterations}, &optimize.LBFGS{})
	return res.X
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// train skips the columns that are 0 in every sample and computes the
// loss and the gradient in one pass; the weights it ends with are those
// of the plain computation, to the bit, with such columns or without.
func TestTrainIsPlain(t *testing.T) {
	r := autotune.NewRand(3)
	for trial := range 6 {
		dim, n := 3+trial, 20+10*trial
		var x [][]float64
		var y []float64
		for range n {
			v := make([]float64, dim)
			for k := range v {
				// Columns 1 and 3 (when there is one) are 0 throughout,
				// as a pinned parameter encodes; column 0 often is.
				if k != 1 && k != 3 && (k != 0 || r.IntN(3) == 0) {
					v[k] = r.Float64()
				}
			}
			x, y = append(x, v), append(y, v[0]-2*v[dim-1]*v[dim-1]+0.05*r.Float64())
		}
		m := NewMLP(r, MLPSettings{Hidden: 5, Iterations: 40})
		m.dim = dim
		w0 := m.initial()
		got, err := m.train(x, y, slices.Clone(w0))
		if err != nil {
			t.Fatal(err)
		}
		if want := m.plainTrain(x, y, slices.Clone(w0)); !slices.Equal(got, want) {
			t.Errorf("trial %d (%d columns, %d samples): weights differ from the plain computation's", trial, dim, n)
		}
	}
}
