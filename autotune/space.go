package autotune

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Param is one tuning parameter of a Space.
//
// Constraints are expressed in the ranges, ATF style: a parameter's Range
// already leaves out the values that would break a constraint with the
// parameters before it, so the space holds only points that satisfy every
// constraint and it is never listed to be filtered.
type Param struct {
	Name string
	// Deps names the earlier parameters whose values Range reads. The
	// counting of the space is memoized on them, so Range must not read
	// anything else (reading a parameter not in Deps panics).
	Deps []string
	// Range returns the values the parameter may take given the values of
	// its Deps in partial. The values must be distinct; their order is the
	// order of enumeration (At). Range may return no values (a dead end:
	// the points above it do not exist). It must be deterministic, must not
	// keep partial, must not change a slice it returned before, and must
	// not call methods of the Space (they would deadlock).
	Range func(partial Point) []int
}

// Space is an ordered list of parameters whose ranges depend on the
// parameters before them. Its points are the combinations of values in
// which each value lies in its range given the earlier values; they are
// ordered lexicographically, by parameter order and then by range order.
//
// A Space counts, indexes and samples its points without listing them: the
// number of completions of a partial point is computed by dynamic
// programming over the parameters, memoized on the values of the earlier
// parameters that the remaining ranges read, so a space of 10^12 points
// with a few small dependency groups is counted in microseconds.
//
// A Space is safe for concurrent use.
type Space struct {
	params []Param
	index  map[string]int
	deps   [][]int  // per parameter: indices of its Deps
	live   [][]int  // per level k (0..n): indices i < k read by parameters >= k
	masks  [][]bool // per parameter: which parameters its Range may read

	mu     sync.Mutex
	counts []map[string]*big.Int // per level: completions keyed by live values
	ranges []map[string][]int    // per parameter: ranges keyed by dep values
	size   *big.Int
}

// NewSpace returns the space of the given parameters, in order. Names must
// be unique and non-empty, each Range non-nil, and Deps must name earlier
// parameters.
func NewSpace(params ...Param) (*Space, error) {
	n := len(params)
	s := &Space{
		params: slices.Clone(params),
		index:  make(map[string]int, n),
		deps:   make([][]int, n),
		live:   make([][]int, n+1),
		masks:  make([][]bool, n),
		counts: make([]map[string]*big.Int, n+1),
		ranges: make([]map[string][]int, n),
	}
	for k, p := range params {
		if p.Name == "" {
			return nil, fmt.Errorf("autotune: parameter %d has no name", k)
		}
		if _, dup := s.index[p.Name]; dup {
			return nil, fmt.Errorf("autotune: parameter %s is defined twice", p.Name)
		}
		if p.Range == nil {
			return nil, fmt.Errorf("autotune: parameter %s has no range", p.Name)
		}
		s.masks[k] = make([]bool, n)
		for _, d := range p.Deps {
			i, ok := s.index[d]
			if !ok {
				return nil, fmt.Errorf("autotune: parameter %s depends on %q, which is not an earlier parameter", p.Name, d)
			}
			if !s.masks[k][i] {
				s.masks[k][i] = true
				s.deps[k] = append(s.deps[k], i)
			}
		}
		slices.Sort(s.deps[k])
		s.index[p.Name] = k
		s.ranges[k] = map[string][]int{}
	}
	// live[k] = indices < k in the Deps of any parameter >= k.
	need := make([]bool, n)
	for k := n; k >= 0; k-- {
		if k < n {
			for _, i := range s.deps[k] {
				need[i] = true
			}
		}
		for i := 0; i < k; i++ {
			if need[i] {
				s.live[k] = append(s.live[k], i)
			}
		}
		s.counts[k] = map[string]*big.Int{}
	}
	return s, nil
}

// MustSpace is NewSpace for spaces defined in code; it panics on an error.
func MustSpace(params ...Param) *Space {
	s, err := NewSpace(params...)
	if err != nil {
		panic(err)
	}
	return s
}

// Len returns the number of parameters.
func (s *Space) Len() int { return len(s.params) }

// Names returns the parameter names in order.
func (s *Space) Names() []string {
	out := make([]string, len(s.params))
	for i, p := range s.params {
		out[i] = p.Name
	}
	return out
}

