package optimizer_test

import (
	"context"
	"testing"

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
