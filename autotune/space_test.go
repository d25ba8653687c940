package autotune

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
)

func vals(v ...int) func(Point) []int { return func(Point) []int { return v } }

// divSpace is a small space with dependencies and dead ends:
//
//	a in 1..6
//	b in divisors of a, b < a   (a = 1 is a dead end)
//	c in {0,1} if b is even, else {0}
//	d in 1..3
func divSpace(t testing.TB) *Space {
	t.Helper()
	s, err := NewSpace(
		Param{Name: "a", Range: vals(1, 2, 3, 4, 5, 6)},
		Param{Name: "b", Deps: []string{"a"}, Range: func(p Point) []int {
			a := p.Get("a")
			var r []int
			for b := 1; b < a; b++ {
				if a%b == 0 {
					r = append(r, b)
				}
			}
			return r
		}},
		Param{Name: "c", Deps: []string{"b"}, Range: func(p Point) []int {
			if p.Get("b")%2 == 0 {
				return []int{0, 1}
			}
			return []int{0}
		}},
		Param{Name: "d", Range: vals(3, 1, 2)},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// divPoints lists divSpace by brute force, in its lexicographic order.
func divPoints() [][]int {
	var out [][]int
	for a := 1; a <= 6; a++ {
		for b := 1; b < a; b++ {
			if a%b != 0 {
				continue
			}
			cs := []int{0}
			if b%2 == 0 {
				cs = []int{0, 1}
			}
			for _, c := range cs {
				for _, d := range []int{3, 1, 2} {
					out = append(out, []int{a, b, c, d})
				}
			}
		}
	}
	return out
}

func TestNewSpaceErrors(t *testing.T) {
	r := vals(1)
	for _, tc := range []struct {
		params []Param
		want   string
	}{
		{[]Param{{Name: "", Range: r}}, "no name"},
		{[]Param{{Name: "a", Range: r}, {Name: "a", Range: r}}, "defined twice"},
		{[]Param{{Name: "a"}}, "no range"},
		{[]Param{{Name: "a", Deps: []string{"b"}, Range: r}, {Name: "b", Range: r}}, "not an earlier parameter"},
		{[]Param{{Name: "a", Deps: []string{"a"}, Range: r}}, "not an earlier parameter"},
	} {
		_, err := NewSpace(tc.params...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "autotune: ") {
			t.Errorf("NewSpace(%v): err = %v, want %q", tc.params, err, tc.want)
		}
	}
}

func TestAtEnumeratesSpace(t *testing.T) {
	s := divSpace(t)
	want := divPoints()
	if got := s.Size(); got.Cmp(big.NewInt(int64(len(want)))) != 0 {
		t.Fatalf("Size = %v, want %d", got, len(want))
	}
	seen := map[string]bool{}
	for i := range want {
		p := s.At(big.NewInt(int64(i)))
		if !slices.Equal(p.Values(), want[i]) {
			t.Errorf("At(%d) = %v, want %v", i, p.Values(), want[i])
		}
		if !s.Contains(p) {
			t.Errorf("At(%d) = %v: not Contained", i, p)
		}
		if seen[p.Key()] {
			t.Errorf("At(%d) = %v: repeated", i, p)
		}
		seen[p.Key()] = true
	}
	for _, i := range []int64{-1, int64(len(want))} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) did not panic", i)
				}
			}()
			s.At(big.NewInt(i))
		}()
	}
}

