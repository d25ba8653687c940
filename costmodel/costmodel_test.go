package costmodel

import (
	"context"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// The networks learn a smooth function of two inputs from 60 samples.
func TestMLPFits(t *testing.T) {
	r := autotune.NewRand(1)
	f := func(a, b float64) float64 { return (a-0.3)*(a-0.3)*4 + math.Sin(3*b) }
	var x [][]float64
	var y []float64
	for i := 0; i < 60; i++ {
		a, b := r.Float64(), r.Float64()
		x, y = append(x, []float64{a, b}), append(y, f(a, b))
	}
	m := NewMLP(r, MLPSettings{})
	if err := m.Fit(x, y); err != nil {
		t.Fatal(err)
	}
	var sse, sst, mean float64
	for _, v := range y {
		mean += v / float64(len(y))
	}
	for i := 0; i < 200; i++ {
		a, b := r.Float64(), r.Float64()
		e := m.Predict([]float64{a, b}) - f(a, b)
		sse += e * e
		sst += (f(a, b) - mean) * (f(a, b) - mean)
	}
	if r2 := 1 - sse/sst; r2 < 0.9 {
		t.Errorf("R² on unseen points %.3f, want at least 0.9", r2)
	}
	if err := NewMLP(r, MLPSettings{}).Fit(x[:1], y[:1]); err == nil {
		t.Error("Fit on one sample: no error")
	}
}

func gridSpace(t testing.TB) *autotune.Space {
	t.Helper()
	vals := func(autotune.Point) []int { return []int{1, 2, 4, 8, 16, 32, 64} }
	s, err := autotune.NewSpace(
		autotune.Param{Name: "a", Range: vals},
		autotune.Param{Name: "b", Range: vals},
		autotune.Param{Name: "c", Range: vals},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// gridTime is smooth in log2 of the values with a failing corner.
func gridTime(_ context.Context, p autotune.Point) autotune.Result {
	a, b, c := math.Log2(float64(p.Get("a"))), math.Log2(float64(p.Get("b"))), math.Log2(float64(p.Get("c")))
	if a+b+c > 15 {
		return autotune.Result{Outcome: autotune.Launch}
	}
	return autotune.Result{Outcome: autotune.OK, Ms: math.Exp(0.3*(a-4)*(a-4) + 0.2*(b-2)*(b-2) + 0.1*math.Abs(c-3) + 0.05*a*b)}
}

// tuneGrid runs st on gridTime for evals evaluations.
func tuneGrid(t testing.TB, s *autotune.Space, st autotune.Strategy, evals int) *autotune.Report {
	t.Helper()
	rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: evals}, s, st, autotune.EvaluatorFunc(gridTime))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// With a budget of 40 evaluations (12% of the space), the model finds the
// optimum in at least 7 of 8 seeds, more often than random search, and it
// plans its stages from the budget.
func TestModelBeatsRandom(t *testing.T) {
	s := gridSpace(t)
	opt := math.Inf(1)
	for i := range s.Size().Int64() {
		opt = math.Min(opt, gridTime(context.Background(), s.At(big.NewInt(i))).Fitness())
	}
	model, random := 0, 0
	for seed := uint64(1); seed <= 8; seed++ {
		m := New(s, autotune.NewRand(seed), Settings{Evaluations: 40})
		if m.set.Sample != 10 || m.set.Second != 5 || m.set.Round != 5 {
			t.Fatalf("sample %d, rounds %d and %d; want 10, 5, 5", m.set.Sample, m.set.Second, m.set.Round)
		}
		mr, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 40}, s, m, autotune.EvaluatorFunc(gridTime))
		if err != nil {
			t.Fatal(err)
		}
		rr, _ := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 40}, s, autotune.NewRandom(s, autotune.NewRand(seed)), autotune.EvaluatorFunc(gridTime))
		if m.Trainings() != 6 {
			t.Errorf("seed %d: %d trainings in 40 evaluations, want 6", seed, m.Trainings())
		}
		if mr.BestMs == opt {
			model++
		}
		if rr.BestMs == opt {
			random++
		}
	}
	if model < 7 || model <= random {
		t.Errorf("the model found the optimum in %d of 8 seeds, random search in %d; want at least 7 and more", model, random)
	}
}

// Rounds after the second stage retrain the model.
func TestModelRounds(t *testing.T) {
	s := gridSpace(t)
	m := New(s, autotune.NewRand(1), Settings{Sample: 10, Second: 5, Round: 5})
	rep := tuneGrid(t, s, m, 30)
	if rep.Evaluations != 30 || m.Trainings() != 4 {
		t.Errorf("%d evaluations, %d trainings; want 30, 4", rep.Evaluations, m.Trainings())
	}
}

// Told the budget while it samples, the model shortens its first stage to
// a fifth of it (or lengthens it), and its later rounds follow.
func TestModelPlan(t *testing.T) {
	s := gridSpace(t)
	for _, c := range []struct{ budget, sample int }{{60, 12}, {400, 80}} {
		m := New(s, autotune.NewRand(1), Settings{})
		if m.Settings().Sample != 100 {
			t.Fatalf("sample %d for an unknown budget, want 100", m.Settings().Sample)
		}
		n := 0
		for m.Trainings() == 0 {
			p, ok := m.Next()
			if !ok {
				t.Fatal("exhausted")
			}
			m.Tell(p, gridTime(context.Background(), p))
			if n++; n == 5 {
				m.Plan(c.budget)
			}
		}
		// The point proposed after the sample is the first of the model's.
		if n-1 != c.sample {
			t.Errorf("budget %d told after 5 points: a sample of %d, want %d", c.budget, n-1, c.sample)
		}
		if got := m.Settings(); got.Evaluations != c.budget || got.Second != max(5, c.budget/20) {
			t.Errorf("budget %d: settings %+v", c.budget, got)
		}
	}
}

