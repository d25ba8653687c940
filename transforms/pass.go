package transforms

// Pass is one stage of the optimizer, declared in the manner of go/analysis's
// Analyzer: its name, what it does, what it reads, and its rewrite of the
// variant under construction.
type Pass struct {
	// Name identifies the pass: a lower-case word, unique in Pipeline. It
	// names the pass's golden tests too (testdata/transforms/<Name>).
	Name string
	// Doc says what the pass does.
	Doc string
	// Requires lists the passes whose results this one reads: they run
	// before it in Pipeline.
	Requires []*Pass
	// Patterns says that the pass reads the access-pattern table
	// (Problem.Info). A pass that does not say so runs without it.
	Patterns bool
	// Run rewrites the variant under construction, or returns an error
	// wrapping ErrIllegal that says why the setting cannot be realized.
	Run func(*state) error
}

// Pipeline is the order in which the passes run: the paper's stages that
// decide the variant's parts (tiling, local-memory staging, coarsening,
// private-memory promotion), the split of accumulations of sums into private
// accumulators, the split of the outermost compute loop over several
// work-items (split), the assembly of the compute section from them, then the
// pipelining of the tile loop, the vectorization of runs of points, the unrolling of its loops, the
// packing of local reads into vector loads, the fission of the tile loop by
// the groups of local arrays its statements use, and a cleanup of the code.
var Pipeline = []*Pass{tiling, staging, coarsening, promotion, accumulation, splitting, assembly, pipelining, vectorization, unrolling, packing, fission, cleanup}