func TestContains(t *testing.T) {
	s := divSpace(t)
	for _, tc := range []struct {
		v    []int
		want bool
	}{
		{[]int{4, 2, 1, 2}, true},
		{[]int{4, 1, 1, 2}, false}, // c=1 needs an even b
		{[]int{1, 1, 0, 1}, false}, // a=1 has no b
		{[]int{6, 4, 0, 1}, false},
		{[]int{6, 3, 0, 4}, false},
		{[]int{6, 3, 0}, false},
	} {
		p := Point{space: s, vals: tc.v}
		if got := s.Contains(p); got != tc.want {
			t.Errorf("Contains(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestRepair(t *testing.T) {
	s := divSpace(t)
	for i := range s.Size().Int64() {
		p := s.At(big.NewInt(i))
		if q := s.Repair(p); !q.Equal(p) {
			t.Errorf("Repair(%v) = %v, want it unchanged", p, q)
		}
	}
	check := func(s *Space, in, want []int) {
		t.Helper()
		p, err := s.FromValues(in)
		if err != nil {
			t.Fatal(err)
		}
		got := s.Repair(p)
		if !slices.Equal(got.Values(), want) {
			t.Errorf("Repair(%v) = %v, want %v", in, got.Values(), want)
		}
		if !s.Contains(got) {
			t.Errorf("Repair(%v) = %v: not in the space", in, got)
		}
	}
	check(s, []int{1, 1, 0, 1}, []int{2, 1, 0, 1}) // a=1 is a dead end: nearest live a is 2
	check(s, []int{6, 5, 1, 9}, []int{6, 3, 0, 3})
	check(s, []int{5, 2, 1, 2}, []int{5, 1, 0, 2})
	check(s, []int{4, 3, 1, 0}, []int{4, 2, 1, 1})
	check(MustSpace(Param{Name: "x", Range: vals(4, 2)}), []int{3}, []int{2}) // ties go to the smaller

	// A point of another space, shorter: missing values are 0.
	other := MustSpace(Param{Name: "a", Range: vals(6)})
	if got := s.Repair(other.At(big.NewInt(0))); !slices.Equal(got.Values(), []int{6, 1, 0, 1}) {
		t.Errorf("Repair of a foreign point = %v", got.Values())
	}
}

func TestRangeReadsOnlyDeps(t *testing.T) {
	s := MustSpace(
		Param{Name: "a", Range: vals(1, 2)},
		Param{Name: "b", Range: func(p Point) []int { return []int{p.Get("a")} }},
	)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "range of b reads a, which is not in its Deps") {
			t.Errorf("panic = %v", r)
		}
	}()
	s.Size()
}

func TestPoint(t *testing.T) {
	s := divSpace(t)
	p, err := s.PointOf(map[string]int{"a": 6, "b": 3, "d": 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "a=6,b=3,c=0,d=2"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := p.Key(), "6,3,0,2"; got != want {
		t.Errorf("Key = %q, want %q", got, want)
	}
	if p.Get("b") != 3 || p.Get("zz") != 0 || p.Value(3) != 2 {
		t.Errorf("Get/Value wrong on %v", p)
	}
	if _, ok := p.Lookup("zz"); ok {
		t.Errorf("Lookup(zz) found a value")
	}
	if m := p.Map(); len(m) != 4 || m["a"] != 6 || m["c"] != 0 {
		t.Errorf("Map = %v", m)
	}
	q := p.With(1, 2)
	if p.Get("b") != 3 || q.Get("b") != 2 || p.Equal(q) {
		t.Errorf("With changed the original or did not change the copy: %v %v", p, q)
	}
	v := p.Values()
	v[0] = 99
	if p.Get("a") != 6 {
		t.Errorf("Values aliases the point")
	}
	if _, err := s.PointOf(map[string]int{"a": 1, "zz": 2, "yy": 3}); err == nil || !strings.Contains(err.Error(), "unknown parameter(s) yy, zz") {
		t.Errorf("PointOf unknown names: err = %v", err)
	}
	if _, err := s.FromValues([]int{1}); err == nil {
		t.Errorf("FromValues with 1 value for 4 parameters: no error")
	}
	var zero Point
	if !zero.IsZero() || zero.String() != "{}" || zero.Len() != 0 || len(zero.Map()) != 0 {
		t.Errorf("zero Point misbehaves")
	}
}

// chainSpace has n parameters with values 1..10, each different from the
// one before: 10 * 9^(n-1) points, counted without listing them.
func chainSpace(t testing.TB, n int) *Space {
	t.Helper()
	var params []Param
	for i := range n {
		name := "p" + string(rune('a'+i))
		p := Param{Name: name, Range: vals(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}
		if i > 0 {
			prev := "p" + string(rune('a'+i-1))
			p.Deps = []string{prev}
			p.Range = func(pt Point) []int {
				var r []int
				for v := 1; v <= 10; v++ {
					if v != pt.Get(prev) {
						r = append(r, v)
					}
				}
				return r
			}
		}
		params = append(params, p)
	}
	s, err := NewSpace(params...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSizeHugeWithoutListing(t *testing.T) {
	// 10 * 9^11 = 3.1e11 points: listing them would not finish.
	s := chainSpace(t, 12)
	want := new(big.Int).Mul(big.NewInt(10), new(big.Int).Exp(big.NewInt(9), big.NewInt(11), nil))
	if got := s.Size(); got.Cmp(want) != 0 {
		t.Fatalf("Size = %v, want %v", got, want)
	}
	r := NewRand(1)
	for range 1000 {
		p := s.Sample(r)
		if !s.Contains(p) {
			t.Fatalf("Sample = %v: not in the space", p)
		}
	}
	last := s.At(new(big.Int).Sub(want, bigOne))
	if got := last.Key(); got != "10,9,10,9,10,9,10,9,10,9,10,9" {
		t.Errorf("last point = %s", got)
	}

	// 10^30 points: beyond uint64.
	var params []Param
	for i := range 30 {
		params = append(params, Param{Name: "q" + string(rune('A'+i)), Range: vals(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)})
	}
	big30 := MustSpace(params...)
	want = new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)
	if got := big30.Size(); got.Cmp(want) != 0 {
		t.Fatalf("Size = %v, want %v", got, want)
	}
	i, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	if got := big30.At(i).Key(); got != "1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0" {
		t.Errorf("At(%v) = %s", i, got)
	}
	rnd := NewRandom(big30, NewRand(2))
	seen := map[string]bool{}
	for range 100 {
		p, ok := rnd.Next()
		if !ok || seen[p.Key()] {
			t.Fatalf("Random on 10^30 points: ok=%v, repeat=%v", ok, seen[p.Key()])
		}
		seen[p.Key()] = true
	}
}

func BenchmarkSizeChain(b *testing.B) {
	for b.Loop() {
		chainSpace(b, 12).Size()
	}
}

// TestSampleUniform checks with a chi-square statistic that Sample is
// uniform over the points of a space whose subtrees differ in size (a
// sampler that drew each value uniformly from its range would fail it).
func TestSampleUniform(t *testing.T) {
	s := divSpace(t)
	n := int(s.Size().Int64())
	const draws = 40000
	counts := map[string]int{}
	r := NewRand(7)
	for range draws {
		counts[s.Sample(r).Key()]++
	}
	if len(counts) != n {
		t.Fatalf("%d distinct points sampled, want %d", len(counts), n)
	}
	exp := float64(draws) / float64(n)
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	df := float64(n - 1)
	// Mean df, standard deviation sqrt(2 df): 5 deviations is far out.
	if limit := df + 5*math.Sqrt(2*df); chi2 > limit {
		t.Errorf("chi-square = %.1f over %d points, want < %.1f", chi2, n, limit)
	}
}

func TestRandBelow(t *testing.T) {
	r := NewRand(3)
	n, _ := new(big.Int).SetString("300000000000000000000", 10) // > 2^64
	var top int
	for range 2000 {
		x := randBelow(r, n)
		if x.Sign() < 0 || x.Cmp(n) >= 0 {
			t.Fatalf("randBelow = %v, out of [0, %v)", x, n)
		}
		if x.Cmp(new(big.Int).Rsh(n, 1)) >= 0 {
			top++
		}
	}
	if top < 850 || top > 1150 {
		t.Errorf("%d of 2000 draws in the upper half, want about 1000", top)
	}
}
