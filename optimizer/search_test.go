package optimizer_test

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
	"github.com/hplopt/hplopt/strategies"
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
// seeds gained wide work-groups of one point per work-item. The 40 random
// and exhaustive points are those `hplopt tune matmul -d CPU --size tiny -e
// 40 --seed 1` measured on PoCL.
func TestSearchSequence(t *testing.T) {
	b, _ := kernels.Get("matmul")
	in, err := b.Instance(b.Sizes["tiny"], 1)
	if err != nil {
		t.Fatal(err)
	}
	k, err := hpl.Specialize(b.Kernel, in.Args...)
	if err != nil {
		t.Fatal(err)
	}
	// A device with fixed limits (PoCL's), so that the space does not
	// depend on the machine; only the scalars of the data are read.
	dev := &opencl.Device{MaxWorkGroupSize: 4096, MaxWorkItemSizes: []int{4096, 4096, 4096}, LocalMemSize: 1 << 20}
	data := &runner.Problem{}
	for i, p := range k.Params {
		a := runner.Arg{Name: p.Name, Type: p.Type, Scalar: p.Rank == 0}
		switch v := in.Args[i].(type) {
		case int32:
			a.Value = float64(v)
		case float32:
			a.Value = float64(v)
		}
		data.Args = append(data.Args, a)
	}
	prob, err := optimizer.NewProblem(k, in.Global, data, dev)
	if err != nil {
		t.Fatal(err)
	}
	if prob.Passes.Info == nil || prob.Passes.Ints["limk"] == 0 {
		t.Fatalf("problem without the pattern table or the loop length: %+v", prob.Passes)
	}
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
