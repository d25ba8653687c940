package autotune

import (
	"math/big"
	"math/rand/v2"
)

// Random is random search, the baseline every other strategy is compared
// against: it proposes points drawn uniformly from the space without
// repeats, until every point was proposed. It ignores results.
//
// It draws distinct indices in [0, Size) with a lazy Fisher-Yates shuffle
// (a map holds the few positions swapped so far), so each draw costs O(1)
// map work plus one At, whatever the size of the space. Spaces of 2^64
// points or more are sampled with rejection of repeated indices instead.
type Random struct {
	space *Space
	r     *rand.Rand
	size  *big.Int
	n     uint64            // size, when it fits
	drawn uint64            // indices drawn so far (small spaces)
	swap  map[uint64]uint64 // lazy Fisher-Yates: position -> index held there
	seen  map[string]bool   // indices drawn so far (huge spaces)
	ahead []Point           // drawn by Upcoming, not yet proposed
}

// NewRandom returns a random search of space drawing from r.
func NewRandom(space *Space, r *rand.Rand) *Random {
	s := &Random{space: space, r: r, size: space.Size()}
	if s.size.IsUint64() {
		s.n = s.size.Uint64()
		s.swap = map[uint64]uint64{}
	} else {
		s.seen = map[string]bool{}
	}
	return s
}

// Name returns "random".
func (*Random) Name() string { return "random" }

// Next returns a point not proposed before; ok is false once every point
// of the space was proposed.
func (s *Random) Next() (Point, bool) {
	if len(s.ahead) > 0 {
		p := s.ahead[0]
		s.ahead = s.ahead[1:]
		return p, true
	}
	i, ok := s.nextIndex()
	if !ok {
		return Point{}, false
	}
	return s.space.At(i), true
}

func (s *Random) nextIndex() (*big.Int, bool) {
	if s.swap == nil {
		for {
			i := randBelow(s.r, s.size)
			if k := i.String(); !s.seen[k] {
				s.seen[k] = true
				return i, true
			}
		}
	}
	if s.drawn >= s.n {
		return nil, false
	}
	k := s.drawn
	j := k + s.r.Uint64N(s.n-k)
	at := func(pos uint64) uint64 {
		if v, ok := s.swap[pos]; ok {
			return v
		}
		return pos
	}
	vj, vk := at(j), at(k)
	s.swap[j] = vk
	delete(s.swap, k)
	s.drawn++
	return new(big.Int).SetUint64(vj), true
}

// Tell does nothing: random search does not learn.
func (*Random) Tell(Point, Result) {}

// Upcoming draws up to n points ahead: Next returns them first, in order,
// so a seeded search proposes the same points whether or not it is asked.
func (s *Random) Upcoming(n int) []Point {
	for len(s.ahead) < n {
		i, ok := s.nextIndex()
		if !ok {
			break
		}
		s.ahead = append(s.ahead, s.space.At(i))
	}
	return append([]Point(nil), s.ahead[:min(n, len(s.ahead))]...)
}

// Take removes p from the points drawn ahead, if it is one of them.
func (s *Random) Take(p Point) bool {
	k := p.Key()
	for i, q := range s.ahead {
		if q.Key() == k {
			s.ahead = append(s.ahead[:i:i], s.ahead[i+1:]...)
			return true
		}
	}
	return false
}

var (
	_ Lookahead = (*Random)(nil)
	_ Picker    = (*Random)(nil)
)
