package genetic

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// TestAdditiveFit: on every point of a space whose log time is additive
// over its parameters, the backfitted surrogate predicts each point's log
// time; a value never measured gets the parameter's mean effect.
func TestAdditiveFit(t *testing.T) {
	values := func(vs ...int) func(autotune.Point) []int { return func(autotune.Point) []int { return vs } }
	space := autotune.MustSpace(
		autotune.Param{Name: "a", Range: values(1, 2, 4, 8)},
		autotune.Param{Name: "b", Range: values(0, 1, 2)},
		autotune.Param{Name: "c", Range: values(16, 32)},
	)
	effect := func(p autotune.Point) float64 {
		return 0.3*math.Log2(float64(p.Get("a"))) - 0.5*float64(p.Get("b")*p.Get("b")) + 0.01*float64(p.Get("c"))
	}
	var ms []measurement
	for i := range space.Size().Int64() {
		p := space.At(big.NewInt(i))
		if p.Get("a") == 8 && p.Get("b") == 0 {
			continue // a=8 measured only with b=1 and b=2: the fit must untangle them
		}
		ms = append(ms, measurement{p, math.Exp(1 + effect(p))})
	}
	m := fitAdditive(ms, space.Len())
	for _, x := range ms {
		if got, want := m.predict(x.p), math.Log(x.fit); math.Abs(got-want) > 1e-3 {
			t.Errorf("%v: predicted log time %.4f, want %.4f", x.p, got, want)
		}
	}
	// Point a=8, b=0 was not measured, but its values were: it is predicted.
	p, err := space.PointOf(map[string]int{"a": 8, "b": 0, "c": 16})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.predict(p), 1+effect(p); math.Abs(got-want) > 1e-3 {
		t.Errorf("%v, never measured: predicted %.4f, want %.4f", p, got, want)
	}
	// Without a=8 in the data, a=8 gets a's mean effect: the prediction
	// is that of the points' mean over a.
	var few []measurement
	for _, x := range ms {
		if x.p.Get("a") != 8 {
			few = append(few, x)
		}
	}
	m = fitAdditive(few, space.Len())
	mean := 0.0
	for _, a := range []int{1, 2, 4} {
		mean += m.predict(p.With(0, a)) / 3
	}
	if got := m.predict(p); math.Abs(got-mean) > 1e-9 {
		t.Errorf("a=8 never measured: predicted %.4f, want the mean over a, %.4f", got, mean)
	}
	// A failure counts as twice the slowest time.
	fail := append(few[:len(few):len(few)], measurement{p, math.Inf(1)})
	if m := fitAdditive(fail, space.Len()); !(m.predict(p) > m.predict(p.With(0, 1))) {
		t.Errorf("a failed point is predicted faster than its neighbour")
	}
}

// TestLocalPredicted: the local points are the candidates (open
// neighbours of the LocalBest fastest points measured) that the surrogate
// fitted on every measurement predicts fastest.
func TestLocalPredicted(t *testing.T) {
	values := func(vs ...int) func(autotune.Point) []int { return func(autotune.Point) []int { return vs } }
	var params []autotune.Param
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		params = append(params, autotune.Param{Name: n, Range: values(1, 2, 3, 4, 5, 6)})
	}
	space := autotune.MustSpace(params...)
	cost := func(p autotune.Point) autotune.Result {
		if p.Value(0) == 6 {
			return autotune.Result{Outcome: autotune.Compile}
		}
		ms := 1.0
		for k, v := range p.Values() {
			ms *= 1 + 0.1*float64((v-k-1)*(v-k-1))
		}
		return autotune.Result{Outcome: autotune.OK, Ms: ms}
	}
	g := New(space, autotune.NewRand(1), Settings{Local: 5, Islands: 1})
	for range 40 {
		p, ok := g.Next()
		if !ok {
			t.Fatal("search ended")
		}
		g.Tell(p, cost(p))
	}
	got := g.local(map[string]bool{})
	if len(got) != 5 {
		t.Fatalf("%d local points, want 5", len(got))
	}
	ms := slices.Clone(g.measured)
	slices.SortStableFunc(ms, func(a, b measurement) int { return cmp.Compare(a.fit, b.fit) })
	m := fitAdditive(g.measured, space.Len())
	worst := math.Inf(-1) // the slowest prediction among the points chosen
	for _, p := range got {
		worst = max(worst, m.predict(p))
	}
	for _, x := range ms[:3] {
		for _, q := range space.Neighbours(x.p) {
			if _, measured := g.fitness[q.Key()]; measured || slices.ContainsFunc(got, q.Equal) {
				continue
			}
			if m.predict(q) < worst {
				t.Errorf("candidate %v predicted %.4f, faster than a local point (%.4f)", q, m.predict(q), worst)
			}
		}
	}
}
