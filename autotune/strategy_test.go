package autotune

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
)

func drain(t *testing.T, s Strategy, limit int) []Point {
	t.Helper()
	var out []Point
	for {
		p, ok := s.Next()
		if !ok {
			return out
		}
		out = append(out, p)
		s.Tell(p, Result{Outcome: OK, Ms: 1})
		if len(out) > limit {
			t.Fatalf("%s proposed more than %d points", s.Name(), limit)
		}
	}
}

func TestExhaustiveOrder(t *testing.T) {
	s := divSpace(t)
	got := drain(t, NewExhaustive(s), 1000)
	if int64(len(got)) != s.Size().Int64() {
		t.Fatalf("%d points, want %v", len(got), s.Size())
	}
	for i, p := range got {
		if !p.Equal(s.At(big.NewInt(int64(i)))) {
			t.Errorf("point %d = %v, want At(%d)", i, p, i)
		}
	}
	if _, ok := NewExhaustive(MustSpace(Param{Name: "a", Range: vals()})).Next(); ok {
		t.Errorf("Exhaustive on an empty space proposed a point")
	}
}

func TestRandomWithoutRepeats(t *testing.T) {
	s := divSpace(t)
	n := int(s.Size().Int64())
	run := func(seed uint64) []string {
		got := drain(t, NewRandom(s, NewRand(seed)), 1000)
		var keys []string
		seen := map[string]bool{}
		for _, p := range got {
			if seen[p.Key()] {
				t.Fatalf("seed %d: %v proposed twice", seed, p)
			}
			if !s.Contains(p) {
				t.Fatalf("seed %d: %v not in the space", seed, p)
			}
			seen[p.Key()] = true
			keys = append(keys, p.Key())
		}
		if len(keys) != n {
			t.Fatalf("seed %d: %d points, want %d", seed, len(keys), n)
		}
		return keys
	}
	a, b, c := run(1), run(1), run(2)
	same := func(x, y []string) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Errorf("same seed, different orders")
	}
	if same(a, c) {
		t.Errorf("seeds 1 and 2 gave the same order")
	}
}

// TestRandomFirstUniform checks that the first proposal of Random is
// uniform over the space.
func TestRandomFirstUniform(t *testing.T) {
	s := divSpace(t)
	n := int(s.Size().Int64())
	counts := map[string]int{}
	r := NewRand(5)
	const runs = 20000
	for range runs {
		p, _ := NewRandom(s, r).Next()
		counts[p.Key()]++
	}
	exp := float64(runs) / float64(n)
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	df := float64(n - 1)
	if len(counts) != n || chi2 > df+5*math.Sqrt(2*df) {
		t.Errorf("%d points seen of %d, chi-square %.1f", len(counts), n, chi2)
	}
}

func TestOutcome(t *testing.T) {
	for o := OK; o < numOutcomes; o++ {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var back Outcome
		if err := json.Unmarshal(b, &back); err != nil || back != o {
			t.Errorf("%v: round trip through %s gave %v, %v", o, b, back, err)
		}
	}
	if got := Outcome(42).String(); got != "Outcome(42)" {
		t.Errorf("String = %q", got)
	}
	if _, err := json.Marshal(Outcome(42)); err == nil {
		t.Errorf("Marshal of an unknown outcome: no error")
	}
	for _, tc := range []struct {
		r    Result
		want float64
	}{
		{Result{Outcome: OK, Ms: 2.5}, 2.5},
		{Result{Outcome: Wrong, Ms: 0.1}, math.Inf(1)},
		{Result{Outcome: OK, Ms: math.NaN()}, math.Inf(1)},
		{Result{Outcome: OK, Ms: -1}, math.Inf(1)},
	} {
		if got := tc.r.Fitness(); got != tc.want {
			t.Errorf("%+v.Fitness() = %v, want %v", tc.r, got, tc.want)
		}
	}
}
