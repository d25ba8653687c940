package replay

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/strategies"
)

// benchTable is a recorded table a replay benchmark replays: its file in
// testdata/replay, its name in docs/replay.md's tables and its -e (a tenth
// of the table).
type benchTable struct {
	file, name string
	evals      int
}

// docTables are the eight tables of docs/replay.md with their -e (a tenth
// of the table) and the names its tables give them.
var docTables = []benchTable{
	{"matmul128-pocl", "MATMUL 128 PoCL", 89}, {"conv2d256-pocl", "2DCONV 256 PoCL", 69},
	{"mv1024-pocl", "MV 1024 PoCL", 94}, {"matmul1024-h100", "MATMUL 1024 H100", 130},
	{"conv2d1024-h100", "2DCONV 1024 H100", 89}, {"matmul128-pocl-xeon", "MATMUL 128 PoCL Xeon", 187},
	{"conv2d256-pocl-xeon", "2DCONV 256 PoCL Xeon", 89}, {"mv1024-pocl-xeon", "MV 1024 PoCL Xeon", 107},
}

// loadBench loads the tables of list.
func loadBench(b *testing.B, list []benchTable) []*Table {
	b.Helper()
	var tables []*Table
	for _, tb := range list {
		t, err := LoadCSV("../testdata/replay/" + tb.file + ".csv")
		if err != nil {
			b.Fatal(err)
		}
		tables = append(tables, t)
	}
	return tables
}

// logHeader logs the header of replayRow's rows over the tables of list.
func logHeader(b *testing.B, list []benchTable) {
	b.Helper()
	var names []string
	for _, tb := range list {
		names = append(names, tb.name)
	}
	b.Logf("| strategy | %s | at 0.95 | beat random | score@20 | @2.5%% | @5%% | @10%% |", strings.Join(names, " | "))
}

// replayRow replays cfg's one strategy on every table of list (tables,
// loaded), each with its -e, parallel tables at once, and logs a row of
// the benchmarks' tables: per table the median fraction of the optimum at
// 2.5% of the table (bold at 0.95) and whether it beats random search
// from 20 evaluations, the tables at 0.95 and beating random search, and
// the mean methodology score over the tables at 20 evaluations, 2.5%, 5%
// and 10%, which it also reports as metrics.
func replayRow(b *testing.B, label string, list []benchTable, tables []*Table, parallel int, cfg Config) {
	b.Helper()
	results, errs := ReplayTables(context.Background(), tables, parallel, func(i int) Config {
		c := cfg
		c.Evaluations = list[i].evals
		return c
	}, nil)
	var score [4]float64 // at 20, 2.5%, 5%, 10%
	at95, beats := 0, 0
	var cells []string
	for i, t := range tables {
		if errs[i] != nil {
			b.Fatal(errs[i])
		}
		r := results[i]
		at := int(math.Ceil(0.025 * float64(t.Len())))
		for j, n := range []int{20, at, int(math.Ceil(0.05 * float64(t.Len()))), r.Evaluations} {
			score[j] += r.At(n).Score / float64(len(tables))
		}
		frac := r.At(at).MedianFraction
		cell := fmt.Sprintf("%.3f", frac)
		if frac >= 0.95 {
			at95++
			cell = "**" + cell + "**"
		}
		yes := "no"
		if r.BeatsRandom {
			beats++
			yes = "yes"
		}
		cells = append(cells, cell+", "+yes)
	}
	b.Logf("| %s | %s | %d | %d | %+.3f | %+.3f | %+.3f | %+.3f |", label, strings.Join(cells, " | "), at95, beats, score[0], score[1], score[2], score[3])
	b.ReportMetric(score[0], "score@20")
	b.ReportMetric(score[1], "score@2.5%")
	b.ReportMetric(score[2], "score@5%")
	b.ReportMetric(score[3], "score@10%")
	b.ReportMetric(float64(at95), "tables@0.95")
	b.ReportMetric(float64(beats), "beat-random")
}

// batchSeeds is the number of seeds BenchmarkBayesBatchReplay replays each
// search with (seeds 1 to it).
var batchSeeds = flag.Int("batch-seeds", 20, "seeds of BenchmarkBayesBatchReplay's searches (1 to N)")

// BenchmarkBayesBatchReplay replays Bayesian optimization with a batch of
// B points a round (Config.Batch, --batch: the registry's bayes, every point of
// a round the largest expected improvement with the kriging believer), as a
// live search with B builders would measure it, beside the registry's bayes
// (B = 1) and hybrid, on the eight tables of docs/replay.md (seeds 1 to 20,
// -e a tenth of each table). For each it logs, per table, the median
// fraction of the optimum at 2.5% of the table and whether it beats random
// search from 20 evaluations, and the mean methodology score over the eight
// tables at 20 evaluations, 2.5%, 5% and 10% (docs/replay.md's "Mean
// scores"), which it also reports as metrics with the tables at 0.95 and
// beating random search (replayRow). One iteration is every replay; run it once:
//
//	go test ./replay -run '^$' -bench BayesBatchReplay -benchtime 1x -timeout 0
//
// (-batch-seeds N after the package replays seeds 1 to N instead.)
func BenchmarkBayesBatchReplay(b *testing.B) {
	tables := loadBench(b, docTables)
	for _, run := range []struct {
		label, strategy string
		batch           int // Config.Batch: bayes's points a round
	}{
		{strategies.Bayes, strategies.Bayes, 0},
		{"batch=1", strategies.Bayes, 1},
		{"batch=4", strategies.Bayes, 4},
		{"batch=8", strategies.Bayes, 8},
		{"batch=15", strategies.Bayes, 15},
		{strategies.Hybrid, strategies.Hybrid, 0},
	} {
		b.Run(run.label, func(b *testing.B) {
			for range b.N {
				replayRow(b, run.label, docTables, tables, len(tables), Config{Strategies: []string{run.strategy}, Seeds: *batchSeeds, Batch: run.batch})
			}
		})
	}
}
