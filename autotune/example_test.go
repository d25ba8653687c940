package autotune_test

import (
	"context"
	"fmt"

	"github.com/hplopt/hplopt/autotune"
)

// A space whose second parameter must divide the first, searched
// exhaustively with a made-up cost.
func ExampleTune() {
	space := autotune.MustSpace(
		autotune.Param{Name: "n", Range: func(autotune.Point) []int { return []int{4, 6, 8} }},
		autotune.Param{Name: "d", Deps: []string{"n"}, Range: func(p autotune.Point) []int {
			var r []int
			for d := 1; d <= p.Get("n"); d++ {
				if p.Get("n")%d == 0 {
					r = append(r, d)
				}
			}
			return r
		}},
	)
	eval := autotune.EvaluatorFunc(func(_ context.Context, p autotune.Point) autotune.Result {
		if p.Get("d") == 1 {
			return autotune.Result{Outcome: autotune.Compile}
		}
		return autotune.Result{Outcome: autotune.OK, Ms: float64(p.Get("n")) / float64(p.Get("d")) * 1.5}
	})
	rep, err := autotune.Tune(context.Background(), autotune.Settings{}, space, autotune.NewExhaustive(space), eval)
	if err != nil {
		panic(err)
	}
	fmt.Println("points:", rep.SpaceSize, "evaluations:", rep.Evaluations, "compile failures:", rep.Failures.Compile)
	fmt.Printf("best: %v in %.1f ms\n", rep.Best, rep.BestMs)
	// Output:
	// points: 11 evaluations: 11 compile failures: 3
	// best: n=4,d=4 in 1.5 ms
}
