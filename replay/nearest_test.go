package replay

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hplopt/hplopt/strategies"
)

// committedTables loads the tables the globs match under
// testdata/replay, by file name, and returns them in a list too.
func committedTables(t *testing.T, globs ...string) (map[string]*Table, []*Table) {
	t.Helper()
	byName := map[string]*Table{}
	var all []*Table
	for _, g := range globs {
		files, err := filepath.Glob(filepath.Join("../testdata/replay", g))
		if err != nil || len(files) == 0 {
			t.Fatalf("no table matches %s: %v", g, err)
		}
		for _, f := range files {
			tab, err := LoadCSV(f)
			if err != nil {
				t.Fatal(err)
			}
			byName[filepath.Base(f)] = tab
			all = append(all, tab)
		}
	}
	return byName, all
}

func TestNearest(t *testing.T) {
	tables, all := committedTables(t, "gs-update*.csv", "syrk*.csv", "nbody*.csv")
	base := func(names []string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Base(n))
		}
		return out
	}
	for _, c := range []struct {
		table string
		want  []string
	}{
		// Its family's three nearest sizes, gs-update 5120 recorded with
		// FDTD-EY's pins only (its fastest row with these pins: lszy 4,
		// not 16); its own problem's -fdtd table left out.
		{"gs-update4096-h200.csv", []string{"gs-update5120-h200-fdtd.csv", "gs-update3072-h200.csv", "gs-update6144-h200.csv"}},
		// gs-update 8192's best is that of its table with gs-update's own
		// pins; its -fdtd table's holds these.
		{"gs-update6144-h200-fdtd.csv", []string{"gs-update7168-h200-fdtd.csv", "gs-update5120-h200-fdtd.csv", "gs-update8192-h200-fdtd.csv"}},
		// No other size on the H100: the two nearest on the H200, its
		// kin, the same sizes first.
		{"syrk1024-h100.csv", []string{"syrk1024-h200.csv", "syrk1536-h200.csv"}},
		// Its one other H100 table is of its own problem (the same sizes,
		// other pins): the same sizes on the H200, its kin, whose two
		// tables are one problem, the fastest row with its pins that of
		// the wide one.
		{"nbody32768-h100.csv", []string{"nbody32768-h200-wide.csv"}},
	} {
		seeds, from := Nearest(tables[c.table], all)
		if got := base(from); !reflect.DeepEqual(got, c.want) || len(seeds) != len(from) {
			t.Errorf("%s: from %v (%d settings), want %v", c.table, got, len(seeds), c.want)
		}
	}
	// Carried to 4096x4096: gs-update 6144's best (8x4 blocks, 768x1536
	// work-items, one block each) gives 512x1024 work-items; gs-update
	// 5120's fastest row with gs-update 4096's pins keeps them.
	seeds, _ := Nearest(tables["gs-update4096-h200.csv"], all)
	if s := seeds[2]; s["bszx"] != 8 || s["bszy"] != 4 || s["szx"] != 512 || s["szy"] != 1024 {
		t.Errorf("gs-update 6144's best carried to 4096: %v", s)
	}
	if s := seeds[0]; s["lszy"] != 4 || s["fullunroll"] != 1 || s["lszx"] != 32 {
		t.Errorf("gs-update 5120 -fdtd's row with gs-update 4096's pins: %v", s)
	}
	// A table's own problem, and a table without the metadata.
	if seeds, from := Nearest(tables["gs-update4096-h200.csv"], []*Table{tables["gs-update4096-h200-fdtd.csv"], synthetic(t)}); seeds != nil || from != nil {
		t.Errorf("from its own problem and a table without metadata: %v %v", seeds, from)
	}
	if seeds, from := Nearest(synthetic(t), all); seeds != nil || from != nil {
		t.Errorf("a table without metadata: %v %v", seeds, from)
	}
}

// TestReplayRecords: started from the best of gs-update's other sizes, as
// a live search with those in its records, the default finds gs-update
// 4096's optimum within 2.5% of the table (21 evaluations of a search of
// a tenth, 81), where without
// them it stays at the 0.930 of a slower basin.
func TestReplayRecords(t *testing.T) {
	tables, all := committedTables(t, "gs-update*-h200.csv")
	tab := tables["gs-update4096-h200.csv"]
	recs, _ := Nearest(tab, all)
	for _, c := range []struct {
		records []map[string]int
		want    float64
	}{{nil, 0.930}, {recs, 1}} {
		rs, err := Replay(context.Background(), tab, Config{Strategies: []string{strategies.Default}, Evaluations: 81, Records: c.records})
		if err != nil {
			t.Fatal(err)
		}
		if got := rs[0].At(21).MedianFraction; got < c.want-0.0005 || got > c.want+0.0005 {
			t.Errorf("%d records: median %.3f after 21 evaluations, want %.3f", len(c.records), got, c.want)
		}
	}
}

// TestSearched: the table of what one search measured holds rows of the
// table only, at most its budget of them (illegal points are not rows),
// keeps its metadata, and gives Nearest what that search found.
func TestSearched(t *testing.T) {
	tables, _ := committedTables(t, "gs-update6144-h200.csv", "gs-update4096-h200.csv")
	full := tables["gs-update6144-h200.csv"]
	got, err := Searched(full, strategies.Default, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Len(); n < 20 || n > EveryBudget(full.Len(), 0.1) {
		t.Errorf("%d rows measured, want 20 to %d", n, EveryBudget(full.Len(), 0.1))
	}
	for key, r := range got.rows {
		if fr, ok := full.rows[key]; !ok || fr.Ms != r.Ms || fr.Outcome != r.Outcome {
			t.Errorf("row %s is not the table's", key)
		}
	}
	if id, ok := got.identity(); !ok || id.kernel != "gs_update" {
		t.Errorf("metadata lost: %+v", id)
	}
	if _, from := Nearest(tables["gs-update4096-h200.csv"], []*Table{got}); len(from) != 1 {
		t.Errorf("Nearest from the searched table: %v", from)
	}
	if _, err := Searched(full, "nothing", 0.1, 1); err == nil {
		t.Error("an unknown strategy: no error")
	}
}
