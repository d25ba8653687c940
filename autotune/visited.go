package autotune

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Visited is a strategy's memory of the points it proposed and of the
// results it was told, so that it never proposes a point twice: the points
// proposed and not yet told (pending), the fitness of those told (any
// point of the space, also those another strategy proposed), the best of
// them, and a source of fresh points (never proposed nor told) drawn
// uniformly at random.
type Visited struct {
	space   *Space
	sampler *Random
	fit     map[string]float64
	pending map[string]bool
	found   bool
	best    Point
	bestFit float64
}

// NewVisited returns an empty memory of space; fresh points are drawn from
// r.
func NewVisited(space *Space, r *rand.Rand) *Visited {
	return &Visited{space: space, sampler: NewRandom(space, r), fit: map[string]float64{}, pending: map[string]bool{}, bestFit: math.Inf(1)}
}

// Propose marks p as proposed: Seen reports it until it is told, and Fresh
// never returns it.
func (v *Visited) Propose(p Point) { v.pending[p.Key()] = true }

// Forget undoes Propose for a point not yet told: Fresh may return it
// again.
func (v *Visited) Forget(p Point) { delete(v.pending, p.Key()) }

// Seed returns the first of seeds that, repaired into the space (Space.Repair),
// is a point of it never proposed nor told, and marks it proposed; rest are
// the seeds after it. ok is false when no seed is left.
func (v *Visited) Seed(seeds []Point) (p Point, rest []Point, ok bool) {
	for len(seeds) > 0 {
		p, seeds = v.space.Repair(seeds[0]), seeds[1:]
		if v.space.Contains(p) && !v.Seen(p) {
			v.Propose(p)
			return p, seeds, true
		}
	}
	return Point{}, nil, false
}

// Tell records the result of p.
func (v *Visited) Tell(p Point, r Result) {
	k := p.Key()
	delete(v.pending, k)
	f := r.Fitness()
	v.fit[k] = f
	if f < v.bestFit {
		v.found, v.best, v.bestFit = true, p, f
	}
}

// Seen reports whether p was proposed or told.
func (v *Visited) Seen(p Point) bool {
	k := p.Key()
	_, told := v.fit[k]
	return told || v.pending[k]
}

// Fitness returns p's fitness (+Inf for a failure) and whether it was told.
func (v *Visited) Fitness(p Point) (float64, bool) {
	f, ok := v.fit[p.Key()]
	return f, ok
}

// Measured returns the number of points told.
func (v *Visited) Measured() int { return len(v.fit) }

// Best returns the fastest point told, its time, and whether any
// succeeded.
func (v *Visited) Best() (Point, float64, bool) { return v.best, v.bestFit, v.found }

// Fresh returns a point never proposed nor told, drawn at random, and marks
// it proposed; ok is false when there is none left.
func (v *Visited) Fresh() (Point, bool) {
	for {
		p, ok := v.sampler.Next()
		if !ok {
			return Point{}, false
		}
		if !v.Seen(p) {
			v.Propose(p)
			return p, true
		}
	}
}

// Neighbours returns the points of space next to p: one parameter moved to
// the value before or after it in its range (given the values before it),
// the parameters after it repaired into the space (Space.Repair) where the
// move leaves their values out of range. They are distinct, in parameter
// order, and exclude p.
func (s *Space) Neighbours(p Point) []Point {
	return s.moves(p, map[string]bool{p.Key(): true}, nil)
}

// Anchored returns the anchored moves of p: each move of Neighbours (one
// parameter to the value before or after it in its range) in which every
// later parameter at the top of a range of two or more values, when the
// move changes that range, stays at its top instead of keeping its value,
// the others repaired into the space (Space.Repair). A range of one value
// has no top to keep (a flag allowed only 0 is not at its top). Where a
// range is defined relative to another parameter (Table 2's sz_d: the
// work-items that give each one 1, 2, 4, ... blocks, the top one block per
// work-item; lsz_d: up to the blocks along d), this keeps what the top
// means (one block per work-item; a work-group as wide as the blocks)
// where Neighbours keeps the number. They are distinct, in parameter
// order, and exclude p and the points Neighbours returns.
func (s *Space) Anchored(p Point) []Point {
	seen := map[string]bool{p.Key(): true}
	for _, q := range s.Neighbours(p) {
		seen[q.Key()] = true
	}
	// was[m]: parameter m's range at p, the same for every move.
	was := make([][]int, s.Len())
	for m := range was {
		was[m] = s.Range(m, p)
	}
	return s.moves(p, seen, func(k int, q Point) Point {
		for m := k + 1; m < s.Len(); m++ {
			r := was[m]
			if len(r) < 2 || r[len(r)-1] != p.Value(m) {
				continue
			}
			if now := s.Range(m, q); len(now) > 0 && !slices.Equal(r, now) {
				q = q.With(m, now[len(now)-1])
			}
		}
		return q
	})
}

// moves returns the points of the space one move from p (one parameter k
// to the value before or after it in its range), each passed through
// adjust (nil: none) before it is repaired, those whose key is not in seen
// and that the space contains, in parameter order; it adds their keys to
// seen.
func (s *Space) moves(p Point, seen map[string]bool, adjust func(k int, q Point) Point) []Point {
	var out []Point
	for k := 0; k < p.Len() && k < s.Len(); k++ {
		r := s.Range(k, p)
		i := slices.Index(r, p.Value(k))
		if i < 0 {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(r) {
				continue
			}
			q := p.With(k, r[j])
			if adjust != nil {
				q = adjust(k, q)
			}
			q = s.Repair(q)
			if key := q.Key(); !seen[key] && s.Contains(q) {
				seen[key] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// Near returns up to n distinct points of the space near the seeds, each
// one of seeds (in turn) with one parameter, drawn from r, moved to the
// value next to its own in its range (up or down, drawn from r), repaired;
// a point for which skip (nil: none) returns true, given its key, is left
// out. It gives up after 20n draws. Random search's neighbourhood of a
// start point: the genetic algorithm's first generation and the opening
// search's initial points hold such points.
func (s *Space) Near(r *rand.Rand, seeds []Point, n int, skip func(key string) bool) []Point {
	var out []Point
	seen := map[string]bool{}
	for try := 0; len(out) < n && len(seeds) > 0 && try < 20*n; try++ {
		p := seeds[try%len(seeds)]
		k := r.IntN(p.Len())
		rg := s.Range(k, p)
		i := slices.Index(rg, p.Value(k))
		if i < 0 || len(rg) < 2 {
			continue
		}
		j := i + 1
		if j == len(rg) || (i > 0 && r.IntN(2) == 0) {
			j = i - 1
		}
		q := s.Repair(p.With(k, rg[j]))
		if key := q.Key(); s.Contains(q) && !seen[key] && (skip == nil || !skip(key)) {
			seen[key] = true
			out = append(out, q)
		}
	}
	return out
}
