package replay

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/strategies"
)

// openingTables are docTables and the four H100 tables recorded after
// them, with their -e (a tenth of the table).
var openingTables = append(slices.Clone(docTables), []benchTable{
	{"conv2d1024-h100-quiet", "2DCONV 1024 H100 quiet", 89}, {"syrk1024-h100", "SYRK 1024 H100", 91},
	{"nbody32768-h100", "NBODY 32768 H100", 50}, {"mv8192-h100", "MV 8192 H100", 52},
}...)

// openingParallel is the number of tables BenchmarkOpeningReplay replays
// at once.
var openingParallel = flag.Int("opening-parallel", 2, "tables BenchmarkOpeningReplay replays at once")

// openingSeeds is the number of seeds BenchmarkOpeningReplay replays each
// search with (seeds 1 to it).
var openingSeeds = flag.Int("opening-seeds", 20, "seeds of BenchmarkOpeningReplay's searches (1 to N)")

// BenchmarkOpeningReplay replays the strategy opening (hybrid chooses the
// first K evaluations, then the genetic algorithm) with its defaults
// ("opening", those of the day: until 2026-11-27's ninth session K 32,
// hybrid starting from the start points and 2 of their neighbours, which
// docs/replay/opening/lookahead*.txt hold), with K of 16, 24 or 32 and 1,
// 2, 3, 5 or 10 neighbours ("near=N/k=K", no share of the budget), and
// with hybrid's own initial points (Neighbours -1, "plain/k=K"), beside
// genetic and hybrid, on the twelve tables of
// openingTables (seeds 1 to 20, -e a tenth of each table), without and
// with the lookahead of a live search with 15 builders (30 points:
// Config.Lookahead). For each it logs, per table, the median fraction of
// the optimum at 2.5% of the table and whether it beats random search
// from 20 evaluations, and the mean methodology score over the tables at
// 20 evaluations, 2.5%, 5% and 10%, which it also reports as metrics with
// the tables at 0.95 and beating random search (replayRow). One iteration
// is every replay; run it once:
//
//	go test ./replay -run '^$' -bench OpeningReplay -benchtime 1x -timeout 0 -v
//
// (-opening-seeds N after the package replays seeds 1 to N instead;
// -opening-parallel P replays P tables at once, default 2.)
func BenchmarkOpeningReplay(b *testing.B) {
	tables := loadBench(b, openingTables)
	for _, lookahead := range []int{0, 30} {
		b.Run(fmt.Sprintf("lookahead=%d", lookahead), func(b *testing.B) {
			logHeader(b, openingTables)
			for _, run := range []struct {
				label, strategy string
				opening         strategies.OpeningSettings // Config.Opening
			}{
				{strategies.Genetic, strategies.Genetic, strategies.OpeningSettings{}},
				{strategies.Hybrid, strategies.Hybrid, strategies.OpeningSettings{}},
				{strategies.Opening, strategies.Opening, strategies.OpeningSettings{}},
				{"near=10/k=16", strategies.Opening, strategies.OpeningSettings{Evaluations: 16, Neighbours: 10, Share: -1}},
				{"near=10/k=24", strategies.Opening, strategies.OpeningSettings{Evaluations: 24, Neighbours: 10, Share: -1}},
				{"near=10/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: 10, Share: -1}},
				{"near=1/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: 1, Share: -1}},
				{"near=2/k=24", strategies.Opening, strategies.OpeningSettings{Evaluations: 24, Neighbours: 2, Share: -1}},
				{"near=2/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: 2, Share: -1}},
				{"near=3/k=16", strategies.Opening, strategies.OpeningSettings{Evaluations: 16, Neighbours: 3, Share: -1}},
				{"near=3/k=24", strategies.Opening, strategies.OpeningSettings{Evaluations: 24, Neighbours: 3, Share: -1}},
				{"near=3/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: 3, Share: -1}},
				{"near=5/k=24", strategies.Opening, strategies.OpeningSettings{Evaluations: 24, Neighbours: 5, Share: -1}},
				{"near=5/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: 5, Share: -1}},
				{"plain/k=16", strategies.Opening, strategies.OpeningSettings{Evaluations: 16, Neighbours: -1, Share: -1}},
				{"plain/k=24", strategies.Opening, strategies.OpeningSettings{Evaluations: 24, Neighbours: -1, Share: -1}},
				{"plain/k=32", strategies.Opening, strategies.OpeningSettings{Evaluations: 32, Neighbours: -1, Share: -1}},
			} {
				b.Run(run.label, func(b *testing.B) {
					for range b.N {
						replayRow(b, run.label, openingTables, tables, *openingParallel, Config{Strategies: []string{run.strategy}, Seeds: *openingSeeds, Lookahead: lookahead, Opening: run.opening})
					}
				})
			}
		})
	}
}

// allTables are the sixteen tables of docs/replay.md: openingTables and
// the four wide H100 tables recorded after them.
var allTables = append(slices.Clone(openingTables), []benchTable{
	{"nbody32768-h100-wide", "NBODY 32768 H100 wide", 248}, {"mv8192-h100-wide", "MV 8192 H100 wide", 220},
	{"conv2d1024-h100-wide", "2DCONV 1024 H100 wide", 289}, {"matmul1024-h100-wide", "MATMUL 1024 H100 wide", 461},
}...)

// lengthOnly limits BenchmarkOpeningLength to the runs whose label holds it.
var lengthOnly = flag.String("length-only", "", "replay only BenchmarkOpeningLength's runs whose label holds this")

// BenchmarkOpeningLength replays longer openings on the sixteen tables of
// allTables (seeds 1 to -opening-seeds, -e a tenth of each table, no
// lookahead): the default ("opening": K 64, 1 neighbour, at most a third
// of the budget), the default before it ("near=2/k=32", no share of the
// budget), K of 48 or 64 with 2 neighbours, 1 neighbour with K 32 or 64,
// and hybrid's own initial points with K 64 (no share), and K 64 with 1
// neighbour and at most half the budget or 2 neighbours and at most a
// third, logged as BenchmarkOpeningReplay's rows (replayRow).
// docs/replay.md ("A longer opening") says how the default was chosen:
//
//	go test ./replay -run '^$' -bench OpeningLength -benchtime 1x -timeout 0 -v
//
// (-length-only S replays only the runs whose label holds S.)
func BenchmarkOpeningLength(b *testing.B) {
	tables := loadBench(b, allTables)
	logHeader(b, allTables)
	for _, run := range []struct {
		label   string
		opening strategies.OpeningSettings
	}{
		{strategies.Opening, strategies.OpeningSettings{}},
		{"near=2/k=32", strategies.OpeningSettings{Evaluations: 32, Neighbours: 2, Share: -1}},
		{"near=2/k=48", strategies.OpeningSettings{Evaluations: 48, Neighbours: 2, Share: -1}},
		{"near=2/k=64", strategies.OpeningSettings{Evaluations: 64, Neighbours: 2, Share: -1}},
		{"near=1/k=32", strategies.OpeningSettings{Evaluations: 32, Neighbours: 1, Share: -1}},
		{"near=1/k=64", strategies.OpeningSettings{Evaluations: 64, Neighbours: 1, Share: -1}},
		{"plain/k=64", strategies.OpeningSettings{Evaluations: 64, Neighbours: -1, Share: -1}},
		{"near=1/k=64/share=1/2", strategies.OpeningSettings{Evaluations: 64, Neighbours: 1, Share: 1.0 / 2}},
		{"near=2/k=64/share=1/3", strategies.OpeningSettings{Evaluations: 64, Neighbours: 2, Share: 1.0 / 3}},
	} {
		if *lengthOnly != "" && !strings.Contains(run.label, *lengthOnly) {
			continue
		}
		b.Run(run.label, func(b *testing.B) {
			for range b.N {
				replayRow(b, run.label, allTables, tables, *openingParallel, Config{Strategies: []string{strategies.Opening}, Seeds: *openingSeeds, Opening: run.opening})
			}
		})
	}
}
