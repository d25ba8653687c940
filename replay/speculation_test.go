package replay

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/strategies"
)

// speculating is a table's evaluator that prepares and speculates as a
// live one does, noting which points it was asked to speculate on before
// they were prepared.
type speculating struct {
	*Evaluator
	prepared, speculated map[string]bool
	early                map[string]bool // speculated before prepared
}

func newSpeculating(t *Table) *speculating {
	return &speculating{Evaluator: t.Evaluator(), prepared: map[string]bool{}, speculated: map[string]bool{}, early: map[string]bool{}}
}

func (s *speculating) Prepare(p autotune.Point) {
	k := p.Key()
	if !s.prepared[k] && s.speculated[k] {
		s.early[k] = true
	}
	s.prepared[k] = true
}

func (s *speculating) Speculate(ps []autotune.Point) {
	for _, p := range ps {
		s.speculated[p.Key()] = true
	}
}

// TestSpeculationChangesNothing checks that a search whose evaluator
// speculates (Tune asks the strategy's Foresight) evaluates the same
// points as one whose evaluator does not, and that hybrid and opening
// guess some of the points they go on to propose.
func TestSpeculationChangesNothing(t *testing.T) {
	tb, err := LoadCSV("../testdata/replay/conv2d1024-h100-wide.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{strategies.Hybrid, strategies.Opening} {
		info, err := strategies.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		run := func(ev autotune.Evaluator) []string {
			opt := strategies.Options{Evaluations: 100, Seeds: tb.Start()}
			set := autotune.Settings{MaxEvals: 100, Seed: 3, Lookahead: 15}
			rep, err := autotune.Tune(context.Background(), set, tb.Space(), info.New(tb.Space(), autotune.NewRand(3), opt), ev)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, e := range rep.History {
				keys = append(keys, e.Point.Key())
			}
			return keys
		}
		plain := run(preparing{tb.Evaluator()})
		sp := newSpeculating(tb)
		spec := run(sp)
		if !slices.Equal(plain, spec) {
			t.Errorf("%s: speculating changed the search:\n%v\n%v", name, plain, spec)
		}
		hits := 0
		for _, k := range spec {
			if sp.early[k] {
				hits++
			}
		}
		t.Logf("%s: %d of %d points evaluated were guessed before they were proposed (%d guesses)", name, hits, len(spec), len(sp.speculated))
		if hits == 0 {
			t.Errorf("%s: no point evaluated was guessed before it was proposed", name)
		}
	}
}

// BenchmarkSpeculation logs, per H100 table, how many of the points
// hybrid and opening (its 64 evaluations, the share of the budget aside)
// evaluate in their first 64 evaluations were guessed (Foresight) before
// they were proposed, with the lookahead of a live search with 15
// builders, over seeds 1 to 5:
//
//	go test ./replay -run '^$' -bench Speculation -benchtime 1x -v
func BenchmarkSpeculation(b *testing.B) {
	list := slices.DeleteFunc(slices.Clone(allTables), func(t benchTable) bool { return !strings.Contains(t.file, "h100") })
	tables := loadBench(b, list)
	for _, run := range []struct {
		label, strategy string
		opening         strategies.OpeningSettings
	}{
		{strategies.Hybrid, strategies.Hybrid, strategies.OpeningSettings{}},
		// Searches of 64 evaluations: unbounded by them, the opening makes
		// its 64, as in a search of a larger budget.
		{strategies.Opening, strategies.Opening, strategies.OpeningSettings{Share: -1}},
	} {
		info, err := strategies.Lookup(run.strategy)
		if err != nil {
			b.Fatal(err)
		}
		for i, tb := range tables {
			hits, evals, guesses := 0, 0, 0
			for seed := uint64(1); seed <= 5; seed++ {
				sp := newSpeculating(tb)
				opt := strategies.Options{Evaluations: list[i].evals, Seeds: tb.Start(), Opening: run.opening}
				set := autotune.Settings{MaxEvals: 64, Seed: seed, Lookahead: 15}
				rep, err := autotune.Tune(context.Background(), set, tb.Space(), info.New(tb.Space(), autotune.NewRand(seed), opt), sp)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range rep.History {
					evals++
					if sp.early[e.Point.Key()] {
						hits++
					}
				}
				guesses += len(sp.speculated)
			}
			b.Logf("%s %s: %d of %d evaluated guessed first (%.0f%%), %d guesses", run.label, list[i].name, hits, evals, 100*float64(hits)/float64(evals), guesses)
		}
	}
}
