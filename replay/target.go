package replay

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The target, which the default strategy is chosen by: after
// TargetShare of a table's rows the median fraction of the optimum is at
// least TargetFraction, and the search beats random search at every
// budget from 20 evaluations (Result.BeatsRandom).
const (
	TargetShare    = 0.025
	TargetFraction = 0.95
)

// Standing is how one strategy's replay of one table stands against the
// target: the figures BenchmarkEveryTable and hplopt replay --tables
// print per table.
type Standing struct {
	Table  string `json:"table"` // the table's file name
	Rows   int    `json:"rows"`
	Budget int    `json:"budget"` // the evaluations of each search
	// At is TargetShare of the rows, rounded up (at most Budget), and
	// Fraction the median fraction of the optimum after At evaluations.
	At       int     `json:"at"`
	Fraction float64 `json:"fraction"`
	// Reach is the first budget whose median fraction is at least
	// TargetFraction (0: none within Budget).
	Reach int `json:"reach"`
	// BeatsRandom is Result.BeatsRandom, and FirstLoss the first budget
	// from 20 evaluations where the search does not beat random search
	// (0 when it beats it at every one).
	BeatsRandom bool `json:"beats_random"`
	FirstLoss   int  `json:"first_loss"`
	// Lowest is the lowest score from 20 evaluations on, before random
	// search's expected best is the optimum (from where every score is
	// 0), and LowestAt where (0: none).
	Lowest   float64 `json:"lowest_score"`
	LowestAt int     `json:"lowest_at"`
	// Scores are the scores after 20 evaluations, 2.5%, 5% and 10% of
	// the rows (those beyond Budget at Budget).
	Scores [4]float64 `json:"scores"`
	// Tuned names the tables whose best the searches first started from
	// (Config.Records, from Nearest); empty for none.
	Tuned []string `json:"tuned,omitempty"`
}

// Met reports whether the replay meets the target on its table.
func (s Standing) Met() bool { return s.Fraction >= TargetFraction && s.BeatsRandom }

// Stand returns how r, a replay of t, stands against the target.
func Stand(t *Table, r *Result) Standing {
	n := r.Evaluations
	pct := func(p float64) int { return min(n, int(math.Ceil(p*float64(t.Len())))) }
	s := Standing{Table: filepath.Base(t.Name()), Rows: t.Len(), Budget: n, At: pct(TargetShare), FirstLoss: r.firstLoss, BeatsRandom: r.BeatsRandom, Lowest: math.Inf(1)}
	s.Fraction = r.At(s.At).MedianFraction
	for k := 1; k <= n && s.Reach == 0; k++ {
		if r.At(k).MedianFraction >= TargetFraction {
			s.Reach = k
		}
	}
	for k := r.From; k <= n && t.ExpectedRandom(k) > t.Optimum(); k++ {
		if sc := r.At(k).Score; sc < s.Lowest {
			s.Lowest, s.LowestAt = sc, k
		}
	}
	if s.LowestAt == 0 {
		s.Lowest = 0
	}
	for j, k := range []int{min(20, n), s.At, pct(0.05), pct(0.1)} {
		s.Scores[j] = r.At(k).Score
	}
	return s
}

// Tally counts standings: the tables, those at TargetFraction after
// TargetShare, those beating random search from 20 evaluations, those
// meeting both, and the mean scores after 20 evaluations, 2.5%, 5% and
// 10%.
type Tally struct {
	Tables     int        `json:"tables"`
	AtFraction int        `json:"at_fraction"`
	BeatRandom int        `json:"beat_random"`
	Met        int        `json:"met"`
	MeanScores [4]float64 `json:"mean_scores"`
	sum        [4]float64
}

// Add counts s.
func (t *Tally) Add(s Standing) {
	t.Tables++
	if s.Fraction >= TargetFraction {
		t.AtFraction++
	}
	if s.BeatsRandom {
		t.BeatRandom++
	}
	if s.Met() {
		t.Met++
	}
	for j := range t.sum {
		t.sum[j] += s.Scores[j]
		t.MeanScores[j] = t.sum[j] / float64(t.Tables)
	}
}

// EveryBudget is the budget of evaluations BenchmarkEveryTable and
// hplopt replay --tables give a table of rows rows: share of them, at
// least 20.
func EveryBudget(rows int, share float64) int { return max(20, int(share*float64(rows)+1e-9)) }

// ReplayTables replays cfg(i) on each table i, parallel tables at once
// (at least 1), and returns each replay's first result and error; a
// table not replayed when ctx ends has ctx's error. done, when not nil,
// is called as each replay ends (from the goroutine that ran it, one at
// a time).
func ReplayTables(ctx context.Context, tables []*Table, parallel int, cfg func(i int) Config, done func(i int, err error)) ([]*Result, []error) {
	results := make([]*Result, len(tables))
	errs := make([]error, len(tables))
	var wg sync.WaitGroup
	var mu sync.Mutex // done's
	sem := make(chan struct{}, max(1, parallel))
	for i, t := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if errs[i] = ctx.Err(); errs[i] == nil {
				var rs []*Result
				if rs, errs[i] = Replay(ctx, t, cfg(i)); errs[i] == nil {
					results[i] = rs[0]
				}
			}
			if done != nil {
				mu.Lock()
				defer mu.Unlock()
				done(i, errs[i])
			}
		}()
	}
	wg.Wait()
	return results, errs
}

// StandingLines returns the standings as a Markdown table, a line each
// after the header's two: the table, the budget, the median fraction
// after 2.5% (and its evaluations), the first budget at 0.95, whether it
// beats random search, the first budget where it does not, the lowest
// score (and where), and the scores after 20 evaluations, 2.5%, 5% and
// 10%.
func StandingLines(ss []Standing) []string {
	out := []string{
		"| table | budget | at 2.5% (evaluations) | median at 0.95 from | beats random | first budget not beating it | lowest score (at) | score at 20 | 2.5% | 5% | 10% |",
		"|---|---|---|---|---|---|---|---|---|---|---|",
	}
	for _, s := range ss {
		yes, first, reach := "no", "-", "-"
		if s.Reach > 0 {
			reach = fmt.Sprint(s.Reach)
		}
		if s.FirstLoss == 0 {
			yes = "yes"
		} else {
			first = fmt.Sprint(s.FirstLoss)
		}
		out = append(out, fmt.Sprintf("| %s | %d | %.3f (%d) | %s | %s | %s | %+.3f (%d) | %+.3f | %+.3f | %+.3f | %+.3f |", s.Table, s.Budget, s.Fraction, s.At, reach, yes, first, s.Lowest, s.LowestAt, s.Scores[0], s.Scores[1], s.Scores[2], s.Scores[3]))
	}
	return out
}

// Line returns the tally as a line of text, after label: the tables at
// 0.95 after 2.5%, those beating random search, and the mean scores.
func (t Tally) Line(label string) string {
	return fmt.Sprintf("%s (%d): %d at 0.95 after 2.5%%, %d beat random search from 20 to the budget; mean scores at 20, 2.5%%, 5%%, 10%%: %+.3f %+.3f %+.3f %+.3f", label, t.Tables, t.AtFraction, t.BeatRandom,
		t.MeanScores[0], t.MeanScores[1], t.MeanScores[2], t.MeanScores[3])
}

// ReadNames reads a list of table file names, one a line (the base name
// of each), with # comments and blank lines, as
// testdata/replay/repeating.txt holds the tables that repeat.
func ReadNames(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			names = append(names, filepath.Base(line))
		}
	}
	return names, nil
}
