package replay

import (
	"context"
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
	everyExploit  = flag.Int("every-exploit", 0, "the opening's first round whose point anywhere is the model's best guess (strategies.OpeningSettings.Exploit; 0: the default, 3; -1: none)")
	everyIso      = flag.Bool("every-isotropic", false, "the opening's model has one length scale for all parameters (strategies.OpeningSettings.Isotropic; default false: one per parameter)")
	everyPlateau  = flag.Float64("every-plateau", 0, "the opening's wider look on a plateau (strategies.OpeningSettings.Plateau; 0: the default, strategies.OpeningPlateau; negative: none)")
	everyOpening  = flag.String("every-opening", "", "the opening's settings as hplopt's --opening takes them (strategies.ParseOpening: global-rounds=2,omit-illegal), instead of the -every-* flag of each")
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
// among the local points, a candidate; -every-opening takes any of the
// opening's settings as hplopt replay --opening does, instead of those
// flags. hplopt replay --tables 'testdata/replay/*.csv' --subset
// testdata/replay/repeating.txt prints the same lines.)
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
	tables := make([]*Table, len(files))
	for i, file := range files {
		var err error
		if tables[i], err = LoadCSV(file); err != nil {
			b.Fatal(err)
		}
	}
	opening := strategies.OpeningSettings{Then: *everyThen, Anchored: *everyAnchored, Cover: *everyCover, OmitIllegal: *everyOmit, Plateau: *everyPlateau, PlateauRounds: *everyRounds, GlobalRounds: *everyGlobal, Exploit: *everyExploit, Isotropic: *everyIso}
	if *everyOpening != "" {
		if opening != (strategies.OpeningSettings{}) {
			b.Fatal("give -every-opening or the -every-* flag of each setting, not both")
		}
		var err error
		if opening, err = strategies.ParseOpening(*everyOpening); err != nil {
			b.Fatalf("-every-opening: %v", err)
		}
	}
	for range b.N {
		config := func(i int) Config {
			return Config{Strategies: []string{*everyStrategy}, Evaluations: EveryBudget(tables[i].Len(), *everyShare), Seeds: 20, FirstSeed: *everySeed, Opening: opening}
		}
		results, errs := ReplayTables(context.Background(), tables, *everyParallel, config, nil)
		rows := make([]Standing, len(files))
		for i, tab := range tables {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			rows[i] = Stand(tab, results[i])
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
		if *everyExploit != 0 {
			name += fmt.Sprintf(", exploit %d", *everyExploit)
		}
		if *everyIso {
			name += ", one length scale"
		}
		if *everyPlateau != 0 {
			name += fmt.Sprintf(", plateau %g", *everyPlateau)
		}
		if *everyOpening != "" {
			name += " (" + opening.String() + ")"
		}
		first, seeds := config(0).SeedRange()
		b.Logf("%s, seeds %d to %d, a budget of %.3g of each table", name, first, first+seeds-1, *everyShare)
		for _, line := range StandingLines(rows) {
			b.Log(line)
		}
		var all, rep Tally
		for _, rw := range rows {
			all.Add(rw)
			if slices.Contains(repeating, rw.Table) {
				rep.Add(rw)
			}
		}
		for _, x := range []struct {
			label string
			t     Tally
		}{{"every table", all}, {"the tables that repeat", rep}} {
			if x.t.Tables > 0 {
				b.Log(x.t.Line(x.label))
			}
		}
		if *everyLand {
			at := make([][2]float64, len(rows))
			for i, rw := range rows {
				at[i] = [2]float64{rw.Fraction, rw.Scores[1]}
			}
			logLandscapes(b, tables, at, repeating)
		}
		b.ReportMetric(float64(all.AtFraction), "tables@0.95")
		b.ReportMetric(float64(all.BeatRandom), "beat-random")
		b.ReportMetric(float64(rep.AtFraction), "repeating@0.95")
		b.ReportMetric(float64(rep.BeatRandom), "repeating-beat-random")
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
