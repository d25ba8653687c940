package autotune

import (
	"math"
	"math/rand/v2"
)

var (
	_ Strategy  = (*PSO)(nil)
	_ Lookahead = (*PSO)(nil)
)

// PSOSettings controls the particle swarm. The zero value gives the
// defaults below, CLTune's (its paper's α = 0.4, β = 0, γ = 0.4, S = 3 or
// 6).
type PSOSettings struct {
	// Swarm is the number of particles. Default 6.
	Swarm int
	// Global is γ, the probability that a particle takes a parameter's
	// value from the swarm's best point. Default 0.4; negative for never.
	Global float64
	// Local is β, the probability (when not global) that it takes the
	// value from its own best point. Default 0 (CLTune's: no local-best
	// influence); set it positive to use it.
	Local float64
	// Random is α, the probability (when neither) that it takes a random
	// value of the parameter's range. Default 0.4; negative for never.
	Random float64
	// Seeds are starting positions of the first particles, repaired into
	// the space. Default none: random positions.
	Seeds []Point
}

func (s PSOSettings) withDefaults() PSOSettings {
	if s.Swarm <= 0 {
		s.Swarm = 6
	}
	if s.Global == 0 {
		s.Global = 0.4
	}
	if s.Random == 0 {
		s.Random = 0.4
	}
	return s
}

// PSO is CLTune's discrete particle swarm (accelerated PSO without
// velocities): the particles take turns; after a particle's position was
// measured it moves, parameter by parameter in the space's order, to the
// swarm's best value with probability Global, else to its own best's with
// probability Local, else to a random value of the parameter's range
// (given the values before it) with probability Random, else it keeps its
// value; the new position is repaired into the space. A position already
// measured, or held by another particle, is redrawn (up to 20 times) and
// then replaced by a random point never measured (CLTune would measure it
// again). A failed point (fitness +Inf) is never a best. Next returns
// ok=false once every point was proposed.
//
// PSO is a Lookahead: the positions of the particles after the current one
// are known before its result (up to Swarm-1 points).
type PSO struct {
	space *Space
	r     *rand.Rand
	set   PSOSettings
	seen  *Visited

	parts    []particle
	turn     int  // the particle whose position is proposed next
	proposed bool // parts[turn].pos was proposed and awaits its result
	started  bool
}

type particle struct {
	pos     Point // zero: no position left
	best    Point
	bestFit float64
}

// NewPSO returns a particle swarm search of space drawing from r.
func NewPSO(space *Space, r *rand.Rand, set PSOSettings) *PSO {
	return &PSO{space: space, r: r, set: set.withDefaults(), seen: NewVisited(space, r)}
}

// Name returns "pso".
func (*PSO) Name() string { return "pso" }

// init places the particles: the seeds, then random points.
func (s *PSO) init() {
	s.started = true
	s.parts = make([]particle, s.set.Swarm)
	seeds := s.set.Seeds
	for i := range s.parts {
		s.parts[i].bestFit = math.Inf(1)
		p, rest, ok := s.seen.Seed(seeds)
		seeds = rest
		if !ok {
			p, _ = s.seen.Fresh()
		}
		s.parts[i].pos = p
	}
}

// Next returns the position of the particle whose turn it is.
func (s *PSO) Next() (Point, bool) {
	if !s.started {
		s.init()
	}
	for tries := 0; tries < 3*len(s.parts); tries++ {
		pt := &s.parts[s.turn]
		if pt.pos.IsZero() {
			s.turn = (s.turn + 1) % len(s.parts)
			continue
		}
		if f, told := s.seen.Fitness(pt.pos); told {
			// Measured meanwhile (a bandit's other technique): learn
			// from it and move on.
			s.learn(s.turn, pt.pos, f)
			continue
		}
		s.proposed = true
		return pt.pos, true
	}
	return Point{}, false
}

// Upcoming returns the positions of the next particles, in turn order.
func (s *PSO) Upcoming(n int) []Point {
	if !s.started {
		s.init()
	}
	var out []Point
	first := s.turn
	if s.proposed {
		first++
	}
	for i := 0; i < len(s.parts) && len(out) < n; i++ {
		j := (first + i) % len(s.parts)
		if j == s.turn && s.proposed {
			break
		}
		if p := s.parts[j].pos; !p.IsZero() {
			if _, told := s.seen.Fitness(p); !told {
				out = append(out, p)
			}
		}
	}
	return out
}

// Tell records p's result; for the position just proposed, the particle
// learns from it and moves, and the next particle's turn comes. Results of
// other points (a bandit's other techniques) are recorded and may be the
// swarm's best.
func (s *PSO) Tell(p Point, r Result) {
	s.seen.Tell(p, r)
	if !s.proposed || !p.Equal(s.parts[s.turn].pos) {
		return
	}
	s.proposed = false
	s.learn(s.turn, p, r.Fitness())
}

// learn updates particle i's best with its position p of fitness f, moves
// it, and passes the turn.
func (s *PSO) learn(i int, p Point, f float64) {
	pt := &s.parts[i]
	if f < pt.bestFit {
		pt.best, pt.bestFit = p, f
	}
	pt.pos = s.move(i)
	s.turn = (i + 1) % len(s.parts)
}

// move returns particle i's next position, never proposed before.
func (s *PSO) move(i int) Point {
	pt := s.parts[i]
	g, _, gok := s.seen.Best()
	for try := 0; try < 20; try++ {
		vals := pt.pos.Values()
		for d := range vals {
			switch {
			case gok && s.r.Float64() < s.set.Global:
				vals[d] = g.Value(d)
			case !pt.best.IsZero() && s.r.Float64() < s.set.Local:
				vals[d] = pt.best.Value(d)
			case s.r.Float64() < s.set.Random:
				q, _ := s.space.FromValues(vals)
				if r := s.space.Range(d, q); len(r) > 0 {
					vals[d] = r[s.r.IntN(len(r))]
				}
			}
		}
		q, err := s.space.FromValues(vals)
		if err != nil {
			break
		}
		q = s.space.Repair(q)
		if s.space.Contains(q) && !s.seen.Seen(q) {
			s.seen.Propose(q)
			return q
		}
	}
	q, _ := s.seen.Fresh()
	return q
}
