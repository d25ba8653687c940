package optimizer_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/replay"
)

// tableDevice measures a live search's point by its table's row, named
// parameter by parameter (the parameters the table lacks are the live
// space's single values): its outcome and recorded time, Illegal where
// the table has no row.
type tableDevice struct{ t *replay.Table }

func (d tableDevice) Evaluate(_ context.Context, p autotune.Point) autotune.Result {
	m := map[string]int{}
	for _, name := range d.t.Space().Names() {
		m[name] = p.Map()[name]
	}
	q, err := d.t.Space().PointOf(m)
	if err != nil {
		return autotune.Result{Outcome: autotune.Illegal, Err: err}
	}
	r, ok := d.t.Lookup(q)
	if !ok {
		return autotune.Result{Outcome: autotune.Illegal, Err: fmt.Errorf("%s: not a row", d.t.Describe(q))}
	}
	res := autotune.Result{Outcome: r.Outcome}
	if r.Outcome == autotune.OK {
		res.Ms = r.Ms
	}
	return res
}

// TestSearchIsReplay runs the optimizer's own search (its Table 2 space
// with a table's pins, its start points, the settings hplopt tune gives
// it: -e a tenth of the table and --stop "evals>=N", N 2.5% of it, as
// docs/results/h100/scripts/session35.sh ran it on the H200) on three
// recorded tables' rows, cold and from a setting of the records, and
// checks that it proposes, point for point, what hplopt replay -e N
// proposes with the same seed: that a replay is the live search, on
// recorded times.
func TestSearchIsReplay(t *testing.T) {
	byName := map[string]groundTruthTable{}
	for _, c := range groundTruthTables(t, "h200") {
		byName[c.name] = c
	}
	h200 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	for _, c := range []struct {
		table  string
		record string // a setting the records give, "" for a cold search
	}{
		{"syrk2048-h200", ""},
		{"syrk2048-h200", "lszx=16,lszy=8,tw0=64,lmem=1"}, // SYRK 1536's optimum
		{"gs-update4096-h200", ""},
		{"jacobi2d5120-h200-fdtd", "bszy=4,szx=5120,lszy=2,szy=320,lmem=1"},
	} {
		gt, ok := byName[c.table]
		if !ok {
			t.Fatalf("groundtruth.sh lists no table %s", c.table)
		}
		tab, err := replay.LoadCSV("../testdata/replay/" + c.table + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		prob := gt.problem(t, h200)
		record := map[string]int{}
		for name, v := range gt.fixed {
			record[string(name)] = v
		}
		var first []map[string]int
		cfg := replay.Config{Evaluations: int(math.Ceil(0.025 * float64(tab.Len())))}
		if c.record != "" {
			for _, kv := range strings.Split(c.record, ",") {
				name, v, _ := strings.Cut(kv, "=")
				if record[name], err = strconv.Atoi(v); err != nil {
					t.Fatal(err)
				}
			}
			first = append(first, record)
			cfg.Records = first
		}
		stop, err := autotune.ParseStop(fmt.Sprintf("evals>=%d", cfg.Evaluations))
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			live, err := optimizer.SearchFrom(context.Background(), prob.Passes, optimizer.Settings{Evals: (tab.Len() + 9) / 10, Stop: stop, Seed: seed, Fixed: gt.fixed}, false, tableDevice{tab}, first...)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := tab.Search(context.Background(), cfg, "opening", seed)
			if err != nil {
				t.Fatal(err)
			}
			describe := func(e autotune.Eval) string {
				var kv []string
				for _, name := range tab.Space().Names() {
					kv = append(kv, fmt.Sprintf("%s=%d", name, e.Point.Map()[name]))
				}
				return strings.Join(kv, ",")
			}
			if len(live.History) != len(rep.History) {
				t.Errorf("%s, record %q, seed %d: the live search proposed %d points, the replay %d", c.table, c.record, seed, len(live.History), len(rep.History))
			}
			for i := range min(len(live.History), len(rep.History)) {
				if l, r := describe(live.History[i]), describe(rep.History[i]); l != r {
					t.Errorf("%s, record %q, seed %d: point %d: the live search proposed %s, the replay %s", c.table, c.record, seed, i+1, l, r)
					break
				}
			}
		}
	}
}
