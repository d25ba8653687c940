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

// The Table 2 space of the paper's running example: a 2D matrix product
// of 1024x1024 points with one compute loop of 1024 iterations.
func ExampleTable2() {
	space, toParams, err := autotune.Table2(autotune.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}, MaxWorkGroup: 256})
	if err != nil {
		panic(err)
	}
	fmt.Println(space.Names())
	fmt.Println(space.Size(), "points")
	p := space.Sample(autotune.NewRand(1))
	fmt.Println(p)
	tp := toParams(p)
	fmt.Println("global", tp.Global, "local", tp.Local, "block", tp.Block, "tile", tp.Tile, "uf", tp.Unroll)
	// Output:
	// [bszx bszy fullunroll interleave vw lszx szx lszy szy tw0 uf lmem lcopy]
	// 20785638 points
	// bszx=16,bszy=4,fullunroll=1,interleave=1,vw=4,lszx=1,szx=4,lszy=32,szy=64,tw0=0,uf=1,lmem=1,lcopy=0
	// global [4 64 0] local [1 32 0] block [16 4 0] tile [0 0 0] uf 1
}
