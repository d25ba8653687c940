package replay

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/strategies"
	"gonum.org/v1/gonum/stat"
)

// everyStrategy, everyShare, everyParallel and everyThen set what
// BenchmarkEveryTable replays.
var (
	everyStrategy = flag.String("every-strategy", strategies.Default, "the strategy BenchmarkEveryTable replays")
	everyThen     = flag.String("every-then", "", "the search that takes over from the opening's (strategies.OpeningSettings.Then; \"\": genetic)")
	everyShare    = flag.Float64("every-share", 0.1, "BenchmarkEveryTable's budget of evaluations, as a share of each table's rows")
	everyParallel = flag.Int("every-parallel", 2, "tables BenchmarkEveryTable replays at once")
	everySeed     = flag.Int("every-seed", 1, "the first of BenchmarkEveryTable's 20 seeds")
	everyAnchored = flag.Int("every-anchored", 0, "the opening's anchored initial points (strategies.OpeningSettings.Anchored; 0: the default, -1: none)")
	everyCover    = flag.Int("every-cover", 0, "the opening's untried values first (strategies.OpeningSettings.Cover; 0: none, the default; 2: flags)")
	everyOmit     = flag.Bool("every-omit-illegal", false, "the opening's model leaves out the points rejected as Illegal (strategies.OpeningSettings.OmitIllegal; default false: it takes them for the slowest time)")
	everyRounds   = flag.Int("every-plateau-rounds", 0, "the first rounds the opening's Plateau may widen (strategies.OpeningSettings.PlateauRounds; 0: the default, strategies.OpeningPlateauRounds)")
	everyGlobal   = flag.Int("every-global-rounds", 0, "the opening's first rounds that choose a point anywhere, every point of a later round local (strategies.OpeningSettings.GlobalRounds; 0: every round, the default; 2: the candidate)")
	everyIso      = flag.Bool("every-isotropic", false, "the opening's model has one length scale for all parameters (strategies.OpeningSettings.Isotropic; default false: one per parameter)")
	everyPlateau  = flag.Float64("every-plateau", 0, "the opening's wider look on a plateau (strategies.OpeningSettings.Plateau; 0: the default, strategies.OpeningPlateau; negative: none)")
	everyTables   = flag.String("every-tables", "*.csv", "the tables under testdata/replay BenchmarkEveryTable replays: a glob, or several separated by commas")
	everyLand     = flag.Bool("every-landscape", false, "BenchmarkEveryTable also logs each table's landscape (Table.Landscape) and Kendall's tau of its figures with the score at 2.5%")
)

