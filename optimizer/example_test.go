package optimizer_test

import (
	"fmt"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/optimizer"
)

// The Table 2 space of the paper's running example: a 2D matrix product
// of 1024x1024 points with one compute loop of 1024 iterations.
func ExampleTable2() {
	space, toParams, err := optimizer.Table2(optimizer.Table2Spec{Domain: []int{1024, 1024}, Loops: []int{1024}, MaxWorkGroup: 256})
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
	// [bszx bszy fullunroll interleave vw vec lszx szx lszy warp szy gswz tw0 uf lmem lcopy pack ltrans prefetch split ftz fission coff]
	// 4135716100 points
	// bszx=16,bszy=4,fullunroll=1,interleave=1,vw=4,vec=4,lszx=2,szx=64,lszy=1,warp=0,szy=32,gswz=2,tw0=0,uf=4,lmem=1,lcopy=1,pack=1,ltrans=0,prefetch=0,split=2,ftz=0,fission=0,coff=1
	// global [64 32 0] local [2 1 0] block [16 4 0] tile [0 0 0] uf 4
}