// Index returns the position of the named parameter, or -1.
func (s *Space) Index(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Size returns the number of points of the space (a new big.Int the caller
// may modify). It is computed on the first call.
func (s *Space) Size() *big.Int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return new(big.Int).Set(s.sizeLocked())
}

func (s *Space) sizeLocked() *big.Int {
	if s.size == nil {
		s.size = s.count(0, make([]int, len(s.params)))
	}
	return s.size
}

func appendKey(b []byte, vals []int, idx []int) []byte {
	for _, i := range idx {
		b = binary.AppendVarint(b, int64(vals[i]))
	}
	return b
}

// rangeAt returns the (cached, shared) range of parameter k given vals.
// s.mu must be held.
func (s *Space) rangeAt(k int, vals []int) []int {
	var buf [64]byte
	key := appendKey(buf[:0], vals, s.deps[k])
	if r, ok := s.ranges[k][string(key)]; ok {
		return r
	}
	r := s.params[k].Range(Point{space: s, vals: vals, mask: s.masks[k], level: k})
	r = slices.Clip(slices.Clone(r))
	s.ranges[k][string(key)] = r
	return r
}

// count returns the number of completions of vals[:k] (shared result, do
// not modify). s.mu must be held.
func (s *Space) count(k int, vals []int) *big.Int {
	if k == len(s.params) {
		return bigOne
	}
	var buf [64]byte
	key := appendKey(buf[:0], vals, s.live[k])
	if c, ok := s.counts[k][string(key)]; ok {
		return c
	}
	c := new(big.Int)
	for _, v := range s.rangeAt(k, vals) {
		vals[k] = v
		c.Add(c, s.count(k+1, vals))
	}
	s.counts[k][string(key)] = c
	return c
}

var bigOne = big.NewInt(1)

// At returns the i-th point of the space in lexicographic order. It panics
// unless 0 <= i < Size().
func (s *Space) At(i *big.Int) Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i.Sign() < 0 || i.Cmp(s.sizeLocked()) >= 0 {
		panic(fmt.Sprintf("autotune: point index %v out of range [0, %v)", i, s.size))
	}
	rem := new(big.Int).Set(i)
	vals := make([]int, len(s.params))
	for k := range s.params {
		found := false
		for _, v := range s.rangeAt(k, vals) {
			vals[k] = v
			c := s.count(k+1, vals)
			if rem.Cmp(c) < 0 {
				found = true
				break
			}
			rem.Sub(rem, c)
		}
		if !found {
			panic("autotune: internal error: At ran past the last value of " + s.params[k].Name)
		}
	}
	return Point{space: s, vals: vals}
}

// Sample returns a point drawn uniformly from the space. It panics if the
// space is empty.
func (s *Space) Sample(r *rand.Rand) Point {
	n := s.Size()
	if n.Sign() == 0 {
		panic("autotune: Sample of an empty space")
	}
	return s.At(randBelow(r, n))
}

// Contains reports whether p is a point of s: every value lies in its range
// given the values before it.
func (s *Space) Contains(p Point) bool {
	if len(p.vals) != len(s.params) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vals := make([]int, len(p.vals))
	for k, v := range p.vals {
		if !slices.Contains(s.rangeAt(k, vals), v) {
			return false
		}
		vals[k] = v
	}
	return true
}

// Repair returns the point of s nearest to p, parameter by parameter: each
// value is kept if it lies in its range given the (repaired) values before
// it and leads to at least one point, and otherwise replaced by the closest
// such value (ties go to the smaller). Values missing from p (a shorter
// point, or one of another space) count as 0. Repair of a point of s
// returns it unchanged; Repair on an empty space returns p.
func (s *Space) Repair(p Point) Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sizeLocked().Sign() == 0 {
		return p
	}
	vals := make([]int, len(s.params))
	copy(vals, p.vals)
	for k := range s.params {
		want := vals[k]
		best, bestDist, ok := 0, 0, false
		for _, v := range s.rangeAt(k, vals) {
			vals[k] = v
			if s.count(k+1, vals).Sign() == 0 {
				continue
			}
			d := v - want
			if d < 0 {
				d = -d
			}
			if !ok || d < bestDist || (d == bestDist && v < best) {
				best, bestDist, ok = v, d, true
			}
			if d == 0 {
				break
			}
		}
		if !ok {
			panic("autotune: internal error: Repair found no value for " + s.params[k].Name)
		}
		vals[k] = best
	}
	return Point{space: s, vals: vals}
}

// Range returns the values parameter k may take given the values p has for
// the parameters before it (a copy the caller may modify).
func (s *Space) Range(k int, p Point) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	vals := make([]int, len(s.params))
	copy(vals[:k], p.vals)
	return slices.Clone(s.rangeAt(k, vals))
}

