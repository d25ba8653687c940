package genetic

import "github.com/hplopt/hplopt/autotune"

// Population returns g's current generation, for the external tests.
func Population(g *GA) []autotune.Point { return g.pop }
