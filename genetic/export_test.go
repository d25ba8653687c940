package genetic

import "github.com/hplopt/hplopt/autotune"

// Population returns the current generation of g's island i (from 0), for
// the external tests.
func Population(g *GA, i int) []autotune.Point { return g.islands[i].pop }
