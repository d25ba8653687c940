package optimizer_test

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/genetic"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/search and testdata/space.txt")

// synthetic is an evaluator whose result is a fixed function of the point:
// a time from a hash of its key, and Illegal for one point in seven, so
// that the genetic search's later generations, which follow the measured
// times, are pinned without a device. It prepares nothing but says it can,
// so Tune asks the strategy for upcoming points as it does on a device.
type synthetic struct{}

func (synthetic) Evaluate(_ context.Context, p autotune.Point) autotune.Result {
	h := fnv.New64a()
	h.Write([]byte(p.Key()))
	v := h.Sum64()
	if v%7 == 0 {
		return autotune.Result{Outcome: autotune.Illegal}
	}
	return autotune.Result{Outcome: autotune.OK, Ms: 1 + float64(v%100000)/1000}
}

func (synthetic) Prepare(autotune.Point) {}

// TestSearchSequence pins the sequence of settings each strategy evaluates
// on the Table 2 space of MATMUL tiny, with the seeds of a CPU and of a GPU
// device, for seed 1 under the synthetic evaluator: the optimizer's wiring
// (space, seeds, registry, Tune: what Tune searches with) must keep
// proposing the same points; these files were written before the wiring
// moved here from package hpl, and the CPU genetic one again when the CPU
// seeds gained wide work-groups of one point per work-item, and both
// genetic ones when the genetic search gained its second island (the
// first 20 points, the first island's first generation, are those of the
// single population before), and again when its generations gained local
// points (the first 33, both islands' first generations, are those
// before; the 10 local points come next). The first 40 random
// and exhaustive points are those `hplopt tune matmul -d CPU --size tiny -e
// 40 --seed 1` measured on PoCL. The points after the 40th and the 200th
// were appended when the points rejected as illegal (here one in seven,
// by the synthetic evaluator) stopped counting against the budget
// (autotune.RejectedPerEval): the search goes on until as many are
// measured.
func TestSearchSequence(t *testing.T) {
	prob := matmulTiny(t)
	for _, c := range []struct {
		strategy string
		cpu      bool
		evals    int
	}{
		{strategies.Genetic, true, 200},
		{strategies.Genetic, false, 200},
		{strategies.Random, true, 40},
		{strategies.Exhaustive, true, 40},
	} {
		kind := "gpu"
		if c.cpu {
			kind = "cpu"
		}
		name := fmt.Sprintf("matmul-tiny-%s-%s", c.strategy, kind)
		rep, err := optimizer.Search(context.Background(), prob.Passes, optimizer.Settings{Strategy: c.strategy, Seed: 1, Evals: c.evals}, c.cpu, synthetic{})
		if err != nil {
			t.Fatal(err)
		}
		checkSequence(t, name, rep)
	}
}

// matmulTiny is the optimizer's problem of MATMUL tiny (problemOf).
func matmulTiny(t *testing.T) *optimizer.Problem {
	t.Helper()
	prob := problemOf(t, "matmul")
	if prob.Passes.Info == nil || prob.Passes.Ints["limk"] == 0 {
		t.Fatalf("problem without the pattern table or the loop length: %+v", prob.Passes)
	}
	return prob
}

// problemOf is the problem of benchmark name at its tiny size, on a
// device with fixed limits (PoCL's), so that the space does not depend on
// the machine; only the scalars of the data are read. No device is used.
func problemOf(t testing.TB, name string) *optimizer.Problem {
	t.Helper()
	b, err := kernels.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.Instance(b.Sizes["tiny"], 1)
	if err != nil {
		t.Fatal(err)
	}
	return problemFor(t, b.Kernel, in.Global, in.Args)
}

// problemFor is problemOf for kernel k on args over domain.
func problemFor(t testing.TB, kernel *hpl.Kernel, domain []int, args []any) *optimizer.Problem {
	t.Helper()
	return problemOn(t, kernel, domain, args, &opencl.Device{MaxWorkGroupSize: 4096, MaxWorkItemSizes: []int{4096, 4096, 4096}, LocalMemSize: 1 << 20})
}

