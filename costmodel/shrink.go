package costmodel

import (
	"github.com/hplopt/hplopt/autotune"
)

// Tell records p's result; a start point rejected (autotune.Rejected) is
// shrunk along Shrink's parameters, and a point so shrunk that is rejected
// again is shrunk further along its own (BayesSettings.Shrink).
//
// The start points of a kernel on a GPU are shapes chosen for the device
// (optimizer's seeds), and the passes reject one whose work-group or local
// memory is over the device's limits. The same shape in a smaller
// work-group keeps what made it worth starting from: its points per
// work-item, its tiles, its staging. Halving the work-group fixes most
// such rejections (its size, the local memory its tiles take, a local size
// that does not divide the global one), and a rejection costs nothing: the
// steps down that are rejected again are not evaluations.
func (b *Bayes) Tell(p autotune.Point, r autotune.Result) {
	if _, told := b.seen.Fitness(p); told {
		return
	}
	if len(b.set.Shrink) == 0 || !autotune.Rejected(r) {
		b.stages.Tell(p, r)
		return
	}
	if b.shrink == nil {
		b.shrink = map[string]int{}
		for _, s := range b.set.Seeds[:min(len(b.set.Seeds), b.set.Starts)] {
			b.shrink[b.space.Repair(s).Key()] = -1
		}
		b.rejected = map[string]bool{}
	}
	b.rejected[p.Key()] = true
	along, ok := b.shrink[p.Key()]
	if !ok || along < 0 {
		b.stages.Tell(p, r)
	} else {
		// A shrunk point rejected: not the model's to fit, as it did
		// not choose it.
		b.seen.Tell(p, r)
	}
	if !ok {
		return
	}
	var add []autotune.Point
	for _, name := range b.set.Shrink {
		k := b.space.Index(name)
		if k < 0 || (along >= 0 && k != along) {
			continue
		}
		if q, ok := b.shrunk(p, k); ok {
			b.seen.Propose(q)
			b.shrink[q.Key()] = k
			add = append(add, q)
		}
	}
	b.queue = append(add, b.queue...)
}

// shrunk returns p with parameter k moved one step down its range,
// repaired into the space, or further down past points already rejected,
// when that point was never proposed.
func (b *Bayes) shrunk(p autotune.Point, k int) (autotune.Point, bool) {
	rng := b.space.Range(k, p)
	j := len(rng) - 1
	for j >= 0 && rng[j] != p.Value(k) {
		j--
	}
	for j--; j >= 0; j-- {
		q := b.space.Repair(p.With(k, rng[j]))
		switch {
		case !b.space.Contains(q):
			return autotune.Point{}, false
		case !b.seen.Seen(q):
			return q, true
		case !b.rejected[q.Key()]:
			return autotune.Point{}, false
		}
	}
	return autotune.Point{}, false
}
