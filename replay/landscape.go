package replay

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/autotune"
)

// Near is the fraction of the optimum at which Table.Landscape counts a
// row near it: the target of 0.95 of the optimum.
const Near = 0.95

// Damping is the PageRank damping factor of Landscape's centrality (the
// usual 0.85: a walk goes on along the graph with probability 0.85 and
// jumps to a row drawn at random otherwise).
const Damping = 0.85

// Landscape describes a recorded space as a local search sees it, moving
// from a successful row to a neighbour (autotune.Space.Neighbours: one
// parameter moved to the adjacent value of its range, the parameters after
// it repaired), as the strategies' local moves do. Its graph is the
// fitness flow graph of Schoonhoven, van Werkhoven and Batenburg
// ("Benchmarking optimization algorithms for auto-tuning GPU kernels",
// 2022): an edge from each successful row to each faster successful
// neighbour; its sinks are the local minima.
type Landscape struct {
	Rows      int `json:"rows"`
	Successes int `json:"successes"`
	// Near counts the successful rows whose time is within Near of the
	// optimum (optimum / time >= 0.95).
	Near int `json:"near"`
	// Minima counts the local minima: successful rows with no faster
	// successful neighbour. NearMinima counts those among Near.
	Minima     int `json:"minima"`
	NearMinima int `json:"near_minima"`
	// Descent is the share of the successful rows from which steepest
	// descent (to the fastest faster neighbour, until there is none) ends
	// at a row near the optimum.
	Descent float64 `json:"descent"`
	// Centrality is the proportion of centrality of the minima near the
	// optimum: their PageRank (Damping; a sink's walk jumps to a row drawn
	// at random) over that of every local minimum, after Schoonhoven et
	// al.'s proportion of centrality, which they found to track how well
	// searches do on a space: low, few of the graph's paths end near the
	// optimum.
	Centrality float64 `json:"centrality"`
	// StartBest is the best start point's fraction of the optimum (0 when
	// no start point is a successful row).
	StartBest float64 `json:"start_best"`
	// StartMoves is the fewest neighbour moves from a start point to a row
	// near the optimum, through successful rows (0: a start point is near
	// it; -1: none reaches one, or no start point is a successful row).
	StartMoves int `json:"start_moves"`
	// Starts describes each start point (Table.Start), in order.
	Starts []Start `json:"starts"`
}

// Start is one start point's place in a Landscape.
type Start struct {
	// Point gives the start point's values of the parameters the table
	// varies (name=value, comma-separated).
	Point string `json:"point"`
	// Fraction is its fraction of the optimum (0 when it is no successful
	// row of the table), and Descent the fraction where its steepest
	// descent ends (0 likewise).
	Fraction float64 `json:"fraction"`
	Descent  float64 `json:"descent"`
	// Moves is the fewest neighbour moves from it to a row near the
	// optimum through successful rows (-1: none, or no successful row).
	Moves int `json:"moves"`
}