// problemOn is problemFor on a device with dev's limits.
func problemOn(t testing.TB, kernel *hpl.Kernel, domain []int, args []any, dev *opencl.Device) *optimizer.Problem {
	t.Helper()
	k, err := hpl.Specialize(kernel, args...)
	if err != nil {
		t.Fatal(err)
	}
	data := &runner.Problem{}
	for i, p := range k.Params {
		a := runner.Arg{Name: p.Name, Type: p.Type, Scalar: p.Rank == 0}
		switch v := args[i].(type) {
		case int32:
			a.Value = float64(v)
		case float32:
			a.Value = float64(v)
		}
		data.Args = append(data.Args, a)
	}
	prob, err := optimizer.NewProblem(k, domain, data, dev)
	if err != nil {
		t.Fatal(err)
	}
	return prob
}

// fakeDevice builds and measures variants on a clock that ticks at each
// measurement and each wait: a variant is built one tick after it is
// prepared, or six for one in four (a slow build), and measuring it waits
// for its build; its time is a hash of its source. It records the order of
// measurement.
type fakeDevice struct {
	clock    int
	readyAt  map[string]int // by source
	measured []string
}

func hashOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (f *fakeDevice) Prepare(v runner.Variant) {
	if _, ok := f.readyAt[v.Source]; ok {
		return
	}
	d := 1
	if hashOf(v.Source)%4 == 0 {
		d = 6
	}
	f.readyAt[v.Source] = f.clock + d
}

func (f *fakeDevice) PrepareFirst(v runner.Variant) { f.Prepare(v) }

func (f *fakeDevice) Ready(v runner.Variant) bool {
	at, ok := f.readyAt[v.Source]
	return ok && at <= f.clock
}

func (f *fakeDevice) WaitReady(_ context.Context, vs []runner.Variant) int {
	for range 100 {
		f.clock++
		for i, v := range vs {
			if f.Ready(v) {
				return i
			}
		}
	}
	return 0
}

func (f *fakeDevice) Measure(_ context.Context, v runner.Variant) autotune.Result {
	f.Prepare(v)
	f.clock = max(f.clock, f.readyAt[v.Source]) + 1 // waits for the build
	f.measured = append(f.measured, v.Source)
	return autotune.Result{Outcome: autotune.OK, Ms: 1 + float64(hashOf(v.Source)%1000)/100}
}

