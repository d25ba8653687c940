package autotune

import "math/big"

// Exhaustive proposes every point of a space exactly once, in the space's
// lexicographic order (At(0), At(1), ...). It ignores results.
type Exhaustive struct {
	space *Space
	next  *big.Int
	size  *big.Int
}

// NewExhaustive returns an exhaustive search of space.
func NewExhaustive(space *Space) *Exhaustive {
	return &Exhaustive{space: space, next: new(big.Int), size: space.Size()}
}

// Name returns "exhaustive".
func (*Exhaustive) Name() string { return "exhaustive" }

// Next returns the next point in order; ok is false after the last one.
func (e *Exhaustive) Next() (Point, bool) {
	if e.next.Cmp(e.size) >= 0 {
		return Point{}, false
	}
	p := e.space.At(e.next)
	e.next.Add(e.next, bigOne)
	return p, true
}

// Tell does nothing: the order does not depend on results.
func (*Exhaustive) Tell(Point, Result) {}

// Upcoming returns the next n points in order.
func (e *Exhaustive) Upcoming(n int) []Point {
	var out []Point
	i := new(big.Int).Set(e.next)
	for len(out) < n && i.Cmp(e.size) < 0 {
		out = append(out, e.space.At(i))
		i.Add(i, bigOne)
	}
	return out
}

var _ Lookahead = (*Exhaustive)(nil)