// Landscape returns the table's landscape (Landscape). Its cost is a few
// neighbour moves per row and a PageRank of the rows by power iteration:
// well under a second for the committed tables.
func (t *Table) Landscape() Landscape {
	l := Landscape{Rows: t.Len(), Successes: len(t.valid), StartMoves: -1}
	if len(t.valid) == 0 {
		return l
	}
	opt := t.valid[0]
	near := func(ms float64) bool { return opt/ms >= Near }
	// The successful rows and their times, in the order of their values
	// (map order would make ties in the descent vary from run to run).
	type success struct {
		p  autotune.Point
		ms float64
	}
	var rows []success
	for _, r := range t.rows {
		if r.Outcome != autotune.OK {
			continue
		}
		p, err := t.space.FromValues(r.Values)
		if err != nil {
			continue // a row is a point of its own table's space
		}
		rows = append(rows, success{p, r.Ms})
	}
	slices.SortFunc(rows, func(a, b success) int { return slices.Compare(a.p.Values(), b.p.Values()) })
	pts := make([]autotune.Point, len(rows))
	ms := make([]float64, len(rows))
	index := make(map[string]int, len(rows))
	for i, r := range rows {
		pts[i], ms[i] = r.p, r.ms
		index[r.p.Key()] = i
	}
	// out[i]: i's successful neighbours; faster[i]: those faster than i.
	out := make([][]int, len(pts))
	faster := make([][]int, len(pts))
	for i, p := range pts {
		for _, q := range t.space.Neighbours(p) {
			if j, ok := index[q.Key()]; ok {
				out[i] = append(out[i], j)
				if ms[j] < ms[i] {
					faster[i] = append(faster[i], j)
				}
			}
		}
		if near(ms[i]) {
			l.Near++
		}
		if len(faster[i]) == 0 {
			l.Minima++
			if near(ms[i]) {
				l.NearMinima++
			}
		}
	}
	// Steepest descent from every row, each path's end remembered.
	end := make([]int, len(pts))
	for i := range end {
		end[i] = -1
	}
	var path []int
	ended := 0
	for i := range pts {
		path = path[:0]
		j := i
		for end[j] < 0 && len(faster[j]) > 0 {
			path = append(path, j)
			j = slices.MinFunc(faster[j], func(a, b int) int { return cmp.Compare(ms[a], ms[b]) })
		}
		e := end[j]
		if e < 0 {
			e = j
		}
		for _, k := range append(path, j) {
			end[k] = e
		}
		if near(ms[e]) {
			ended++
		}
	}
	l.Descent = float64(ended) / float64(len(pts))
	pr := pageRank(faster, Damping)
	var all, good float64
	for i, f := range faster {
		if len(f) == 0 {
			all += pr[i]
			if near(ms[i]) {
				good += pr[i]
			}
		}
	}
	l.Centrality = good / all
	// Breadth-first from the start points that are successful rows, all
	// together and each alone.
	moves := func(from []int) int {
		dist := make([]int, len(pts))
		for i := range dist {
			dist[i] = -1
		}
		var queue []int
		for _, i := range from {
			if dist[i] < 0 {
				dist[i] = 0
				queue = append(queue, i)
			}
		}
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			if near(ms[i]) {
				return dist[i]
			}
			for _, j := range out[i] {
				if dist[j] < 0 {
					dist[j] = dist[i] + 1
					queue = append(queue, j)
				}
			}
		}
		return -1
	}
	var from []int
	varied := t.varied()
	for _, s := range t.start {
		st := Start{Point: t.describeVaried(s.Values(), varied), Moves: -1}
		if i, ok := index[s.Key()]; ok {
			from = append(from, i)
			st.Fraction, st.Descent, st.Moves = opt/ms[i], opt/ms[end[i]], moves([]int{i})
			l.StartBest = max(l.StartBest, st.Fraction)
		}
		l.Starts = append(l.Starts, st)
	}
	if len(from) > 0 {
		l.StartMoves = moves(from)
	}
	return l
}

// describeVaried prints the values of the parameters varied marks, as
// name=value pairs (all of them when it marks none).
func (t *Table) describeVaried(vals []int, varied []bool) string {
	var parts []string
	for k, v := range vals {
		if varied[k] {
			parts = append(parts, t.describeOne(k, v))
		}
	}
	if len(parts) == 0 {
		return t.describe(vals)
	}
	return strings.Join(parts, ",")
}

// varied reports, for each parameter, whether it takes more than one
// value among the table's rows.
func (t *Table) varied() []bool {
	out := make([]bool, len(t.params))
	var first []int
	for _, r := range t.rows {
		if first == nil {
			first = r.Values
			continue
		}
		for k, v := range r.Values {
			out[k] = out[k] || v != first[k]
		}
	}
	return out
}

// pageRank returns the PageRank of the graph whose node i has edges to
// edges[i], with damping d: a walk follows one of a node's edges, drawn
// uniformly, with probability d, else jumps to a node drawn uniformly; from
// a node without edges it always jumps. Power iteration until the ranks
// move by less than 1e-12 in all (at most 10000 steps).
func pageRank(edges [][]int, d float64) []float64 {
	n := len(edges)
	pr := make([]float64, n)
	next := make([]float64, n)
	for i := range pr {
		pr[i] = 1 / float64(n)
	}
	for range 10000 {
		sink := 0.0
		for i, e := range edges {
			if len(e) == 0 {
				sink += pr[i]
			}
		}
		base := (1-d)/float64(n) + d*sink/float64(n)
		for i := range next {
			next[i] = base
		}
		for i, e := range edges {
			for _, j := range e {
				next[j] += d * pr[i] / float64(len(e))
			}
		}
		diff := 0.0
		for i := range pr {
			diff += math.Abs(next[i] - pr[i])
		}
		pr, next = next, pr
		if diff < 1e-12 {
			break
		}
	}
	return pr
}