// TestReadyOrder: measuring the variants in the order their builds end
// changes the order of measurement, not the search: the same points, in
// the same order, with the same results, as measuring them in the order
// proposed; each evaluation's Order says when it was measured. The
// genetic search has one island here, whose every generation starts with
// builds to wait for, which ready order shortens; with two (the default)
// one island's next generation is built while the other's is measured,
// and proposed order waits as little. The strategy is pinned to genetic,
// whose islands this is about. Both run without local points
// (genetic.Settings.Local): with them the single island waits for no
// build here (61 ticks for 60 evaluations in either order), leaving ready
// order nothing to reorder.
func TestReadyOrder(t *testing.T) {
	prob := matmulTiny(t)
	run := func(o optimizer.Order, islands int) (*autotune.Report, *fakeDevice) {
		dev := &fakeDevice{readyAt: map[string]int{}}
		set := optimizer.Settings{Strategy: strategies.Genetic, Seed: 1, Evals: 60, Builders: 4, Order: o, Genetic: genetic.Settings{Islands: islands, Local: -1}}
		rep, err := optimizer.SearchOn(context.Background(), prob.Passes, set, true, dev, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rep, dev
	}
	proposed, pdev := run(optimizer.OrderProposed, 1)
	ready, rdev := run(optimizer.OrderReady, 1)
	_, idev := run(optimizer.OrderProposed, 2)
	t.Logf("two islands, proposed order: clock %d ticks", idev.clock)
	if idev.clock > rdev.clock {
		t.Errorf("two islands in proposed order took %d ticks, one island in ready order %d: want no more", idev.clock, rdev.clock)
	}
	if len(ready.History) != len(proposed.History) {
		t.Fatalf("%d evaluations in ready order, %d in proposed order", len(ready.History), len(proposed.History))
	}
	seen := map[int]bool{}
	outOfOrder := 0
	for i, e := range ready.History {
		p := proposed.History[i]
		if e.Point.Key() != p.Point.Key() || e.Result.Outcome != p.Result.Outcome || e.Result.Ms != p.Result.Ms {
			t.Fatalf("evaluation %d: %s %v %v in ready order, %s %v %v in proposed order", i, e.Point.Key(), e.Result.Outcome, e.Result.Ms, p.Point.Key(), p.Result.Outcome, p.Result.Ms)
		}
		if p.Result.Order != i+1 {
			t.Errorf("proposed order: evaluation %d has Order %d", i, p.Result.Order)
		}
		if o := e.Result.Order; o < 1 || seen[o] {
			t.Fatalf("ready order: evaluation %d has Order %d, not a new position", i, o)
		} else if seen[o] = true; o != i+1 {
			outOfOrder++
		}
	}
	if outOfOrder == 0 {
		t.Error("ready order measured every variant in the order proposed")
	}
	t.Logf("%d of %d evaluations measured out of proposal order; clock %d ticks in ready order, %d in proposed order", outOfOrder, len(ready.History), rdev.clock, pdev.clock)
	if rdev.clock >= pdev.clock {
		t.Errorf("ready order took %d ticks, proposed order %d: want fewer (less waiting for builds)", rdev.clock, pdev.clock)
	}
}

// lockedDevice is fakeDevice made safe for concurrent use.
type lockedDevice struct {
	mu sync.Mutex
	f  fakeDevice
}

func (d *lockedDevice) Prepare(v runner.Variant) { d.mu.Lock(); defer d.mu.Unlock(); d.f.Prepare(v) }
func (d *lockedDevice) PrepareFirst(v runner.Variant) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.f.PrepareFirst(v)
}
func (d *lockedDevice) Ready(v runner.Variant) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.f.Ready(v)
}
func (d *lockedDevice) WaitReady(ctx context.Context, vs []runner.Variant) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.f.WaitReady(ctx, vs)
}
func (d *lockedDevice) Measure(ctx context.Context, v runner.Variant) autotune.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.f.Measure(ctx, v)
}