// FromValues returns the point of s with the given values, one per
// parameter in order. The point need not be in the space (see Contains and
// Repair).
func (s *Space) FromValues(vals []int) (Point, error) {
	if len(vals) != len(s.params) {
		return Point{}, fmt.Errorf("autotune: %d values for a space of %d parameters", len(vals), len(s.params))
	}
	return Point{space: s, vals: slices.Clone(vals)}, nil
}

// PointOf returns the point of s with the values of m; parameters missing
// from m are 0, names m has that s lacks are an error. The point need not
// be in the space (see Contains and Repair).
func (s *Space) PointOf(m map[string]int) (Point, error) {
	vals := make([]int, len(s.params))
	var unknown []string
	for name, v := range m {
		i, ok := s.index[name]
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		vals[i] = v
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Point{}, fmt.Errorf("autotune: unknown parameter(s) %s (known: %s)", strings.Join(unknown, ", "), strings.Join(s.Names(), ", "))
	}
	return Point{space: s, vals: vals}, nil
}

// Point is one setting of a space's parameters. Points are values: their
// methods never modify them. The zero Point has no parameters.
type Point struct {
	space *Space
	vals  []int
	// In the partial point a Range receives: the parameters it may read,
	// and its own position.
	mask  []bool
	level int
}

// Space returns the space the point belongs to (nil for the zero Point).
func (p Point) Space() *Space { return p.space }

// Len returns the number of values.
func (p Point) Len() int { return len(p.vals) }

// IsZero reports whether p is the zero Point.
func (p Point) IsZero() bool { return p.space == nil && p.vals == nil }

// Value returns the value of the k-th parameter.
func (p Point) Value(k int) int {
	if p.mask != nil && !p.mask[k] {
		panic(p.hidden(p.space.params[k].Name))
	}
	return p.vals[k]
}

// Values returns the values in parameter order (a copy).
func (p Point) Values() []int { return slices.Clone(p.vals) }

// Lookup returns the value of the named parameter and whether the point's
// space has it.
func (p Point) Lookup(name string) (int, bool) {
	if p.space == nil {
		return 0, false
	}
	i, ok := p.space.index[name]
	if !ok || i >= len(p.vals) {
		return 0, false
	}
	if p.mask != nil && !p.mask[i] {
		panic(p.hidden(name))
	}
	return p.vals[i], true
}

// Get returns the value of the named parameter, 0 if the space has none of
// that name. In a Range, reading a parameter not in its Deps panics.
func (p Point) Get(name string) int {
	v, _ := p.Lookup(name)
	return v
}

func (p Point) hidden(name string) string {
	return fmt.Sprintf("autotune: the range of %s reads %s, which is not in its Deps", p.space.params[p.level].Name, name)
}

// With returns a copy of p with the k-th value set to v.
func (p Point) With(k, v int) Point {
	q := Point{space: p.space, vals: slices.Clone(p.vals)}
	q.vals[k] = v
	return q
}

// Key returns a string that identifies the values of p, for maps.
func (p Point) Key() string {
	b := make([]byte, 0, 4*len(p.vals))
	for i, v := range p.vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(b)
}

// Equal reports whether p and q have the same values.
func (p Point) Equal(q Point) bool { return slices.Equal(p.vals, q.vals) }

// Map returns the point as parameter name to value.
func (p Point) Map() map[string]int {
	m := make(map[string]int, len(p.vals))
	if p.space == nil {
		return m
	}
	for i, v := range p.vals {
		m[p.space.params[i].Name] = v
	}
	return m
}

// String prints the point as name=value pairs in parameter order.
func (p Point) String() string {
	if p.space == nil {
		return "{}"
	}
	var b strings.Builder
	for i, v := range p.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.space.params[i].Name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// NewRand returns the random source the strategies are seeded with: a PCG
// generator whose sequence depends only on seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// randBelow returns a uniform integer in [0, n), n > 0.
func randBelow(r *rand.Rand, n *big.Int) *big.Int {
	if n.IsUint64() {
		return new(big.Int).SetUint64(r.Uint64N(n.Uint64()))
	}
	// Rejection sampling on n.BitLen() random bits: each draw is below
	// 2n, so it is accepted with probability above 1/2.
	bits := n.BitLen()
	buf := make([]byte, (bits+7)/8)
	x := new(big.Int)
	for {
		for i := 0; i < len(buf); i += 8 {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], r.Uint64())
			copy(buf[i:], w[:])
		}
		if extra := len(buf)*8 - bits; extra > 0 {
			buf[0] &= 0xff >> extra
		}
		if x.SetBytes(buf).Cmp(n) < 0 {
			return x
		}
	}
}
