package transforms

// Pass is one stage of the optimizer: what it does, what it reads, and its
// rewrite of the variant under construction.
type Pass struct {
	Name     string
	Doc      string
	Requires []string // passes whose results this one reads
	Run      func(*state) error
}

// Pipeline is the order in which the passes run: the paper's five stages,
// then the assembly of the compute section from their results.
var Pipeline = []*Pass{tiling, localMemory, coarsening, privateMemory, assembly, unrolling, cleanup}