// TestBackgroundGeneration: generating the variants in the background, as
// Tune does, evaluates the same points with the same results as
// generating them when prepared, in either order of measurement; in ready
// order the order of measurement may differ (it follows the builds).
func TestBackgroundGeneration(t *testing.T) {
	prob := matmulTiny(t)
	for _, o := range []optimizer.Order{optimizer.OrderProposed, optimizer.OrderReady} {
		set := optimizer.Settings{Seed: 1, Evals: 80, Builders: 4, Order: o}
		want, err := optimizer.SearchOn(context.Background(), prob.Passes, set, true, &fakeDevice{readyAt: map[string]int{}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := optimizer.SearchOnBackground(context.Background(), prob.Passes, set, true, &lockedDevice{f: fakeDevice{readyAt: map[string]int{}}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.History) != len(want.History) {
			t.Fatalf("order %v: %d evaluations in the background, %d without", o, len(got.History), len(want.History))
		}
		for i, e := range got.History {
			w := want.History[i]
			if e.Point.Key() != w.Point.Key() || e.Result.Outcome != w.Result.Outcome || e.Result.Ms != w.Result.Ms {
				t.Fatalf("order %v, evaluation %d: %s %v %v in the background, %s %v %v without", o, i, e.Point.Key(), e.Result.Outcome, e.Result.Ms, w.Point.Key(), w.Result.Outcome, w.Result.Ms)
			}
			if o == optimizer.OrderProposed && e.Result.Order != i+1 {
				t.Errorf("proposed order: evaluation %d has Order %d", i, e.Result.Order)
			}
		}
	}
}

// checkSequence compares the keys of the points rep evaluated with the
// golden file testdata/search/NAME.txt.
func checkSequence(t *testing.T, name string, rep *autotune.Report) {
	t.Helper()
	var got strings.Builder
	for _, e := range rep.History {
		fmt.Fprintln(&got, e.Point.Key())
	}
	file := filepath.Join("testdata", "search", name+".txt")
	if *update {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got.String() != string(want) {
		g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("%s: evaluation %d is %s, want %s", name, i, g[i], w[i])
			}
		}
		t.Fatalf("%s: %d evaluations, want %d", name, len(g)-1, len(w)-1)
	}
}

// TestGroundTruthSpaces checks the sizes of the subspaces that
// docs/results/h100/scripts/groundtruth.sh measures exhaustively on the
// H100 (its limits: work-groups of 1024, local sizes up to 1024x1024x64):
// every table the script lists (GT_TABLES=1), its kernel, size and pins,
// has the count of points the script gives it, which the session that
// adds a table commits before measuring it.
func TestGroundTruthSpaces(t *testing.T) {
	h100 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	tables := groundTruthTables(t, "")
	seen := map[string]bool{}
	for _, c := range tables {
		// The script records the first line of a PART, and each NAME is
		// a table's file: neither may repeat.
		for _, key := range []string{"PART " + c.part, "NAME " + c.name} {
			if seen[key] {
				t.Errorf("groundtruth.sh: %s twice", key)
			}
			seen[key] = true
		}
	}
	// The script's tables up to the twenty-seventh session's: a table
	// lost from it (a bad edit of $tables) fails here.
	if len(tables) < 77 {
		t.Fatalf("groundtruth.sh lists %d tables, want at least 77", len(tables))
	}
	for _, c := range tables {
		s, err := optimizer.NewSpace(c.problem(t, h100).Passes, c.fixed)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Size().Int64(); got != c.points {
			t.Errorf("groundtruth.sh %s (%s %v --params %s) on the H100: %d points, want %d", c.part, c.kernel, c.size, c.pins, got, c.points)
		}
	}
}

// groundTruthTable is a table groundtruth.sh lists (GT_TABLES=1): its
// PART, NAME (the table's file), kernel, size, pins (as --params takes
// them, and as the values they fix) and count of points.
type groundTruthTable struct {
	part, name, kernel string
	size               kernels.Size
	pins               string
	fixed              map[transforms.Name]int
	points             int64
}

// groundTruthTables returns the tables groundtruth.sh lists, named for
// the device dev (GT_DEV; "": the script's default, h100); a line it
// cannot read fails t.
func groundTruthTables(t *testing.T, dev string) []groundTruthTable {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "docs", "results", "h100", "scripts", "groundtruth.sh"))
	cmd.Env = append(os.Environ(), "GT_TABLES=1")
	if dev != "" {
		cmd.Env = append(cmd.Env, "GT_DEV="+dev)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("groundtruth.sh with GT_TABLES=1: %v", err)
	}
	var tables []groundTruthTable
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 6 {
			t.Fatalf("groundtruth.sh: %q: want PART|NAME|KERNEL|SIZE|PINS|POINTS", line)
		}
		c := groundTruthTable{part: f[0], name: f[1], kernel: f[2], pins: f[4], fixed: map[transforms.Name]int{}}
		if c.size, err = parseGroundTruthSize(f[3]); err != nil {
			t.Fatalf("groundtruth.sh %s: %v", c.part, err)
		}
		if c.points, err = strconv.ParseInt(f[5], 10, 64); err != nil {
			t.Fatalf("groundtruth.sh %s: points %q: %v", c.part, f[5], err)
		}
		var pins transforms.Params
		if err := transforms.ParseParams(c.pins, &pins); err != nil {
			t.Fatalf("groundtruth.sh %s: %v", c.part, err)
		}
		for _, kv := range strings.Split(c.pins, ",") {
			name, _, _ := strings.Cut(kv, "=")
			c.fixed[transforms.Name(name)], _ = pins.Get(transforms.Name(name))
		}
		tables = append(tables, c)
	}
	return tables
}

// problem returns the table's problem (its kernel at its size, seed 1)
// on a device of dev's limits.
func (c groundTruthTable) problem(t *testing.T, dev *opencl.Device) *optimizer.Problem {
	t.Helper()
	b, err := kernels.Find(c.kernel)
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.Instance(c.size, 1)
	if err != nil {
		t.Fatal(err)
	}
	return problemOn(t, b.Kernel, in.Global, in.Args, dev)
}

