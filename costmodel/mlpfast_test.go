package costmodel

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/optimize"

	"github.com/hplopt/hplopt/autotune"
)

// plainTrain is train without its shortcuts: every column read, the
// loss and the gradient computed apart, each a pass over the samples.
func (m *MLP) plainTrain(x [][]float64, y []float64, w0 []float64) []float64 {
	all := make([]int, m.dim)
	for k := range all {
		all[k] = k
	}
	h := make([]float64, m.set.Hidden)
	p := optimize.Problem{
		Func: func(w []float64) float64 { return m.loss(x, y, all, h, nil, w) },
		Grad: func(grad, w []float64) { m.loss(x, y, all, h, grad, w) },
	}
	res, _ := optimize.Minimize(p, w0, &optimize.Settings{MajorIterations: m.set.Iterations}, &optimize.LBFGS{})
	return res.X
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
