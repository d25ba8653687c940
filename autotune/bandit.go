package autotune

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

var (
	_ Strategy = (*Bandit)(nil)
	_ Planner  = (*Bandit)(nil)
)

// BanditSettings controls the AUC bandit. The zero value gives the
// defaults below, OpenTuner's.
type BanditSettings struct {
	// Window is the number of recent proposals the techniques' scores are
	// computed over. Default 500.
	Window int
	// C weighs exploration (trying the techniques used less) against
	// exploitation (the technique whose proposals improved the best
	// most, recently). Default 0.05.
	C float64
}

// Bandit is an ensemble of search techniques, OpenTuner's AUC bandit
// meta-technique as ATF uses it: each step it asks the technique with the
// highest score for a point, where a technique's score is the area under
// the curve of its recent successes (in the last Window proposals, the
// uses of the technique that found a new best, weighted by their
// recency: Σ i·win_i / Σ i over its uses i = 1..n) plus C·sqrt(2·log2(W)/n),
// W being the proposals in the window and n its uses there (unused
// techniques first; ties broken at random).
//
// The techniques share one result history: every result is told to all
// of them (the strategies of this package and package genetic record the
// results of points they did not propose). A technique that proposes a
// point already measured is told its recorded result, as if it had been
// measured again, and asked again (up to 20 times, then the next technique
// is asked); when no technique has a fresh point, a random one never
// measured is proposed. A technique that returns ok=false is not asked
// again; Next returns ok=false once every point was proposed.
//
// Bandit is not a Lookahead: which technique proposes next depends on the
// current result.
type Bandit struct {
	space *Space
	r     *rand.Rand
	set   BanditSettings
	techs []Strategy
	dead  []bool
	seen  *Visited
	res   map[string]Result // results told, for duplicates

	history []banditUse // the last Window proposals
	last    Point       // proposed, not yet told
	lastBy  int         // its technique, -1 for a random point
}

type banditUse struct {
	tech int
	win  bool
}

// NewBandit returns a bandit over the given techniques, all searching
// space, drawing its own choices from r.
func NewBandit(space *Space, r *rand.Rand, set BanditSettings, techniques ...Strategy) *Bandit {
	if set.Window <= 0 {
		set.Window = 500
	}
	if set.C <= 0 {
		set.C = 0.05
	}
	return &Bandit{
		space: space, r: r, set: set, techs: techniques, dead: make([]bool, len(techniques)),
		seen: NewVisited(space, r), res: map[string]Result{}, lastBy: -1,
	}
}

// Plan tells the techniques that plan by the budget (Planner) the search's
// evaluations.
func (b *Bandit) Plan(evaluations int) {
	for _, t := range b.techs {
		if p, ok := t.(Planner); ok {
			p.Plan(evaluations)
		}
	}
}

// Name returns "bandit".
func (*Bandit) Name() string { return "bandit" }

// Techniques returns the names of the techniques, in the order given.
func (b *Bandit) Techniques() string {
	names := make([]string, len(b.techs))
	for i, t := range b.techs {
		names[i] = t.Name()
	}
	return strings.Join(names, ",")
}

// Uses returns how many of the proposals in the window each technique
// made, by name.
func (b *Bandit) Uses() map[string]int {
	m := map[string]int{}
	for _, u := range b.history {
		m[b.techs[u.tech].Name()]++
	}
	return m
}

// score is technique i's bandit score.
func (b *Bandit) score(i int) float64 {
	n, pos, wins := 0, 0.0, 0.0
	for _, u := range b.history {
		if u.tech != i {
			continue
		}
		n++
		pos += float64(n)
		if u.win {
			wins += float64(n)
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	explore := math.Sqrt(2 * math.Log2(float64(len(b.history))) / float64(n))
	return wins/pos + b.set.C*explore
}

// Next asks the techniques in the order of their scores for a point never
// measured.
func (b *Bandit) Next() (Point, bool) {
	order := make([]int, 0, len(b.techs))
	for i := range b.techs {
		if !b.dead[i] {
			order = append(order, i)
		}
	}
	b.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	scores := make([]float64, len(b.techs))
	for _, i := range order {
		scores[i] = b.score(i)
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case scores[x] > scores[y]:
			return -1
		case scores[x] < scores[y]:
			return 1
		}
		return 0
	})
	for _, i := range order {
		t := b.techs[i]
		for try := 0; try < 20; try++ {
			p, ok := t.Next()
			if !ok {
				b.dead[i] = true
				break
			}
			if !b.space.Contains(p) {
				continue
			}
			if r, told := b.res[p.Key()]; told {
				t.Tell(p, r)
				continue
			}
			if b.seen.Seen(p) {
				continue
			}
			b.seen.Propose(p)
			b.last, b.lastBy = p, i
			return p, true
		}
	}
	p, ok := b.seen.Fresh()
	if !ok {
		return Point{}, false
	}
	b.last, b.lastBy = p, -1
	return p, true
}

// Tell records p's result, credits the technique that proposed it when it
// is a new best, and tells every technique.
func (b *Bandit) Tell(p Point, r Result) {
	_, before, found := b.seen.Best()
	b.seen.Tell(p, r)
	b.res[p.Key()] = r
	if p.Equal(b.last) && b.lastBy >= 0 {
		f := r.Fitness()
		win := !math.IsInf(f, 1) && (!found || f < before)
		b.history = append(b.history, banditUse{b.lastBy, win})
		if len(b.history) > b.set.Window {
			b.history = b.history[1:]
		}
	}
	b.last, b.lastBy = Point{}, -1
	for i, t := range b.techs {
		if !b.dead[i] {
			t.Tell(p, r)
		}
	}
}
