package optimizer_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/strategies"
	"github.com/hplopt/hplopt/transforms"
)

// TestWorkGroupNames: the parameters the opening shrinks a rejected start
// point along are transforms' local sizes.
func TestWorkGroupNames(t *testing.T) {
	var want []string
	for d := range 3 {
		want = append(want, string(transforms.Local(d)))
	}
	if strings.Join(strategies.WorkGroup, ",") != strings.Join(want, ",") {
		t.Errorf("strategies.WorkGroup %v, want transforms' local sizes %v", strategies.WorkGroup, want)
	}
}

// TestShrinkRejectedStart: the default search of 3DCONV n=128 k=5x5x5 on
// an H100's limits, in the subspace of the replay table conv3d128-h100.csv
// (its pins), meets start points whose local memory is over the device's
// 48 KiB (the passes reject them: autotune.Illegal), and measures each
// shrunk along lszx and lszy until the passes accept it, before the other
// initial points: among them the table's optimum (bszx=8, lszx=4, szx=16,
// lszy=32, lmem=1), the start point bszx=8, lszx=16, szx=16, lszy=32
// shrunk twice along lszx.
func TestShrinkRejectedStart(t *testing.T) {
	b, err := kernels.Find("conv3d")
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.Instance(kernels.Size{N: []int{128, 128, 128}, K: []int{5, 5, 5}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	h100 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	prob := problemOn(t, b.Kernel, in.Global, in.Args, h100)
	const pins = "fullunroll=1,interleave=1,uf=1,vw=1,lcopy=0,tw0=0,tw1=0,tw2=0,bszy=1,bszz=1,lszz=1,szy=128,szz=128,vec=1,pack=0,ltrans=0,prefetch=0,warp=0,gswz=1,split=1,coff=0,ftz=0,fission=0"
	var params transforms.Params
	if err := transforms.ParseParams(pins, &params); err != nil {
		t.Fatal(err)
	}
	fixed := map[transforms.Name]int{}
	for _, kv := range strings.Split(pins, ",") {
		name, _, _ := strings.Cut(kv, "=")
		fixed[transforms.Name(name)], _ = params.Get(transforms.Name(name))
	}
	rep, err := optimizer.SearchOn(context.Background(), prob.Passes, optimizer.Settings{Seed: 1, Evals: 60, Fixed: fixed}, false, &fakeDevice{readyAt: map[string]int{}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	short := func(p autotune.Point) string {
		var parts []string
		for _, n := range []string{"bszx", "lszx", "szx", "lszy", "lmem"} {
			parts = append(parts, n+"="+strconv.Itoa(p.Get(n)))
		}
		return strings.Join(parts, ",")
	}
	var seq []string
	rejected := map[string]bool{}
	for _, e := range rep.History {
		s := short(e.Point)
		if e.Result.Outcome == autotune.Illegal {
			rejected[s] = true
			s += " rejected"
		}
		seq = append(seq, s)
	}
	got := strings.Join(seq, "\n")
	for _, want := range []string{
		"bszx=8,lszx=16,szx=16,lszy=32,lmem=1 rejected\nbszx=8,lszx=8,szx=16,lszy=32,lmem=1 rejected\nbszx=8,lszx=4,szx=16,lszy=32,lmem=1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the search evaluated\n%s\nwant in turn\n%s", got, want)
		}
	}
	if len(rejected) == 0 {
		t.Errorf("no start point rejected:\n%s", got)
	}
}