// parseGroundTruthSize reads groundtruth.sh's SIZE FLAGS: -n N,... and
// optionally -k K,....
func parseGroundTruthSize(flags string) (kernels.Size, error) {
	var size kernels.Size
	f := strings.Fields(flags)
	if len(f) != 2 && len(f) != 4 {
		return size, fmt.Errorf("size %q: want -n N,... [-k K,...]", flags)
	}
	for i := 0; i < len(f); i += 2 {
		var dims []int
		for _, v := range strings.Split(f[i+1], ",") {
			d, err := strconv.Atoi(v)
			if err != nil {
				return size, fmt.Errorf("size %q: %v", flags, err)
			}
			dims = append(dims, d)
		}
		switch f[i] {
		case "-n":
			size.N = dims
		case "-k":
			size.K = dims
		default:
			return size, fmt.Errorf("size %q: unknown flag %s", flags, f[i])
		}
	}
	if size.N == nil {
		return size, fmt.Errorf("size %q: no -n", flags)
	}
	return size, nil
}

// slowDevice is fakeDevice that keeps the SlowAfter and SlowWhy of each
// variant it measures.
type slowDevice struct {
	fakeDevice
	after []time.Duration
	why   []string
}

func (f *slowDevice) Measure(ctx context.Context, v runner.Variant) autotune.Result {
	f.after, f.why = append(f.after, v.SlowAfter), append(f.why, v.SlowWhy)
	return f.fakeDevice.Measure(ctx, v)
}

// TestSlowLimit: every variant the search measures has its first launch
// limited to SlowLimit (default 10) times the single-point kernel's time,
// at least SlowFloor, with the reason; a negative SlowLimit, or no
// single-point time and no variant measured yet, leaves it unlimited.
func TestSlowLimit(t *testing.T) {
	prob := matmulTiny(t)
	for _, c := range []struct {
		limit, base float64
		after       time.Duration
		why         string
	}{
		{0, 71.23, time.Second, "slower than 10 x the single-point kernel's 71.2 ms"},
		{0, 1234, 12340 * time.Millisecond, "slower than 10 x the single-point kernel's 1234 ms"},
		{0, 250, 2500 * time.Millisecond, "slower than 10 x the single-point kernel's 250 ms"},
		{3, 500, 1500 * time.Millisecond, "slower than 3 x the single-point kernel's 500 ms"},
		{-1, 500, 0, ""},
	} {
		dev := &slowDevice{fakeDevice: fakeDevice{readyAt: map[string]int{}}}
		if _, err := optimizer.SearchOn(context.Background(), prob.Passes, optimizer.Settings{Seed: 1, Evals: 10, Builders: 4, SlowLimit: c.limit}, true, dev, c.base); err != nil {
			t.Fatal(err)
		}
		if len(dev.after) == 0 {
			t.Fatal("nothing measured")
		}
		for i := range dev.after {
			if dev.after[i] != c.after || dev.why[i] != c.why {
				t.Fatalf("SlowLimit %g, single-point %g ms: variant %d limited to %v (%q), want %v (%q)", c.limit, c.base, i, dev.after[i], dev.why[i], c.after, c.why)
			}
		}
	}
	// Without a single-point time, the first variant is not limited and
	// the next ones are by the best so far (fakeDevice's times are 1 to
	// 11 ms: the floor).
	dev := &slowDevice{fakeDevice: fakeDevice{readyAt: map[string]int{}}}
	if _, err := optimizer.SearchOn(context.Background(), prob.Passes, optimizer.Settings{Seed: 1, Evals: 10, Builders: 4, Order: optimizer.OrderProposed}, true, dev, 0); err != nil {
		t.Fatal(err)
	}
	if dev.after[0] != 0 || dev.after[1] != time.Second || !strings.HasPrefix(dev.why[1], "slower than 10 x the best variant's ") {
		t.Errorf("without a single-point time: limits %v, %v (%q), want none, then 1 s by the best variant", dev.after[0], dev.after[1], dev.why[1])
	}
}
