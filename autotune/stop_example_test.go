package autotune_test

import (
	"context"
	"fmt"

	"github.com/hplopt/hplopt/autotune"
)

// A stop condition ends a search whatever the strategy: here after 100
// evaluations without improvement, or 500 in all.
func ExampleParseStop() {
	stop, err := autotune.ParseStop("evals>=500 or stall>=100")
	if err != nil {
		panic(err)
	}
	space := autotune.MustSpace(autotune.Param{Name: "x", Range: func(autotune.Point) []int {
		r := make([]int, 1000)
		for i := range r {
			r[i] = i
		}
		return r
	}})
	// The time falls until x = 200 and stays flat after it.
	ev := autotune.EvaluatorFunc(func(_ context.Context, p autotune.Point) autotune.Result {
		return autotune.Result{Outcome: autotune.OK, Ms: float64(1000 - min(p.Get("x"), 200))}
	})
	rep, _ := autotune.Tune(context.Background(), autotune.Settings{Stop: stop}, space, autotune.NewExhaustive(space), ev)
	fmt.Println(stop, "-", rep.Stopped, "after", rep.Evaluations, "evaluations, best", rep.BestMs)

	_, err = autotune.ParseStop("evals>=500 or stall>100")
	fmt.Println(err)
	// Output:
	// evals>=500 or stall>=100 - stop-condition after 301 evaluations, best 800
	// autotune: stop condition "evals>=500 or stall>100": column 20: want >= after stall, found ">"
}
