package optimizer_test

import (
	"context"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/costmodel"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/strategies"
)

// slow is an evaluator that takes d per point, whatever its context says
// (the worst case for a budget: it cannot be cut), with synthetic's
// results. It appends to *starts when each evaluation started, if starts
// is not nil.
func slow(d time.Duration, starts *[]time.Time) autotune.Evaluator {
	return autotune.EvaluatorFunc(func(ctx context.Context, p autotune.Point) autotune.Result {
		if starts != nil {
			*starts = append(*starts, time.Now())
		}
		time.Sleep(d)
		return synthetic{}.Evaluate(ctx, p)
	})
}

// TestSearchBudget runs every registered strategy through the optimizer's
// search loop on MATMUL tiny's Table 2 space with an evaluator in place of
// the device: none makes more evaluations than -e (the points rejected as
// illegal not counted, autotune.RejectedPerEval), none starts one after
// -t (give or take the few microseconds between the loop's check and the
// evaluator's clock; an evaluation of 10 ms that ignores its context
// overruns the budget by at most itself), and the stop condition ends
// each, the report naming the condition that held.
func TestSearchBudget(t *testing.T) {
	ps := matmulTiny(t).Passes
	ctx := context.Background()
	for _, name := range strategies.Names() {
		rep, err := optimizer.Search(ctx, ps, optimizer.Settings{Strategy: name, Evals: 13}, true, synthetic{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counted(13) != 13 || rep.Stopped != autotune.StopMaxEvals {
			t.Errorf("%s -e 13: %d evaluations (%d rejected as illegal), stopped by %s", name, rep.Evaluations, rep.Rejected, rep.Stopped)
		}

		const each, budget = 10 * time.Millisecond, 120 * time.Millisecond
		start := time.Now()
		var starts []time.Time
		rep, err = optimizer.Search(ctx, ps, optimizer.Settings{Strategy: name, Time: budget}, true, slow(each, &starts))
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Stopped != autotune.StopBudget || rep.Evaluations > int(budget/each)+1 {
			t.Errorf("%s -t 0.12 with evaluations of 10 ms: %d evaluations, stopped by %s", name, rep.Evaluations, rep.Stopped)
		}
		begun := time.Now().Add(-rep.Elapsed) // when Tune started, within microseconds
		if last := starts[len(starts)-1].Sub(begun); last > budget+5*time.Millisecond {
			t.Errorf("%s -t 0.12: an evaluation started at %v, after the budget", name, last)
		}
		// The slack is for a strategy's own work between evaluations:
		// the model's fit after its sample, uncut by the budget, took
		// 1.16 s on a 2-core machine beside other tests.
		if took > budget+3*time.Second {
			t.Errorf("%s -t 0.12: the search took %v", name, took)
		}

		stop := autotune.MustParseStop("evals>=40 or stall>=4")
		rep, err = optimizer.Search(ctx, ps, optimizer.Settings{Strategy: name, Evals: 30, Stop: stop}, true, synthetic{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rep.Stopped == autotune.StopCondition && rep.StopCondition == "stall>=4" && rep.Evaluations < 30:
		case rep.Stopped == autotune.StopMaxEvals && rep.Evaluations == 30 && rep.StopCondition == "":
		default:
			t.Errorf("%s -e 30 --stop %q: %d evaluations, stopped by %s (%q)", name, stop, rep.Evaluations, rep.Stopped, rep.StopCondition)
		}
	}
}

// TestSearchPlan: the strategies that plan by the budget of evaluations
// (annealing's cooling, the model's stages) are told -e, or the bound of
// the stop condition, or, with only -t, an estimate from the rate of the
// evaluations once it is known, not their defaults for an unknown budget
// (annealing: at least 100; the model: a sample of 100).
func TestSearchPlan(t *testing.T) {
	ps := matmulTiny(t).Passes
	ctx := context.Background()
	for _, name := range []string{strategies.Annealing, strategies.Model} {
		for _, c := range []struct {
			set  optimizer.Settings
			want int
		}{
			{optimizer.Settings{Evals: 20}, 20},
			{optimizer.Settings{Evals: 20, Stop: autotune.MustParseStop("evals>=12 or stall>=100")}, 12},
		} {
			c.set.Strategy = name
			_, s, err := optimizer.SearchStrategy(ctx, ps, c.set, true, synthetic{})
			if err != nil {
				t.Fatal(err)
			}
			if got := planned(s); got != c.want {
				t.Errorf("%s with -e %d, --stop %v: planned for %d evaluations, want %d", name, c.set.Evals, c.set.Stop, got, c.want)
			}
		}
		// With only -t: evaluations of 5 ms in 0.3 s are at most 60 (fewer
		// with the loop's own time).
		rep, s, err := optimizer.SearchStrategy(ctx, ps, optimizer.Settings{Strategy: name, Time: 300 * time.Millisecond}, true, slow(5*time.Millisecond, nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := planned(s); got > 60 || got < 6 {
			t.Errorf("%s -t 0.3 with evaluations of 5 ms (%d made): planned for %d evaluations, want 6 to 60", name, rep.Evaluations, got)
		}
	}
}

// planned returns the budget of evaluations a strategy plans by.
func planned(s autotune.Strategy) int {
	switch s := s.(type) {
	case *autotune.Annealing:
		return s.Horizon()
	case *costmodel.Model:
		return s.Settings().Evaluations
	}
	return -1
}
