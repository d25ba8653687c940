package costmodel

import (
	"math/rand/v2"

	"github.com/hplopt/hplopt/autotune"
)

// stages is what Model and Bayes share: the points of the current stage or
// round, planned ahead and proposed in order, the memory of the points
// proposed and told, and the results told, in order. Each strategy plans
// its stages; stages hands their points out.
type stages struct {
	space *autotune.Space
	r     *rand.Rand
	seen  *autotune.Visited

	queue   []autotune.Point // points Next returns, in order
	started bool             // the first stage was planned
	rounds  int              // rounds planned after the first stage
	data    []autotune.Point // points told, in order
	fit     []float64        // fitness of data
	// all holds every point of space, in index order, once a round
	// predicted the whole space (poolOf): enumerated once per search, not
	// once per round (points are values; none is changed in place).
	all []autotune.Point
}

func newStages(space *autotune.Space, r *rand.Rand) stages {
	return stages{space: space, r: r, seen: autotune.NewVisited(space, r)}
}

// next returns the next point of the queue never told, calling plan to
// fill the queue when it is empty (plan returns false when no point is
// left).
func (s *stages) next(plan func() bool) (autotune.Point, bool) {
	for {
		for len(s.queue) > 0 {
			p := s.queue[0]
			s.queue = s.queue[1:]
			if _, told := s.seen.Fitness(p); !told {
				return p, true
			}
		}
		if !plan() {
			return autotune.Point{}, false
		}
	}
}

// upcoming returns up to n of the points next returns next, planning the
// first stage if it was not.
func (s *stages) upcoming(n int, plan func() bool) []autotune.Point {
	if !s.started {
		plan()
	}
	var out []autotune.Point
	for _, p := range s.queue {
		if len(out) == n {
			break
		}
		if _, told := s.seen.Fitness(p); !told {
			out = append(out, p)
		}
	}
	return out
}

// unproposed returns up to n of ps, in order, never proposed nor told:
// the guesses a Likely hands out.
func (s *stages) unproposed(ps []autotune.Point, n int) []autotune.Point {
	var out []autotune.Point
	for _, p := range ps {
		if len(out) == n {
			break
		}
		if !s.seen.Seen(p) {
			out = append(out, p)
		}
	}
	return out
}

// Take removes p from the points of the current stage or round still to be
// proposed, if it is one of them.
func (s *stages) Take(p autotune.Point) bool {
	for i, q := range s.queue {
		if q.Equal(p) {
			s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
			return true
		}
	}
	return false
}

// Tell records p's result (also of points another technique proposed).
func (s *stages) Tell(p autotune.Point, r autotune.Result) {
	if _, told := s.seen.Fitness(p); told {
		return
	}
	s.seen.Tell(p, r)
	s.data = append(s.data, p)
	s.fit = append(s.fit, r.Fitness())
}

// start queues the first stage, n points: the seeds (repaired into the
// space, those never proposed), then random points.
func (s *stages) start(seeds []autotune.Point, n int) {
	s.started = true
	for len(s.queue) < n {
		p, rest, ok := s.seen.Seed(seeds)
		if !ok {
			break
		}
		seeds = rest
		s.queue = append(s.queue, p)
	}
	s.random(n - len(s.queue))
}

// random appends up to n fresh random points to the queue.
func (s *stages) random(n int) {
	for range n {
		p, ok := s.seen.Fresh()
		if !ok {
			return
		}
		s.queue = append(s.queue, p)
	}
}

// resize trims the queue to want points, forgetting those dropped, or
// extends it with random ones.
func (s *stages) resize(want int) {
	switch queued := len(s.queue); {
	case want < queued:
		for _, p := range s.queue[want:] {
			s.seen.Forget(p)
		}
		s.queue = s.queue[:want]
	case want > queued:
		s.random(want - queued)
	}
}

// enqueue makes ps, points never proposed, the queue.
func (s *stages) enqueue(ps []autotune.Point) {
	for _, p := range ps {
		s.seen.Propose(p)
	}
	s.queue = ps
}
