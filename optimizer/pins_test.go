package optimizer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/transforms"
)

// TestPins: pinned values that no setting can take, or that leave no legal
// setting, are errors before anything is measured, naming the pin and why
// (issue 18 #3 and #8). A zero local or block size divided the space's
// ranges by zero ("internal error"); a local size above the device's
// work-group emptied the space, which the search reported as a budget that
// ended before any variant ran; bszx=64 and uf=1000 made every setting
// illegal, which the search reported as no variant running correctly.
func TestPins(t *testing.T) {
	matmul := problemOf(t, "matmul") // 32x32 points, a loop of 16, PoCL's limits
	for _, tc := range []struct {
		pins map[transforms.Name]int
		want string
	}{
		{map[transforms.Name]int{transforms.LszX: 0}, "pinned lszx=0: lszx takes 1 to 4096 (the device's 4096 work-items along x)"},
		{map[transforms.Name]int{transforms.LszY: 0}, "pinned lszy=0: lszy takes 1 to 4096"},
		{map[transforms.Name]int{transforms.BszX: 0}, "pinned bszx=0: bszx takes 1 to 32 (the 32 points along x)"},
		{map[transforms.Name]int{transforms.SzX: 0}, "pinned szx=0: szx takes 1 to 32"},
		{map[transforms.Name]int{transforms.LszX: 100000}, "pinned lszx=100000 exceeds the device's 4096 work-items along x (lszx takes 1 to 4096)"},
		{map[transforms.Name]int{transforms.LszX: -1}, "pinned lszx=-1"},
		{map[transforms.Name]int{transforms.BszX: 64}, "pinned bszx=64 exceeds the 32 points along x (bszx takes 1 to 32)"},
		{map[transforms.Name]int{transforms.UF: 1000}, "pinned uf=1000 exceeds the 16 iterations of the innermost compute loop (uf takes 0 to 16)"},
		{map[transforms.Name]int{transforms.Tw0: 17}, "pinned tw0=17 exceeds the 16 iterations of compute loop 0"},
		{map[transforms.Name]int{transforms.Tw0: 4, transforms.UF: 8}, "pinned uf=8 exceeds the pinned tile tw0=4 of the innermost loop"},
		{map[transforms.Name]int{transforms.LMem: 2}, "pinned lmem=2 exceeds 1 (lmem takes 0 to 1)"},
		{map[transforms.Name]int{transforms.LszX: 128, transforms.LszY: 64}, "pinned lszx=128 and lszy=64 make work-groups of 8192 work-items, above the device's largest work-group size 4096"},
		{map[transforms.Name]int{transforms.LszX: 8, transforms.SzX: 12}, "pinned szx=12 is not a multiple of the pinned lszx=8"},
		{map[transforms.Name]int{transforms.BszX: 4, transforms.SzX: 16}, "pinned szx=16 exceeds the 8 block(s) along x in work-groups of 1"},
		{map[transforms.Name]int{transforms.Tw2: 4}, "cannot pin tw2: the kernel's Table 2 parameters are"},
	} {
		name := transforms.Format(pinMap(tc.pins))
		if err := optimizer.CheckPins(matmul.Passes, tc.pins); (err != nil || !strings.Contains(tc.want, "cannot pin")) &&
			(!errors.Is(err, optimizer.ErrPinned) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckPins(%s) = %v, want %q", name, err, tc.want)
		}
		// The search says the same before it measures anything (the
		// evaluator fails the test if it is called).
		_, err := optimizer.Search(context.Background(), matmul.Passes, optimizer.Settings{Fixed: tc.pins, Evals: 5}, true, never{t})
		if !errors.Is(err, optimizer.ErrPinned) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Search with %s pinned: %v, want %q", name, err, tc.want)
		}
	}
	// Values in range search as before.
	for _, pins := range []map[transforms.Name]int{
		{transforms.LszX: 4096},
		{transforms.BszX: 32, transforms.UF: 16},
		{transforms.LszX: 3}, // not a candidate, still legal
	} {
		if err := optimizer.CheckPins(matmul.Passes, pins); err != nil {
			t.Errorf("CheckPins(%v): %v", pins, err)
		}
		if _, err := optimizer.Search(context.Background(), matmul.Passes, optimizer.Settings{Fixed: pins, Evals: 3}, true, synthetic{}); err != nil {
			t.Errorf("Search with %v pinned: %v", pins, err)
		}
	}
}

// TestPinsNoLegalSetting: a pin within its range that makes every setting
// of the space illegal is an error naming the pin and the passes' reason.
// The kernel reads its local id in the compute section, so only the
// single-point distribution is legal, and bszx=2 is not.
func TestPinsNoLegalSetting(t *testing.T) {
	lid := hpl.MustKernel("lid", func(k *hpl.K) {
		x := k.Array("x", hpl.Float32, 1)
		k.Compute(func() { k.Set(x.At(hpl.Idx), hpl.ToFloat(hpl.Lidx)) })
	})
	prob := problemFor(t, lid, []int{64}, []any{hpl.NewArray(hpl.Float32, 64)})
	pins := map[transforms.Name]int{transforms.BszX: 2}
	_, err := optimizer.Search(context.Background(), prob.Passes, optimizer.Settings{Fixed: pins, Evals: 5}, true, never{t})
	want := "no legal setting with the pinned bszx=2: all 84 settings of the space are illegal, 84 of them because the compute section uses lidx, so only the single-point distribution"
	if !errors.Is(err, optimizer.ErrPinned) || !strings.Contains(err.Error(), want) {
		t.Errorf("Search: %v, want %q", err, want)
	}
	// Unpinned, the single-point setting is legal.
	if _, err := optimizer.Search(context.Background(), prob.Passes, optimizer.Settings{Evals: 5}, true, synthetic{}); err != nil {
		t.Error(err)
	}
}

func pinMap(pins map[transforms.Name]int) map[string]int {
	m := map[string]int{}
	for n, v := range pins {
		m[string(n)] = v
	}
	return m
}

// never is an evaluator that fails the test when called.
type never struct{ t *testing.T }

func (n never) Evaluate(context.Context, autotune.Point) autotune.Result {
	n.t.Helper()
	n.t.Error("a point was evaluated")
	return autotune.Result{Outcome: autotune.Illegal}
}
