package transforms

import "maps"

// Carry returns the setting m (parameter name to value) of a problem over
// the index space from carried over to the index space to, as a search of
// a shape never tuned starts from the best of a recorded one: each global
// size keeps the number of blocks a work-item computes (the size of the
// new index space divided by it, rounded up to a multiple of the local
// size); the other parameters are kept. m is not changed.
func Carry(m map[string]int, from, to []int) map[string]int {
	out := maps.Clone(m)
	for d := 0; d < len(from) && d < len(to) && d < 3; d++ {
		bsz, lsz, sz := max(1, m[string(Block(d))]), max(1, m[string(Local(d))]), m[string(Global(d))]
		if sz <= 0 {
			continue
		}
		per := ceilDiv(ceilDiv(from[d], bsz), sz)
		out[string(Global(d))] = ceilDiv(ceilDiv(ceilDiv(to[d], bsz), per), lsz) * lsz
	}
	return out
}

// ceilDiv is a/b rounded up, for positive a and b.
func ceilDiv(a, b int) int { return (a + b - 1) / b }
