package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

// recorded makes a records database with one problem measured in two
// runs: a grid a in {1, 2, 4} x b in {1, 2}, where (4, 2) was never
// measured, (2, 2) failed, (1, 1) was measured again by the second run
// (its time then counts), and (2, 1) timed out in the second run (its
// time measured in the first still counts).
func recorded(t *testing.T) *records.DB {
	t.Helper()
	db, err := records.Open(filepath.Join(t.TempDir(), "r.db"), records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key := records.Key{Kernel: "k", Hash: "h", Device: records.Device{Name: "dev"}, Global: []int{8}, Space: "test-1"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, run := range []struct {
		settings string
		evals    []records.Evaluation
	}{
		{`{"strategy":"exhaustive","start":["a=1,b=1","a=4,b=9"]}`, []records.Evaluation{
			{Params: map[string]int{"b": 1, "a": 1}, Outcome: autotune.OK, Ms: 3},
			{Params: map[string]int{"a": 1, "b": 2}, Outcome: autotune.OK, Ms: 2},
			{Params: map[string]int{"a": 2, "b": 1}, Outcome: autotune.OK, Ms: 1.5},
			{Params: map[string]int{"a": 2, "b": 2}, Outcome: autotune.Compile, Err: "no"},
			{Params: map[string]int{"a": 4, "b": 1}, Outcome: autotune.OK, Ms: 0.5},
		}},
		{`{"strategy":"random"}`, []records.Evaluation{
			{Params: map[string]int{"a": 1, "b": 1}, Outcome: autotune.OK, Ms: 2.5},
			{Params: map[string]int{"a": 2, "b": 1}, Outcome: autotune.Timeout, Err: "past 1 ms"},
		}},
	} {
		rec, err := db.Begin(key, records.Run{Strategy: "s", Settings: json.RawMessage(run.settings), Started: t0.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		for j, e := range run.evals {
			// Each evaluation takes 100 ms, and starts 10 ms after the
			// one before ended.
			e.Started = t0.Add(time.Duration(i)*time.Hour + time.Duration(j)*110*time.Millisecond + 10*time.Millisecond)
			e.Ended = e.Started.Add(100 * time.Millisecond)
			if _, err := rec.Add(e); err != nil {
				t.Fatal(err)
			}
		}
		rec.End("exhausted")
	}
	return db
}

func TestFromRecords(t *testing.T) {
	db := recorded(t)
	src, err := FromRecords(db, "k", []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(src.Params(), ","); got != "b,a" {
		t.Errorf("params %s, want the order given", got)
	}
	tab, err := Load(src, "k")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 5 || tab.Failed() != 1 || tab.Optimum() != 0.5 {
		t.Errorf("%d points, %d failed, optimum %v; want 5, 1, 0.5", tab.Len(), tab.Failed(), tab.Optimum())
	}
	ev := tab.Evaluator()
	for _, c := range []struct {
		b, a int
		out  autotune.Outcome
		ms   float64
	}{{1, 1, autotune.OK, 2.5}, {1, 2, autotune.OK, 1.5}, {2, 2, autotune.Compile, 0}, {2, 4, autotune.Illegal, 0}, {1, 4, autotune.OK, 0.5}} {
		p, _ := tab.Space().FromValues([]int{c.b, c.a})
		if r := ev.Evaluate(context.Background(), p); r.Outcome != c.out || r.Ms != c.ms {
			t.Errorf("a=%d,b=%d: %v %v, want %v %v", c.a, c.b, r.Outcome, r.Ms, c.out, c.ms)
		}
	}
	// Costs: the first of a run from its start, the others from the end of
	// the one before.
	rows, _ := src.Rows()
	if rows[0].Cost != 100*time.Millisecond || rows[1].Cost != 110*time.Millisecond {
		t.Errorf("costs %v and %v, want 100ms and 110ms", rows[0].Cost, rows[1].Cost)
	}
	// The start points of the run that recorded them, repaired into the
	// table parameter by parameter in its order: b=9 becomes b=2, and a=4,
	// never measured with b=2, a=2.
	var start []string
	for _, p := range tab.Start() {
		start = append(start, tab.Describe(p))
	}
	if got := strings.Join(start, " "); got != "b=1,a=1 b=2,a=2" {
		t.Errorf("start points %s", got)
	}
	// The CSV it writes reads back to the same rows and start points.
	var buf bytes.Buffer
	if err := WriteCSV(&buf, src, src.Meta()); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCSV(&buf, "export")
	if err != nil {
		t.Fatal(err)
	}
	back, _ := c.Rows()
	if fmt := func(v any) string { b, _ := json.Marshal(v); return string(b) }; fmt(back) != fmt(rows) || fmt(c.Start()) != fmt(src.Start()) || c.Meta()[1] != [2]string{"kernel", "k"} {
		t.Errorf("read back %v %v %v\nwritten %v %v", back, c.Start(), c.Meta(), rows, src.Start())
	}
	for q, want := range map[string]string{"nosuch": `no recorded problem has an ID starting with "nosuch"`} {
		if _, err := FromRecords(db, q, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FromRecords(%q): %v", q, err)
		}
	}
	if _, err := FromRecords(db, "", nil); err != nil {
		t.Errorf("the only problem: %v", err)
	}
}
