package costmodel

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// wgSpace has two local sizes and a third parameter; a work-group of more
// than 64 work-items is rejected.
func wgSpace(t *testing.T) *autotune.Space {
	t.Helper()
	vals := func(autotune.Point) []int { return []int{1, 2, 4, 8, 16, 32, 64} }
	s, err := autotune.NewSpace(
		autotune.Param{Name: "lszx", Range: vals},
		autotune.Param{Name: "lszy", Range: vals},
		autotune.Param{Name: "c", Range: func(autotune.Point) []int { return []int{1, 2, 3, 4} }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wgTime(p autotune.Point, unknown bool) autotune.Result {
	if p.Get("lszx")*p.Get("lszy") > 64 {
		err := errors.New("work-group over the device's limit")
		if unknown {
			err = fmt.Errorf("not recorded (%w)", autotune.ErrUnknown)
		}
		return autotune.Result{Outcome: autotune.Illegal, Err: err}
	}
	return autotune.Result{Outcome: autotune.OK, Ms: float64(1 + p.Get("c"))}
}

// TestBayesShrink: a start point rejected is shrunk along each of Shrink's
// parameters, one step down at a time while rejected, and the points found
// are proposed next, before the other initial points; a rejected point that
// is not a start point (after Starts), or a rejection whose outcome is
// unknown (replay's point not recorded), is not shrunk, and the shrunk
// points rejected are not fitted by the model.
func TestBayesShrink(t *testing.T) {
	s := wgSpace(t)
	pt := func(x, y, c int) autotune.Point {
		p, err := s.FromValues([]int{x, y, c})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := func(ps []autotune.Point) string { return fmt.Sprint(ps) }
	seeds := []autotune.Point{pt(16, 16, 1), pt(2, 2, 2), pt(64, 64, 4)}
	run := func(set BayesSettings, unknown bool) (*Bayes, []autotune.Point) {
		set.Seeds, set.Init, set.Batch = seeds, 3, 4
		b := NewBayes(s, autotune.NewRand(1), set)
		var got []autotune.Point
		for range 7 {
			p, ok := b.Next()
			if !ok {
				t.Fatal("exhausted")
			}
			got = append(got, p)
			b.Tell(p, wgTime(p, unknown))
		}
		return b, got
	}

	b, got := run(BayesSettings{Starts: 2, Shrink: []string{"lszx", "lszy", "absent"}}, false)
	want := []autotune.Point{
		pt(16, 16, 1),
		pt(8, 16, 1), pt(4, 16, 1), // along lszx: 8x16 rejected too, then 4x16
		pt(16, 8, 1), pt(16, 4, 1), // along lszy
		pt(2, 2, 2), pt(64, 64, 4), // the other initial points; the last, rejected, is not a start point
	}
	if key(got) != key(want) {
		t.Fatalf("proposed\n%v\nwant\n%v", got, want)
	}
	for _, p := range b.data {
		if p.Equal(pt(8, 16, 1)) || p.Equal(pt(16, 8, 1)) {
			t.Errorf("the shrunk point %v, rejected, is in the model's data", p)
		}
	}
	if len(b.data) != 5 {
		t.Errorf("%d points in the model's data, want 5 (the rejected start point and the initial ones, the 2 shrunk points measured)", len(b.data))
	}
	// A point already rejected (told by another technique) is stepped past.
	b = NewBayes(s, autotune.NewRand(1), BayesSettings{Seeds: seeds[:1], Init: 1, Starts: 1, Shrink: []string{"lszx"}})
	b.Tell(pt(8, 16, 1), wgTime(pt(8, 16, 1), false))
	p, _ := b.Next()
	b.Tell(p, wgTime(p, false))
	if q, _ := b.Next(); !q.Equal(pt(4, 16, 1)) {
		t.Errorf("after %v rejected, with 8x16 rejected before: %v, want %v", p, q, pt(4, 16, 1))
	}

	// Unknown outcomes, no Shrink, or no start point: the initial points only.
	for name, c := range map[string]struct {
		set     BayesSettings
		unknown bool
	}{
		"unknown":   {BayesSettings{Starts: 2, Shrink: []string{"lszx", "lszy"}}, true},
		"no shrink": {BayesSettings{Starts: 2}, false},
		"no starts": {BayesSettings{Shrink: []string{"lszx", "lszy"}}, false},
	} {
		_, got := run(c.set, c.unknown)
		if key(got[:3]) != key(seeds) {
			t.Errorf("%s: proposed %v first, want the initial points %v", name, got[:3], seeds)
		}
	}
}
