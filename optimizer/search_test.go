package optimizer_test

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
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
// H100 (its limits: work-groups of 1024, local sizes up to 1024x1024x64),
// which the script and docs/replay.md give.
func TestGroundTruthSpaces(t *testing.T) {
	h100 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	// The pins shared by several tables, as groundtruth.sh names them:
	// MVT's (1DCONV's and the held-out 1D kernels'), BOXFILTER's and
	// FDTD-EY's.
	const (
		mvtPins  = "fullunroll=1,interleave=1,vw=1,lcopy=0,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0"
		boxPins  = "fullunroll=1,interleave=1,vw=1,lcopy=0,lszx=32,lszy=4,vec=1,warp=0,gswz=1,coff=0,ftz=0"
		fdtdPins = "fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=1,lszx=32,vec=1,warp=0,gswz=1,coff=0,ftz=0"

		// The pins of each kernel's first table, given again to its
		// later tables (other sizes, other filters).
		conv2dPins     = "fullunroll=1,interleave=1,uf=1,vw=1,tw0=0,tw1=0,bszx=4,bszy=4,szy=256,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
		conv3dPins     = "fullunroll=1,interleave=1,uf=1,vw=1,lcopy=0,tw0=0,tw1=0,tw2=0,bszy=1,bszz=1,lszz=1,szy=128,szz=128,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
		covariancePins = "fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,bszx=4,bszy=4,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
		jacobi2dPins   = "fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=2,bszy=2,vec=1,warp=0,gswz=1,coff=0,ftz=0"
		sepfilterPins  = "fullunroll=1,interleave=1,uf=1,vw=1,lcopy=0,bszx=1,tw0=0,szx=4096,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
		stencil3dPins  = "fullunroll=1,interleave=1,vw=1,lcopy=0,bszx=1,bszy=1,lszz=1,szx=256,szy=256,vec=1,warp=0,gswz=1,coff=0,ftz=0"
		syrkPins       = "fullunroll=1,interleave=1,bszx=4,bszy=8,vw=2,szx=256,szy=128,lcopy=0,uf=4,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
		transposePins  = "fullunroll=1,interleave=1,vw=1,bszx=1,bszy=1,vec=1,warp=0,gswz=1,coff=0,ftz=0"
	)
	for _, c := range []struct {
		kernel string
		size   kernels.Size
		pins   string
		points int64
	}{
		{"matmul", kernels.Size{N: []int{1024, 1024}, K: []int{1024}}, "fullunroll=1,uf=4,lcopy=0,interleave=1,lszx=16,lszy=16,lmem=1,tw0=32,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0", 1295},
		{"conv2d", kernels.Size{N: []int{1024, 1024}, K: []int{7, 7}}, conv2dPins, 885},
		{"syrk", kernels.Size{N: []int{1024, 1024}, K: []int{1024}}, syrkPins, 912},
		{"nbody", kernels.Size{N: []int{32768}, K: []int{32768}}, "interleave=1,fullunroll=1,vw=1,lcopy=0,uf=4,lmem=1,bszx=4,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0", 504},
		{"mv", kernels.Size{N: []int{8192}, K: []int{8192}}, "interleave=1,fullunroll=1,lmem=0,uf=4,tw0=0,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0", 523},
		{"nbody", kernels.Size{N: []int{32768}, K: []int{32768}}, "interleave=1,fullunroll=1,vw=1,lcopy=0,uf=4,lmem=1,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0", 2480},
		{"mv", kernels.Size{N: []int{8192}, K: []int{8192}}, "interleave=1,fullunroll=1,lmem=0,uf=4,vw=1,vec=1,pack=0,ltrans=0,prefetch=0,split=1,coff=0,ftz=0,fission=0", 2200},
		{"conv2d", kernels.Size{N: []int{1024, 1024}, K: []int{7, 7}}, "fullunroll=1,interleave=1,uf=1,vw=1,tw0=0,tw1=0,bszx=4,szy=256,lcopy=0,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0", 2890},
		{"matmul", kernels.Size{N: []int{1024, 1024}, K: []int{1024}}, "fullunroll=1,uf=4,lcopy=0,interleave=1,lszx=16,lszy=16,lmem=1,vw=2,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0", 4608},
		{"dcs3d", kernels.Size{N: []int{64, 64, 64}, K: []int{4096}}, "fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,lmem=1,bszy=1,bszz=1,lszz=1,szy=64,szz=64,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0", 4384},
		{"transpose", kernels.Size{N: []int{4096, 4096}}, transposePins, 2256},
		{"syr2k", kernels.Size{N: []int{1024, 1024}, K: []int{1024}}, "fullunroll=1,interleave=1,uf=4,vw=2,lcopy=0,lmem=1,bszx=4,szx=256,szy=128,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0", 2360},
		{"conv3d", kernels.Size{N: []int{128, 128, 128}, K: []int{5, 5, 5}}, conv3dPins, 1626},
		{"jacobi2d", kernels.Size{N: []int{4096, 4096}}, jacobi2dPins, 4272},
		{"conv3d", kernels.Size{N: []int{128, 128, 128}, K: []int{3, 3, 3}}, conv3dPins, 1626},
		{"conv3d", kernels.Size{N: []int{128, 128, 128}, K: []int{7, 7, 7}}, conv3dPins, 1626},
		{"covariance", kernels.Size{N: []int{1024, 1024}, K: []int{1024}}, covariancePins, 2790},
		{"sepfilter", kernels.Size{N: []int{4096, 4096}, K: []int{33}}, sepfilterPins, 3552},
		{"stencil3d", kernels.Size{N: []int{256, 256, 256}}, stencil3dPins, 3480},
		{"conv1d", kernels.Size{N: []int{32768}, K: []int{32768}}, mvtPins, 3100},
		{"matmul-guard", kernels.Size{N: []int{2000, 2000}, K: []int{2000}}, "fullunroll=1,interleave=1,uf=4,vw=1,lcopy=0,lszx=16,lszy=16,bszy=4,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0", 2592},
		{"mvt", kernels.Size{N: []int{8192}, K: []int{8192}}, mvtPins, 2750},
		{"boxfilter", kernels.Size{N: []int{4096, 4096}}, boxPins, 1620},
		{"fdtd-ey", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 2112},
		{"bicg", kernels.Size{N: []int{8192}, K: []int{8192}}, mvtPins, 2750},
		{"gs-r", kernels.Size{N: []int{4096}, K: []int{4096}}, mvtPins, 2510},
		{"covariance-tri", kernels.Size{N: []int{1024}, K: []int{1024}}, mvtPins, 1950},
		{"stencil2d", kernels.Size{N: []int{4096, 4096}}, boxPins, 1620},
		{"gs-update", kernels.Size{N: []int{4096, 4096}}, boxPins, 810},
		{"fdtd-hz", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 2112},
		{"gs-update", kernels.Size{N: []int{8192, 8192}}, boxPins, 870},
		{"gs-update", kernels.Size{N: []int{2048, 2048}}, boxPins, 720},
		{"jacobi2d", kernels.Size{N: []int{4096, 4096}}, boxPins, 1620},
		{"transpose", kernels.Size{N: []int{4096, 4096}}, boxPins, 810},
		{"fdtd-ey", kernels.Size{N: []int{4096, 4096}}, boxPins, 1620},
		{"gs-r", kernels.Size{N: []int{8192}, K: []int{8192}}, mvtPins, 2750},
		{"gs-update", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 1056},
		{"gs-update", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 1074},
		{"gs-update", kernels.Size{N: []int{6144, 6144}}, boxPins, 870},
		{"fdtd-hz", kernels.Size{N: []int{4096, 4096}}, boxPins, 1620},
		{"transpose", kernels.Size{N: []int{8192, 8192}}, boxPins, 870},
		{"stencil2d", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 2112},
		{"boxfilter", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 2112},
		{"jacobi2d", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 2112},
		{"transpose", kernels.Size{N: []int{4096, 4096}}, fdtdPins, 1056},
		{"mv", kernels.Size{N: []int{8192}, K: []int{8192}}, mvtPins, 2750},
		{"bicg", kernels.Size{N: []int{4096}, K: []int{4096}}, mvtPins, 2510},
		{"mvt", kernels.Size{N: []int{4096}, K: []int{4096}}, mvtPins, 2510},
		{"stencil2d", kernels.Size{N: []int{8192, 8192}}, boxPins, 1740},
		{"jacobi2d", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 2148},
		{"boxfilter", kernels.Size{N: []int{8192, 8192}}, boxPins, 1740},
		{"fdtd-ey", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 2148},
		{"fdtd-hz", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 2148},
		{"stencil2d", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 2148},
		{"boxfilter", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 2148},
		{"jacobi2d", kernels.Size{N: []int{8192, 8192}}, boxPins, 1740},
		{"transpose", kernels.Size{N: []int{8192, 8192}}, fdtdPins, 1074},
		{"fdtd-ey", kernels.Size{N: []int{8192, 8192}}, boxPins, 1740},
		{"bicg", kernels.Size{N: []int{16384}, K: []int{16384}}, mvtPins, 2950},
		{"mvt", kernels.Size{N: []int{16384}, K: []int{16384}}, mvtPins, 2950},
		{"stencil2d", kernels.Size{N: []int{6144, 6144}}, fdtdPins, 2148},
		{"jacobi2d", kernels.Size{N: []int{6144, 6144}}, boxPins, 1740},
		{"boxfilter", kernels.Size{N: []int{6144, 6144}}, fdtdPins, 2148},
		{"fdtd-hz", kernels.Size{N: []int{6144, 6144}}, boxPins, 1740},
		{"fdtd-ey", kernels.Size{N: []int{6144, 6144}}, fdtdPins, 2148},
		{"transpose", kernels.Size{N: []int{6144, 6144}}, fdtdPins, 1074},
		{"conv2d", kernels.Size{N: []int{2048, 2048}, K: []int{7, 7}}, conv2dPins, 1002},
		{"sepfilter", kernels.Size{N: []int{8192, 8192}, K: []int{33}}, sepfilterPins, 3710},
		{"conv3d", kernels.Size{N: []int{256, 256, 256}, K: []int{3, 3, 3}}, conv3dPins, 2180},
		{"stencil3d", kernels.Size{N: []int{512, 512, 512}}, stencil3dPins, 3840},
		{"covariance", kernels.Size{N: []int{2048, 2048}, K: []int{2048}}, covariancePins, 3410},
		{"transpose", kernels.Size{N: []int{8192, 8192}}, transposePins, 2328},
		{"gs-update", kernels.Size{N: []int{6144, 6144}}, fdtdPins, 1074},
		{"conv1d", kernels.Size{N: []int{65536}, K: []int{65536}}, mvtPins, 3200},
		{"jacobi2d", kernels.Size{N: []int{8192, 8192}}, jacobi2dPins, 4512},
		{"gs-r", kernels.Size{N: []int{16384}, K: []int{16384}}, mvtPins, 2950},
		{"syrk", kernels.Size{N: []int{2048, 2048}, K: []int{2048}}, syrkPins, 992},
	} {
		b, err := kernels.Find(c.kernel)
		if err != nil {
			t.Fatal(err)
		}
		in, err := b.Instance(c.size, 1)
		if err != nil {
			t.Fatal(err)
		}
		prob := problemOn(t, b.Kernel, in.Global, in.Args, h100)
		var pins transforms.Params
		if err := transforms.ParseParams(c.pins, &pins); err != nil {
			t.Fatal(err)
		}
		fixed := map[transforms.Name]int{}
		for _, kv := range strings.Split(c.pins, ",") {
			name, _, _ := strings.Cut(kv, "=")
			fixed[transforms.Name(name)], _ = pins.Get(transforms.Name(name))
		}
		s, err := optimizer.NewSpace(prob.Passes, fixed)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Size().Int64(); got != c.points {
			t.Errorf("%s %v --params %s on the H100: %d points, want %d", c.kernel, c.size, c.pins, got, c.points)
		}
	}
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