// BenchmarkEveryTable replays one strategy (-every-strategy, default the
// default) on every committed table under testdata/replay, as
// docs/replay.md's commands do (the table's start points, seeds 1 to 20),
// with a budget of -every-share of each table's rows (default a tenth, the
// docs' -e). Per table it logs the median fraction of the optimum after
// 2.5% of the rows, the first budget at which that median is at least
// 0.95, whether the search beats random search at every
// budget from 20 evaluations to the budget (Result.BeatsRandom), the
// first budget where it does not, its lowest score from 20 evaluations on
// (before random search's expected best is the optimum) and where,
// and the scores at 20 evaluations, 2.5%, 5% and 10% (those beyond the
// budget at the budget); then the tables at 0.95 and beating random
// search and the mean scores, over every table and over the tables that
// repeat (testdata/replay/repeating.txt). It is the check a change of the
// default is judged by on every table at once, in minutes:
//
//	go test ./replay -run '^$' -bench EveryTable -benchtime 1x -timeout 0 -v
//
// (-every-share 0.25 after the package judges beating random search up to
// a quarter of each table; -every-then model replays the default with the
// model's rounds after its opening, strategies.OpeningSettings.Then;
// -every-landscape also logs each table's landscape, Table.Landscape, and
// how its figures rank with the score at 2.5%; -every-seed 21 replays
// seeds 21 to 40 instead of 1 to 20; -every-anchored -1 replays the
// opening without its anchored initial points, the default before them;
// -every-tables 'bicg*,mvt4096-h200.csv' replays only the tables those
// globs match; -every-omit-illegal replays the opening whose model leaves
// out the points rejected as Illegal, a candidate; -every-global-rounds 2
// replays the opening whose rounds after its first two choose every point
// among the local points, a candidate.)
func BenchmarkEveryTable(b *testing.B) {
	var files []string
	for _, glob := range strings.Split(*everyTables, ",") {
		f, err := filepath.Glob(filepath.Join("../testdata/replay", glob))
		if err != nil {
			b.Fatalf("-every-tables %s: %v", *everyTables, err)
		}
		files = append(files, f...)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if len(files) == 0 {
		b.Fatalf("no tables under testdata/replay match -every-tables %s", *everyTables)
	}
	repeating := repeatingTables(b)
	type row struct {
		name           string
		evals, at      int
		frac           float64
		first, worstAt int // first: the first budget not beating random search (0: none)
		reach          int // the first budget whose median fraction is at least 0.95 (0: none)
		worst          float64
		score          [4]float64 // at 20, 2.5%, 5%, 10%
	}
	tables := make([]*Table, len(files))
	for i, file := range files {
		var err error
		if tables[i], err = LoadCSV(file); err != nil {
			b.Fatal(err)
		}
	}
	budget := func(t *Table) int { return max(20, int(*everyShare*float64(t.Len())+1e-9)) }
	for range b.N {
		config := func(i int) Config {
			return Config{Strategies: []string{*everyStrategy}, Evaluations: budget(tables[i]), Seeds: 20, FirstSeed: *everySeed, Opening: strategies.OpeningSettings{Then: *everyThen, Anchored: *everyAnchored, Cover: *everyCover, OmitIllegal: *everyOmit, Plateau: *everyPlateau, PlateauRounds: *everyRounds, GlobalRounds: *everyGlobal, Isotropic: *everyIso}}
		}
		results, errs := replayEach(tables, *everyParallel, config)
		rows := make([]row, len(files))
		for i, tab := range tables {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			r, n := results[i], budget(tab)
			pct := func(p float64) int { return min(n, int(math.Ceil(p*float64(tab.Len())))) }
			rw := row{name: filepath.Base(files[i]), evals: n, at: pct(0.025), first: r.firstLoss, worst: math.Inf(1)}
			rw.frac = r.At(rw.at).MedianFraction
			for k := 1; k <= n && rw.reach == 0; k++ {
				if r.At(k).MedianFraction >= 0.95 {
					rw.reach = k
				}
			}
			// The lowest score before random search's expected best is
			// the optimum, from where every score is 0.
			for k := r.From; k <= n && tab.ExpectedRandom(k) > tab.Optimum(); k++ {
				if s := r.At(k).Score; s < rw.worst {
					rw.worst, rw.worstAt = s, k
				}
			}
			for j, k := range []int{min(20, n), rw.at, pct(0.05), pct(0.1)} {
				rw.score[j] = r.At(k).Score
			}
			rows[i] = rw
		}
		name := *everyStrategy
		if *everyThen != "" {
			name += ", then " + *everyThen
		}
		if *everyAnchored != 0 {
			name += fmt.Sprintf(", anchored initial points %d", *everyAnchored)
		}
		if *everyCover != 0 {
			name += fmt.Sprintf(", untried values first %d", *everyCover)
		}
		if *everyOmit {
			name += ", illegal points left out of the model"
		}
		if *everyRounds != 0 {
			name += fmt.Sprintf(", plateau rounds %d", *everyRounds)
		}
		if *everyIso {
			name += ", one length scale"
		}
		if *everyPlateau != 0 {
			name += fmt.Sprintf(", plateau %g", *everyPlateau)
		}
		first, seeds := config(0).SeedRange()
		b.Logf("%s, seeds %d to %d, a budget of %.3g of each table", name, first, first+seeds-1, *everyShare)
		b.Log("| table | budget | at 2.5% (evaluations) | median at 0.95 from | beats random | first budget not beating it | lowest score (at) | score at 20 | 2.5% | 5% | 10% |")
		b.Log("|---|---|---|---|---|---|---|---|---|---|---|")
		type tally struct {
			tables, at95, beats int
			score               [4]float64
		}
		var all, rep tally
		for _, rw := range rows {
			yes, first, reach := "no", "-", "-"
			if rw.reach > 0 {
				reach = fmt.Sprint(rw.reach)
			}
			if rw.first == 0 {
				yes = "yes"
			} else {
				first = fmt.Sprint(rw.first)
			}
			b.Logf("| %s | %d | %.3f (%d) | %s | %s | %s | %+.3f (%d) | %+.3f | %+.3f | %+.3f | %+.3f |", rw.name, rw.evals, rw.frac, rw.at, reach, yes, first, rw.worst, rw.worstAt, rw.score[0], rw.score[1], rw.score[2], rw.score[3])
			ts := []*tally{&all}
			if slices.Contains(repeating, rw.name) {
				ts = append(ts, &rep)
			}
			for _, t := range ts {
				t.tables++
				if rw.frac >= 0.95 {
					t.at95++
				}
				if rw.first == 0 {
					t.beats++
				}
				for j := range 4 {
					t.score[j] += rw.score[j]
				}
			}
		}
		for _, x := range []struct {
			label string
			t     tally
		}{{"every table", all}, {"the tables that repeat", rep}} {
			t := x.t
			if t.tables == 0 {
				continue
			}
			b.Logf("%s (%d): %d at 0.95 after 2.5%%, %d beat random search from 20 to the budget; mean scores at 20, 2.5%%, 5%%, 10%%: %+.3f %+.3f %+.3f %+.3f", x.label, t.tables, t.at95, t.beats,
				t.score[0]/float64(t.tables), t.score[1]/float64(t.tables), t.score[2]/float64(t.tables), t.score[3]/float64(t.tables))
		}
		if *everyLand {
			at := make([][2]float64, len(rows))
			for i, rw := range rows {
				at[i] = [2]float64{rw.frac, rw.score[1]}
			}
			logLandscapes(b, tables, at, repeating)
		}
		b.ReportMetric(float64(all.at95), "tables@0.95")
		b.ReportMetric(float64(all.beats), "beat-random")
		b.ReportMetric(float64(rep.at95), "repeating@0.95")
		b.ReportMetric(float64(rep.beats), "repeating-beat-random")
	}
}

// logLandscapes logs each table's landscape beside the strategy's median
// fraction and score at 2.5% (at[i]), then Kendall's tau (tau-a,
// stat.Kendall: ties neither concordant nor discordant) of each landscape
// figure with that score, over every table and over those that repeat.
func logLandscapes(b *testing.B, tables []*Table, at [][2]float64, repeating []string) {
	b.Log("| table | rows near the optimum | local minima (near) | steepest descent ends near | centrality of the near minima | best start point | moves from a start point | median at 2.5% | score at 2.5% |")
	b.Log("|---|---|---|---|---|---|---|---|---|")
	const figures = 5
	names := [figures]string{"rows near (share)", "descent", "centrality", "best start point", "moves from a start point"}
	var all, rep [figures + 1][]float64 // the figures, then the score
	for i, t := range tables {
		l := t.Landscape()
		name := filepath.Base(t.Name())
		moves := fmt.Sprint(l.StartMoves)
		m := float64(l.StartMoves)
		if l.StartMoves < 0 {
			moves, m = "none", math.MaxInt32 // farther than any
		}
		b.Logf("| %s | %d of %d | %d (%d) | %.3f | %.3f | %.3f | %s | %.3f | %+.3f |", name, l.Near, l.Successes, l.Minima, l.NearMinima, l.Descent, l.Centrality, l.StartBest, moves, at[i][0], at[i][1])
		// Fewer moves is better: ranked by their negation, a positive tau
		// means "better figure, better score" for every figure.
		fig := [figures + 1]float64{float64(l.Near) / float64(max(1, l.Successes)), l.Descent, l.Centrality, l.StartBest, -m, at[i][1]}
		for k, v := range fig {
			all[k] = append(all[k], v)
			if slices.Contains(repeating, name) {
				rep[k] = append(rep[k], v)
			}
		}
	}
	for _, g := range []struct {
		label string
		v     *[figures + 1][]float64
	}{{"every table", &all}, {"the tables that repeat", &rep}} {
		if len(g.v[figures]) < 2 {
			continue
		}
		line := fmt.Sprintf("Kendall's tau with the score at 2.5%%, %s (%d):", g.label, len(g.v[figures]))
		for k := range figures {
			line += fmt.Sprintf(" %s %+.2f;", names[k], stat.Kendall(g.v[k], g.v[figures], nil))
		}
		b.Log(strings.TrimSuffix(line, ";") + " (fewer moves counted better)")
	}
}