// With a negative Sample the model draws no sample of its own: told the
// results of another search, its first proposal is its first round's,
// predicted from them, and it then goes on in rounds to the budget.
func TestModelNoSample(t *testing.T) {
	s := gridSpace(t)
	m := New(s, autotune.NewRand(1), Settings{Sample: -1, Second: 5, Round: 5})
	if m.Settings().Sample != 0 {
		t.Fatalf("sample %d, want 0", m.Settings().Sample)
	}
	r := autotune.NewRand(2)
	told := map[string]bool{}
	for len(told) < 12 {
		p := s.Sample(r)
		if !told[p.Key()] {
			told[p.Key()] = true
			m.Tell(p, gridTime(context.Background(), p))
		}
	}
	p, ok := m.Next()
	if !ok || m.Trainings() != 1 {
		t.Fatalf("first proposal %v (ok %v) after %d trainings; want one of the first round, after 1", p, ok, m.Trainings())
	}
	if told[p.Key()] {
		t.Errorf("proposed %v, told before", p)
	}
	// Without results told, its first round is random (too few to train
	// on), and it keeps the budget.
	m = New(s, autotune.NewRand(1), Settings{Sample: -1, Second: 5, Round: 5})
	rep := tuneGrid(t, s, m, 30)
	if rep.Evaluations != 30 || m.Trainings() != 5 {
		t.Errorf("%d evaluations, %d trainings; want 30, 5 (a random round, then five trained)", rep.Evaluations, m.Trainings())
	}
}

// With Screen and Refill (the opening's model continuation) the model
// learns where points fail and replaces a round's points rejected as
// illegal by the next ones predicted fastest: here the fastest region (a
// of 16 and more) is illegal, which a model trained on successes alone
// does not learn, so that without them most of its proposals are
// rejected and it is trained again after a few points measured.
func TestModelScreenRefill(t *testing.T) {
	s := gridSpace(t)
	eval := autotune.EvaluatorFunc(func(ctx context.Context, p autotune.Point) autotune.Result {
		if p.Get("a") >= 16 {
			return autotune.Result{Outcome: autotune.Illegal}
		}
		return gridTime(ctx, p)
	})
	type outcome struct{ measured, rejected, trainings int }
	run := func(screen, refill bool) outcome {
		m := New(s, autotune.NewRand(3), Settings{Sample: 10, Second: 5, Round: 5, Screen: screen, Refill: refill})
		rep, err := autotune.Tune(context.Background(), autotune.Settings{MaxEvals: 40}, s, m, eval)
		if err != nil {
			t.Fatal(err)
		}
		o := outcome{measured: rep.Measured, trainings: m.Trainings()}
		for _, e := range rep.History {
			if e.Result.Outcome == autotune.Illegal {
				o.rejected++
			}
		}
		return o
	}
	plain, screen, refill, both := run(false, false), run(true, false), run(false, true), run(true, true)
	t.Logf("measured, rejected, trainings: plain %v, screen %v, refill %v, both %v", plain, screen, refill, both)
	if plain.rejected < 20 {
		t.Fatalf("plain: %d rejected, the test says little", plain.rejected)
	}
	if screen.rejected >= plain.rejected/2 || both.rejected >= plain.rejected/2 {
		t.Errorf("screening left %d and %d of plain's %d rejections", screen.rejected, both.rejected, plain.rejected)
	}
	if both.measured != 40 || both.trainings >= screen.trainings {
		t.Errorf("both: %v; want 40 measured, fewer trainings than with screening alone (%d): the rounds refilled", both, screen.trainings)
	}
	if again := run(true, true); again != both {
		t.Errorf("the same seed searched differently: %v, then %v", both, again)
	}
}

// Likely guesses points the next round may measure, never proposed and
// none of the current round's, and asking for them changes nothing the
// model proposes.
func TestModelLikely(t *testing.T) {
	s := gridSpace(t)
	run := func(ask bool) (keys []string, guesses int) {
		m := New(s, autotune.NewRand(5), Settings{Sample: 10, Second: 5, Round: 5})
		if g := m.Likely(4); len(g) != 0 {
			t.Fatalf("guesses %v before any round", g)
		}
		for range 40 {
			p, ok := m.Next()
			if !ok {
				t.Fatal("exhausted")
			}
			keys = append(keys, p.Key())
			if ask && m.Trainings() > 0 {
				up := map[string]bool{}
				for _, q := range m.Upcoming(10) {
					up[q.Key()] = true
				}
				for _, q := range m.Likely(4) {
					guesses++
					if m.seen.Seen(q) || up[q.Key()] {
						t.Fatalf("guess %v proposed or upcoming", q)
					}
				}
			}
			m.Tell(p, gridTime(context.Background(), p))
		}
		return keys, guesses
	}
	plain, _ := run(false)
	asked, guesses := run(true)
	if !slices.Equal(plain, asked) {
		t.Error("asking for guesses changed the search")
	}
	if guesses < 40 {
		t.Errorf("%d guesses over the trained rounds, want at least 40", guesses)
	}
}
