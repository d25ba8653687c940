package replay

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// rankOracle solves the PageRank of a graph of n nodes, edges[i] those of
// node i, as a linear system (gonum), not by iteration: pr = M pr +
// (1-d)/n, where M[j][i] is d/len(edges[i]) for an edge i -> j, and d/n
// for every j when i has no edge.
func rankOracle(t *testing.T, n int, edges map[int][]int, d float64) []float64 {
	t.Helper()
	a := mat.NewDense(n, n, nil)
	b := mat.NewVecDense(n, nil)
	for j := range n {
		a.Set(j, j, 1)
		b.SetVec(j, (1-d)/float64(n))
	}
	for i := range n {
		if len(edges[i]) == 0 {
			for j := range n {
				a.Set(j, i, a.At(j, i)-d/float64(n))
			}
			continue
		}
		for _, j := range edges[i] {
			a.Set(j, i, a.At(j, i)-d/float64(len(edges[i])))
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

func landscapeOf(t *testing.T, table string) Landscape {
	t.Helper()
	return tableOf(t, "t.csv", table).Landscape()
}

func TestLandscape(t *testing.T) {
	// A chain: x=1..16, times 3 1 2 4 0.9. Its fitness flow graph, by
	// hand (nodes 0..4 in x's order): 0->1, 2->1, 3->2, 3->4; minima 1
	// and 4, only 4 (0.9 ms) near the optimum.
	chain := "# start: x=1\nx,time_ms\n1,3\n2,1\n4,2\n8,4\n16,0.9\n"
	pr := rankOracle(t, 5, map[int][]int{0: {1}, 2: {1}, 3: {2, 4}}, Damping)
	want := Landscape{Rows: 5, Successes: 5, Near: 1, Minima: 2, NearMinima: 1,
		Descent:    2.0 / 5, // from x=8 (to 16, the faster of 4 and 16) and x=16
		Centrality: pr[4] / (pr[1] + pr[4]),
		StartBest:  0.9 / 3, StartMoves: 4,
		// x=1 descends to x=2 (1 ms, 0.9 of the optimum), 4 moves from x=16.
		Starts: []Start{{Point: "x=1", Fraction: 0.9 / 3, Descent: 0.9, Moves: 4}}}
	same := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	check := func(name string, got, want Landscape) {
		t.Helper()
		if math.Abs(got.Centrality-want.Centrality) > 1e-9 || !same(got.Descent, want.Descent) || !same(got.StartBest, want.StartBest) || len(got.Starts) != len(want.Starts) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
			return
		}
		for i, g := range got.Starts {
			w := want.Starts[i]
			if g.Point != w.Point || g.Moves != w.Moves || !same(g.Fraction, w.Fraction) || !same(g.Descent, w.Descent) {
				t.Errorf("%s: start %d is %+v, want %+v", name, i, g, w)
			}
		}
		got.Centrality, got.Descent, got.StartBest, got.Starts, want.Starts = want.Centrality, want.Descent, want.StartBest, nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
	check("chain", landscapeOf(t, chain), want)
	if want.Centrality <= 0.2 || want.Centrality >= 0.8 {
		t.Fatalf("the oracle's centrality %.3f says nothing", want.Centrality)
	}

	// No start point in the table: nothing to measure from.
	noStart := want
	noStart.StartBest, noStart.StartMoves, noStart.Starts = 0, -1, nil
	check("chain without start points", landscapeOf(t, strings.TrimPrefix(chain, "# start: x=1\n")), noStart)

	// Two parameters and a failure, which is no row to move to or from:
	// (a,b) = (1,1) 5, (1,2) fail, (2,1) 4, (2,2) 1, (3,1) 1.2, (3,2) 2.
	// Nodes (1,1) (2,1) (2,2) (3,1) (3,2) = 0..4; faster neighbours:
	// 0->1, 1->2 and 1->3, 4->2 and 4->3; minima 2 (the optimum) and 3
	// (1.2 ms, not near). The failed start point is not measured from.
	grid := "# start: a=1,b=2\n# start: a=1,b=1\na,b,time_ms\n1,1,5\n1,2,fail\n2,1,4\n2,2,1\n3,1,1.2\n3,2,2\n"
	pr = rankOracle(t, 5, map[int][]int{0: {1}, 1: {2, 3}, 4: {2, 3}}, Damping)
	check("grid", landscapeOf(t, grid), Landscape{Rows: 6, Successes: 5, Near: 1, Minima: 2, NearMinima: 1,
		Descent:    4.0 / 5, // all but (3,1): steepest descent goes to (2,2) from (2,1) and (3,2)
		Centrality: pr[2] / (pr[2] + pr[3]),
		StartBest:  1.0 / 5, StartMoves: 2,
		// The failed start point first, then (1,1), which descends to
		// the optimum two moves away.
		Starts: []Start{{Point: "a=1,b=2", Moves: -1}, {Point: "a=1,b=1", Fraction: 1.0 / 5, Descent: 1, Moves: 2}}})

	// Every row failed: no landscape, and no division by zero.
	if got := landscapeOf(t, "x,time_ms\n1,fail\n2,fail\n"); !reflect.DeepEqual(got, Landscape{Rows: 2, StartMoves: -1}) {
		t.Errorf("all failed: %+v", got)
	}
}

// On a committed table the figures hold what docs/replay.md reads from
// them: 3DCONV 128's two rows near the optimum, 3 moves from a start
// point, and the share of rows whose steepest descent ends there.
func TestLandscapeConv3D(t *testing.T) {
	tb, err := LoadCSV("../testdata/replay/conv3d128-h100.csv")
	if err != nil {
		t.Fatal(err)
	}
	l := tb.Landscape()
	if l.Near != 2 || l.NearMinima != 1 || l.StartMoves != 3 || l.Successes != 1561 {
		t.Errorf("3DCONV 128 H100: %+v", l)
	}
	if n := int(math.Round(l.Descent * float64(l.Successes))); n != 475 {
		t.Errorf("steepest descent ends near the optimum from %d rows, want 475", n)
	}
	// Both convolution start points descend to the optimum, 3 moves away;
	// the fastest start point (0.742) descends to 0.858.
	conv := 0
	for _, s := range l.Starts {
		switch {
		case strings.HasPrefix(s.Point, "bszx=16,lszx=2,szx=8,"):
			conv++
			if s.Descent != 1 || s.Moves != 3 {
				t.Errorf("convolution start point %+v: want descent to the optimum, 3 moves", s)
			}
		case s.Fraction == l.StartBest:
			if math.Abs(s.Descent-0.858) > 5e-4 {
				t.Errorf("the fastest start point %+v: want descent to 0.858", s)
			}
		}
	}
	if conv != 2 {
		t.Errorf("%d convolution start points among %+v, want 2", conv, l.Starts)
	}
}
