package optimizer_test

import (
	"context"
	"testing"

	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/transforms"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/opencl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
)

// instantDevice builds and measures every variant at once: its time is a
// hash of its source. Under it a search spends its time in the tuning
// process alone (the strategy, the passes, the OpenCL printer, the
// evaluator's bookkeeping): what a report calls other.
type instantDevice struct{}

func (instantDevice) Prepare(runner.Variant)                          {}
func (instantDevice) PrepareFirst(runner.Variant)                     {}
func (instantDevice) Ready(runner.Variant) bool                       { return true }
func (instantDevice) WaitReady(context.Context, []runner.Variant) int { return 0 }
func (instantDevice) Measure(_ context.Context, v runner.Variant) autotune.Result {
	return autotune.Result{Outcome: autotune.OK, Ms: 1 + float64(hashOf(v.Source)%1000)/100}
}

// BenchmarkSearchOverhead measures the tuning process's own time per
// evaluation (the report's other) of the genetic search of MATMUL L with
// the H100's limits, its GPU seeds and 15 builders' lookahead, as `hplopt
// tune matmul -d GPU --size L -s genetic` searches it, on a device that
// takes no time: ns/op is per evaluation.
//
//	go test ./optimizer -run '^$' -bench SearchOverhead -cpuprofile cpu.out
func BenchmarkSearchOverhead(b *testing.B) {
	bm, err := kernels.Find("matmul")
	if err != nil {
		b.Fatal(err)
	}
	in, err := bm.Instance(bm.Sizes["L"], 1)
	if err != nil {
		b.Fatal(err)
	}
	h100 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	prob := problemOn(b, bm.Kernel, in.Global, in.Args, h100)
	b.ResetTimer()
	evals := 0
	for evals < b.N {
		rep, err := optimizer.SearchOn(context.Background(), prob.Passes, optimizer.Settings{Seed: uint64(evals + 1), Evals: min(b.N-evals, 2000), Builders: 15}, false, instantDevice{}, 1)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Evaluations == 0 {
			b.Fatal("no evaluation")
		}
		evals += rep.Evaluations
	}
}

// BenchmarkGenerate measures generating a variant (the passes and the
// OpenCL printer, what the evaluator's background goroutines do) for the
// first 60 points of the genetic search of DCS3D S with the H100's limits,
// as `hplopt tune dcs3d -d GPU --size S -s genetic` proposes them: fully
// unrolled 3D variants of up to 3 MB of OpenCL. ns/op is per variant,
// B/variant the OpenCL's mean size.
//
//	go test ./optimizer -run '^$' -bench Generate -cpuprofile cpu.out
func BenchmarkGenerate(b *testing.B) {
	bm, err := kernels.Find("dcs3d")
	if err != nil {
		b.Fatal(err)
	}
	in, err := bm.Instance(bm.Sizes["S"], 1)
	if err != nil {
		b.Fatal(err)
	}
	h100 := &opencl.Device{MaxWorkGroupSize: 1024, MaxWorkItemSizes: []int{1024, 1024, 64}, LocalMemSize: 48 << 10}
	prob := problemOn(b, bm.Kernel, in.Global, in.Args, h100)
	rep, err := optimizer.SearchOn(context.Background(), prob.Passes, optimizer.Settings{Seed: 1, Evals: 60, Builders: 15}, false, instantDevice{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	var ps []transforms.Params
	for _, e := range rep.History {
		var tp transforms.Params
		for n, v := range e.Point.Map() {
			if err := tp.Set(transforms.Name(n), v); err != nil {
				b.Fatal(err)
			}
		}
		ps = append(ps, tp)
	}
	b.ResetTimer()
	size := 0
	for i := range b.N {
		v, err := transforms.Apply(prob.Passes, ps[i%len(ps)])
		if err != nil {
			continue
		}
		src, err := codegen.Source(v.Kernel)
		if err != nil {
			b.Fatal(err)
		}
		size += len(src)
	}
	b.ReportMetric(float64(size)/float64(b.N), "B/variant")
}
