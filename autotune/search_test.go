package autotune

import (
	"context"
	"math"
	"testing"
)

func TestNeighbours(t *testing.T) {
	s := divSpace(t)
	// a=6: b in {1,2,3}; b=2: c in {0,1}; d in {3,1,2} (range order).
	p, _ := s.FromValues([]int{6, 2, 1, 1})
	got := map[string]bool{}
	for _, q := range s.Neighbours(p) {
		if !s.Contains(q) {
			t.Errorf("neighbour %v not in the space", q)
		}
		got[q.Key()] = true
	}
	// a: 5 (b repaired to 1, c to 0), b: 1 (c repaired to 0) and 3
	// (c repaired to 0), c: 0, d: 3 and 2.
	want := []string{"5,1,0,1", "6,1,0,1", "6,3,0,1", "6,2,0,1", "6,2,1,3", "6,2,1,2"}
	for _, k := range want {
		if !got[k] {
			t.Errorf("missing neighbour %s of %v (got %v)", k, p, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("neighbours of %v: %v, want %v", p, got, want)
	}
}

// blockSpace is Table 2's x dimension in small: the points per work-item
// bsz, the work-group lsz (up to the blocks, 16/bsz) and the work-items sz
// (those that give each one 1, 2 or 4 blocks, multiples of lsz), a flag f
// allowed only 0 with blocks of one point (as fullunroll), and a parameter
// v whose range depends on none.
func blockSpace(t *testing.T) *Space {
	t.Helper()
	s, err := NewSpace(
		Param{Name: "bsz", Range: func(Point) []int { return []int{1, 2, 4} }},
		Param{Name: "lsz", Deps: []string{"bsz"}, Range: func(p Point) []int {
			var r []int
			for l := 1; l <= 16/p.Get("bsz"); l *= 2 {
				r = append(r, l)
			}
			return r
		}},
		Param{Name: "sz", Deps: []string{"bsz", "lsz"}, Range: func(p Point) []int {
			blocks, l := 16/p.Get("bsz"), p.Get("lsz")
			var r []int
			for _, k := range []int{4, 2, 1} {
				if w := (blocks/k + l - 1) / l * l; len(r) == 0 || w != r[len(r)-1] {
					r = append(r, w)
				}
			}
			return r
		}},
		Param{Name: "f", Deps: []string{"bsz"}, Range: func(p Point) []int {
			if p.Get("bsz") == 1 {
				return []int{0}
			}
			return []int{0, 1}
		}},
		Param{Name: "v", Range: func(Point) []int { return []int{0, 1} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAnchored(t *testing.T) {
	s := blockSpace(t)
	for _, c := range []struct {
		p    []int
		want []string
		why  string
	}{
		// bsz=2: 8 blocks, lsz in {1, 2, 4, 8}; lsz=2: sz in {2, 4, 8}.
		{[]int{2, 2, 8, 1, 0}, []string{"1,2,16,0,0"}, "bsz 1 (16 blocks): lsz=2, not the top of its range, kept; sz in {4, 8, 16}: sz=8 was the top, so 16 (Neighbours keeps 8); f only 0. bsz 4 (4 blocks): sz repaired to 4, the top, as by Neighbours; lsz moves leave sz's top 8: only neighbours"},
		{[]int{2, 8, 8, 0, 0}, []string{"1,16,16,0,0"}, "bsz 1: lsz=8 was the top of {1, 2, 4, 8}, so 16 of {1, ..., 16}, and sz the top of {16} (Neighbours keeps lsz=8 and sz=8)"},
		{[]int{2, 2, 4, 0, 1}, nil, "sz=4 is not the top of {2, 4, 8} nor lsz=2 of {1, 2, 4, 8}: no move keeps a top"},
		{[]int{1, 2, 4, 0, 0}, nil, "bsz 2 makes f's range {0, 1}, but f=0 was the only value of {0}, no top: f stays 0, as with Neighbours"},
	} {
		p, err := s.FromValues(c.p)
		if err != nil || !s.Contains(p) {
			t.Fatalf("%v not in the space (%v)", p, err)
		}
		near := map[string]bool{}
		for _, q := range s.Neighbours(p) {
			near[q.Key()] = true
		}
		got := map[string]bool{}
		for _, q := range s.Anchored(p) {
			if !s.Contains(q) {
				t.Errorf("anchored move %v of %v not in the space", q, p)
			}
			if near[q.Key()] || q.Key() == p.Key() {
				t.Errorf("anchored move %v is %v or a neighbour of it", q, p)
			}
			got[q.Key()] = true
		}
		for _, k := range c.want {
			if !got[k] {
				t.Errorf("missing anchored move %s of %v (%s); got %v", k, p, c.why, got)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("anchored moves of %v: %v, want %v (%s)", p, got, c.want, c.why)
		}
	}
}

func TestAnnealingTemperature(t *testing.T) {
	s := divSpace(t)
	a := NewAnnealing(s, NewRand(1), AnnealingSettings{Temperature: 2, Horizon: 10})
	if a.Temperature() != 2 {
		t.Errorf("starting temperature %v, want 2", a.Temperature())
	}
	for i := 0; i < 15; i++ {
		p, ok := a.Next()
		if !ok {
			t.Fatal("annealing ended early")
		}
		a.Tell(p, fakeEval(context.Background(), p))
		if want := math.Max(0, 2*(1-float64(i+1)/10)); math.Abs(a.Temperature()-want) > 1e-12 {
			t.Errorf("after %d evaluations temperature %v, want %v", i+1, a.Temperature(), want)
		}
	}
}

// Cold annealing is a descent: from a start, each accepted move improves,
// and the points proposed after a start are neighbours of the current one.
func TestAnnealingMovesToNeighbours(t *testing.T) {
	s := divSpace(t)
	a := NewAnnealing(s, NewRand(2), AnnealingSettings{Temperature: 1e-9, Horizon: 1})
	var cur Point
	curFit := math.Inf(1)
	for i := 0; i < 40; i++ {
		p, ok := a.Next()
		if !ok {
			break
		}
		r := fakeEval(context.Background(), p)
		a.Tell(p, r)
		if a.restart {
			cur, curFit = p, r.Fitness()
			continue
		}
		near := false
		for _, q := range s.Neighbours(a.cur) {
			near = near || q.Equal(p)
		}
		if !near && !p.Equal(a.cur) {
			t.Errorf("step %d: %v is not a neighbour of the current %v", i, p, a.cur)
		}
		if f := r.Fitness(); f < curFit {
			cur, curFit = p, f
		}
		if !a.cur.Equal(cur) && a.curFit > curFit {
			t.Errorf("step %d: current %v (%v) worse than %v (%v) at zero temperature", i, a.cur, a.curFit, cur, curFit)
		}
	}
}

// PSO particles take turns; a particle moves towards the swarm's best.
func TestPSOUsesGlobalBest(t *testing.T) {
	s := divSpace(t)
	ps := NewPSO(s, NewRand(3), PSOSettings{Swarm: 3, Global: 1, Random: -1})
	var best Point
	bestFit := math.Inf(1)
	for i := 0; i < 12; i++ {
		p, ok := ps.Next()
		if !ok {
			t.Fatal("pso ended early")
		}
		r := fakeEval(context.Background(), p)
		ps.Tell(p, r)
		if f := r.Fitness(); f < bestFit {
			best, bestFit = p, f
		}
	}
	// With Global 1, every move copies the best and must then be
	// redrawn (it was measured) or replaced by a fresh point: no crash,
	// no repeats (checked for all strategies in package strategies).
	if g, _, ok := ps.seen.Best(); !ok || !g.Equal(best) {
		t.Errorf("swarm best %v, want %v", g, best)
	}
}

// The bandit credits the technique whose proposal improved the best, and
// uses every technique at least once.
func TestBanditCredits(t *testing.T) {
	s := divSpace(t)
	good := NewAnnealing(s, NewRand(4), AnnealingSettings{})
	bad := NewExhaustive(s) // starts at a=1: slow points
	b := NewBandit(s, NewRand(4), BanditSettings{}, good, bad)
	if b.Techniques() != "annealing,exhaustive" {
		t.Errorf("techniques %q", b.Techniques())
	}
	for i := 0; i < 40; i++ {
		p, ok := b.Next()
		if !ok {
			break
		}
		b.Tell(p, fakeEval(context.Background(), p))
	}
	u := b.Uses()
	if u["annealing"] == 0 || u["exhaustive"] == 0 {
		t.Errorf("uses %v: want both techniques tried", u)
	}
	if u["annealing"] <= u["exhaustive"] {
		t.Errorf("uses %v: want the improving technique used more", u)
	}
}

// Seed skips the seeds already proposed and returns those after the one it
// proposes.
func TestVisitedSeed(t *testing.T) {
	s := divSpace(t)
	p, _ := s.FromValues([]int{6, 2, 1, 1})
	q, _ := s.FromValues([]int{4, 2, 0, 3})
	v := NewVisited(s, NewRand(1))
	got, rest, ok := v.Seed([]Point{p, p, q})
	if !ok || !got.Equal(p) || len(rest) != 2 || !v.Seen(p) {
		t.Fatalf("first seed %v, rest %v, %v; want %v proposed, 2 left", got, rest, ok, p)
	}
	got, rest, ok = v.Seed(rest)
	if !ok || !got.Equal(q) || len(rest) != 0 {
		t.Fatalf("second seed %v, rest %v, %v; want %v (the repeat skipped), none left", got, rest, ok, q)
	}
	if _, _, ok := v.Seed([]Point{p, q}); ok {
		t.Error("a seed already proposed was proposed again")
	}
}
