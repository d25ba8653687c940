package records_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/records"
)

var pocl = records.Device{Platform: "Portable Computing Language", Name: "cpu-haswell-Intel(R) Xeon(R)", Vendor: "GenuineIntel", Driver: "6.0", OpenCL: "OpenCL 3.0 PoCL"}

// key returns a matmul key of size n x n with loop length k.
func key(n, k int) records.Key {
	return records.Key{
		Kernel: "matmul", Hash: "5f1e2d", Device: pocl, Global: []int{n, n}, Space: "table2-v1",
		Args: []records.Arg{{Name: "A", Type: "float32", Shape: []int{n, k}}, {Name: "B", Type: "float32", Shape: []int{k, n}}, {Name: "C", Type: "float32", Shape: []int{n, n}}},
	}
}

func open(t *testing.T) *records.DB {
	t.Helper()
	db, err := records.Open(filepath.Join(t.TempDir(), "records.db"), records.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// eval returns an evaluation of the point uf=u, lx=l: OK at ms if ms > 0,
// a compile failure otherwise.
func eval(u, l int, ms float64) records.Evaluation {
	e := records.Evaluation{Params: map[string]int{"uf": u, "lx": l}, Started: t0, Ended: t0.Add(time.Second), BuildMs: 12.5, CheckMs: 0.5}
	if ms > 0 {
		e.Outcome, e.Times, e.Ms = autotune.OK, []float64{ms * 1.1, ms, ms * 0.9}, ms
	} else {
		e.Outcome, e.Err = autotune.Compile, "error: too many registers"
	}
	return e
}

// record runs one run of k with the given evaluations.
func record(t *testing.T, db *records.DB, k records.Key, evals ...records.Evaluation) records.Run {
	t.Helper()
	rec, err := db.Begin(k, records.Run{Strategy: "random", Seed: 3, Tool: "hplopt test", Host: "testhost", Started: t0, Settings: json.RawMessage(`{"runs":5}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		if _, err := rec.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.End("budget"); err != nil {
		t.Fatal(err)
	}
	return rec.Run()
}

func TestKey(t *testing.T) {
	k := key(1024, 1024)
	k.Scalars = []records.Scalar{{"beta", "0"}, {"alpha", "2"}}
	same := k
	same.Scalars = []records.Scalar{{"alpha", "2"}, {"beta", "0"}}
	if k.ID() != same.ID() {
		t.Errorf("the order of scalars changes the ID")
	}
	if len(k.ID()) != 32 {
		t.Errorf("ID %q: want 32 hex digits", k.ID())
	}
	for name, change := range map[string]func(*records.Key){
		"hash":   func(k *records.Key) { k.Hash = "other" },
		"driver": func(k *records.Key) { k.Device.Driver = "7.0" },
		"space":  func(k *records.Key) { k.Space = "table2-v2" },
		"scalar": func(k *records.Key) { k.Scalars = []records.Scalar{{"alpha", "3"}, {"beta", "0"}} },
		"shape":  func(k *records.Key) { k.Args = key(1024, 512).Args },
		"global": func(k *records.Key) { k.Global = []int{1024, 512} },
	} {
		c := k
		c.Device = k.Device
		change(&c)
		if c.ID() == k.ID() {
			t.Errorf("changing the %s keeps the ID", name)
		}
		sizeOnly := name == "scalar" || name == "shape" || name == "global"
		if (c.Family() == k.Family()) != sizeOnly {
			t.Errorf("changing the %s: same family %v, want %v", name, c.Family() == k.Family(), sizeOnly)
		}
	}
	if got := k.Sizes(); got != "1024x1024 A[1024x1024] B[1024x1024] C[1024x1024] alpha=2 beta=0" {
		t.Errorf("Sizes: %q", got)
	}
	if err := (records.Key{Kernel: "x"}).Validate(); err == nil {
		t.Errorf("a key without hash, device or space validates")
	}
	if d := records.Distance(key(1024, 1024).Shape(), key(2048, 1024).Shape()); d <= 0 || d > 5 {
		t.Errorf("distance of 1024 and 2048: %g", d)
	}
}

func TestRecordAndQuery(t *testing.T) {
	db := open(t)
	k := key(256, 256)
	run := record(t, db, k, eval(1, 8, 3), eval(2, 8, 0), eval(4, 16, 1.5), eval(8, 16, 2))
	if len(run.ID) != 32 || run.Problem != k.ID() || run.Stopped != "budget" || run.Ended.IsZero() {
		t.Errorf("run %+v", run)
	}
	evals, err := db.Evaluations(k.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(evals) != 4 {
		t.Fatalf("%d evaluations, want 4", len(evals))
	}
	e := evals[1]
	want := eval(2, 8, 0)
	want.Run, want.Problem, want.Seq, want.Order, want.Strategy, want.Seed = run.ID, k.ID(), 2, 2, "random", 3
	if !reflect.DeepEqual(e, want) {
		t.Errorf("evaluation 2 read back:\n got %+v\nwant %+v", e, want)
	}
	if e.Point() != "lx=8,uf=2" {
		t.Errorf("Point %q", e.Point())
	}
	best, ok, err := db.Best(k.ID())
	if err != nil || !ok || best.Seq != 3 || best.Ms != 1.5 {
		t.Errorf("Best: %+v %v %v, want evaluation 3 at 1.5 ms", best, ok, err)
	}
	if _, ok, _ := db.Best(key(512, 512).ID()); ok {
		t.Errorf("Best of a problem never recorded")
	}
	ps, err := db.Problems()
	if err != nil || len(ps) != 1 {
		t.Fatalf("Problems: %v %v", ps, err)
	}
	p := ps[0]
	if p.ID != k.ID() || p.Runs != 1 || p.Evaluations != 4 || p.Best == nil || p.Best.Ms != 1.5 || !p.Last.Equal(t0.Add(time.Second)) || p.Stale {
		t.Errorf("problem summary %+v", p)
	}
	if p.Key.JSON() != k.JSON() {
		t.Errorf("key read back %+v, want %+v", p.Key, k)
	}
	for _, q := range []string{k.ID()[:6], "matmul"} {
		if found, err := db.Find(q); err != nil || len(found) != 1 || found[0].Best == nil || found[0].Best.Ms != 1.5 {
			t.Errorf("Find(%q): %d problems, %v, want 1 with its best", q, len(found), err)
		}
	}
	runs, err := db.Runs(k.ID())
	if err != nil || len(runs) != 1 || string(runs[0].Settings) != `{"runs":5}` || runs[0].Tool != "hplopt test" {
		t.Errorf("Runs: %+v %v", runs, err)
	}
}

func TestResumeRun(t *testing.T) {
	db := open(t)
	k := key(64, 64)
	run := record(t, db, k, eval(1, 1, 1), eval(2, 1, 2))
	rec, err := db.Begin(k, records.Run{ID: run.ID, Strategy: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := rec.Add(eval(4, 1, 0.5))
	if err != nil || e.Seq != 3 || e.Strategy != "random" {
		t.Errorf("resumed run: evaluation %+v, %v; want seq 3 of the recorded random run", e, err)
	}
	if _, err := rec.Add(records.Evaluation{Seq: 2, Params: map[string]int{"uf": 1}, Outcome: autotune.Illegal}); err == nil {
		t.Errorf("a second evaluation 2 is accepted")
	}
	rec.End("cancelled")
	if _, err := rec.Add(eval(1, 1, 1)); err == nil {
		t.Errorf("Add after End is accepted")
	}
	if _, err := db.Begin(key(128, 128), records.Run{ID: run.ID}); err == nil {
		t.Errorf("a run continued under another problem")
	}
}

func TestBadEvaluations(t *testing.T) {
	db := open(t)
	rec, err := db.Begin(key(8, 8), records.Run{Strategy: "random"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.End("")
	nan := eval(1, 1, 1)
	nan.Times = []float64{1, 2, float64(0) / zero}
	for name, e := range map[string]records.Evaluation{
		"unknown outcome": {Outcome: autotune.Outcome(42)},
		"ok without time": {Outcome: autotune.OK},
		"NaN time":        nan,
		"negative build":  {Outcome: autotune.Compile, BuildMs: -1},
	} {
		if _, err := rec.Add(e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := db.Begin(records.Key{Kernel: "x"}, records.Run{}); err == nil {
		t.Errorf("Begin with an incomplete key")
	}
}

var zero float64

func TestNearestAndRule(t *testing.T) {
	db := open(t)
	for i, n := range []int{256, 1024, 4096} {
		record(t, db, key(n, n), eval(1, 1, float64(n)), eval(1<<i, 2, float64(n)/2))
	}
	other := key(512, 512)
	other.Space = "table2-v0"
	record(t, db, other, eval(9, 9, 1))
	record(t, db, key(8192, 8192), eval(1, 1, 0)) // no verified best: never a neighbour

	near, err := db.Nearest(key(768, 768), 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, nb := range near {
		got = append(got, fmt.Sprintf("%d uf=%d", nb.Problem.Key.Global[0], nb.Best.Params["uf"]))
	}
	if want := []string{"1024 uf=2", "256 uf=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Nearest(768): %v, want %v", got, want)
	}
	near, _ = db.Nearest(key(1024, 1024), 0)
	if len(near) != 3 || near[0].Distance != 0 || near[0].Best.Ms != 512 {
		t.Errorf("Nearest(1024, all): %d neighbours, first %+v", len(near), near[0])
	}
	rule, err := db.Rule(key(1, 1))
	if err != nil || len(rule) != 3 || rule[0].Problem.Key.Global[0] != 256 || rule[2].Problem.Key.Global[0] != 4096 {
		t.Errorf("Rule: %d rows, %v", len(rule), err)
	}
}

// TestKin checks where a search of a family never recorded starts: the
// best of its kernel's shapes recorded on the platform's other devices and
// drivers (the same device name first at equal distance), never those of
// another platform, another search space or its own family.
func TestKin(t *testing.T) {
	db := open(t)
	on := func(k records.Key, name, driver, platform string) records.Key {
		k.Device = records.Device{Platform: platform, Name: name, Driver: driver}
		return k
	}
	const nv = "NVIDIA CUDA"
	me := on(key(1024, 1024), "H200", "580", nv)
	record(t, db, on(key(1024, 1024), "H100", "580", nv), eval(2, 2, 2))
	record(t, db, on(key(1024, 1024), "H200", "570", nv), eval(4, 4, 4))
	record(t, db, on(key(2048, 2048), "H200", "570", nv), eval(8, 8, 8))
	record(t, db, on(key(1024, 1024), "H200", "580", "other"), eval(16, 16, 1))
	old := on(key(1024, 1024), "H100", "580", nv)
	old.Space = "table2-v0"
	record(t, db, old, eval(32, 32, 1))
	record(t, db, on(key(512, 512), "H200", "580", nv), eval(64, 64, 1)) // its own family
	kin, err := db.Kin(me, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range kin {
		got = append(got, fmt.Sprintf("%s %s %d uf=%d", n.Problem.Key.Device.Name, n.Problem.Key.Device.Driver, n.Problem.Key.Global[0], n.Best.Params["uf"]))
	}
	if want := []string{"H200 570 1024 uf=4", "H100 580 1024 uf=2", "H200 570 2048 uf=8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Kin: %v, want %v", got, want)
	}
	if kin, _ := db.Kin(me, 1); len(kin) != 1 || kin[0].Best.Params["uf"] != 4 {
		t.Errorf("Kin(1): %+v", kin)
	}
	if me.Kin() != on(key(4096, 4096), "A100", "1", nv).Kin() || me.Kin() == on(key(1024, 1024), "H200", "580", "other").Kin() {
		t.Error("Kin is not the family up to the device's name and driver, on one platform")
	}
}

func TestRetireAndPrune(t *testing.T) {
	db := open(t)
	old := key(64, 64)
	old.Space = "table2-v0"
	record(t, db, old, eval(1, 1, 1), eval(2, 1, 2))
	record(t, db, key(64, 64), eval(1, 1, 1))
	r := record(t, db, key(128, 128), eval(1, 1, 1))
	syrk := key(64, 64)
	syrk.Kernel = "syrk"
	record(t, db, syrk, eval(1, 1, 1))

	n, err := db.Retire("table2-v1")
	if err != nil || n != 1 {
		t.Fatalf("Retire: %d stale, %v; want 1", n, err)
	}
	if ps, _ := db.Find(old.ID()); len(ps) != 1 || !ps[0].Stale {
		t.Errorf("the old space's problem is not stale: %+v", ps)
	}
	if _, err := db.Prune(records.Prune{}); err == nil {
		t.Errorf("Prune without a criterion is accepted")
	}
	if got, err := db.Prune(records.Prune{Stale: true}); err != nil || got != (records.Pruned{Problems: 1, Runs: 1, Evaluations: 2}) {
		t.Errorf("Prune stale: %+v %v", got, err)
	}
	if got, err := db.Prune(records.Prune{Kernel: "syrk"}); err != nil || got != (records.Pruned{Problems: 1, Runs: 1, Evaluations: 1}) {
		t.Errorf("Prune syrk: %+v %v", got, err)
	}
	// A newer run of 128x128: pruning before it keeps the problem.
	rec, _ := db.Begin(key(128, 128), records.Run{Started: r.Started.Add(48 * time.Hour)})
	rec.Add(eval(3, 3, 3))
	rec.End("budget")
	if got, err := db.Prune(records.Prune{Before: r.Started.Add(time.Hour), Kernel: "matmul"}); err != nil || got != (records.Pruned{Problems: 1, Runs: 2, Evaluations: 2}) {
		t.Errorf("Prune before: %+v %v", got, err)
	}
	ps, _ := db.Problems()
	if len(ps) != 1 || ps[0].ID != key(128, 128).ID() || ps[0].Evaluations != 1 {
		t.Errorf("left after pruning: %+v", ps)
	}
}

func TestErrorKinds(t *testing.T) {
	e := &records.Error{Op: "open", Path: "/x/records.db", Kind: records.ErrLocked, Err: errors.New("database is locked")}
	if !errors.Is(e, records.ErrLocked) || errors.Is(e, records.ErrBroken) {
		t.Errorf("errors.Is on %v", e)
	}
	if got := e.Error(); got != "records: open /x/records.db: locked by another process: database is locked" {
		t.Errorf("message %q", got)
	}
}
