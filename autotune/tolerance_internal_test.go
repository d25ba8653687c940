package autotune

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
)

// TestToleranceScalesWithTheArray: a long sum of terms of both signs (as in
// 2DCONV) can cancel to almost 0 while its rounding error is that of its
// large partial sums. The bound is relative to the array's RMS, so such an
// element passes, and a missing term still fails.
func TestToleranceScalesWithTheArray(t *testing.T) {
	want := &Arg{Type: ast.Float, F32: make([]float32, 1000)}
	for i := range want.F32 {
		want.F32[i] = float32(85 * (1 - 2*float64(i%2)))
	}
	want.F32[7] = 0.2 // cancelled almost to 0
	got := &Arg{Type: ast.Float, F32: append([]float32(nil), want.F32...)}
	got.F32[7] += 0.003 // rounding error of a 65536-term float32 sum
	got.F32[8] += 0.01  // relative error 1.2e-4
	if err := compareArg("out", []int{1000}, got, want, Tolerance{}); err != nil {
		t.Errorf("reordered sums rejected: %v", err)
	}
	if (Tolerance{}).Close(0.2, 0.203) {
		t.Error("a single value is not scaled")
	}
	got.F32[9] -= 0.3 // a missing term of average size
	err := compareArg("out", []int{1000}, got, want, Tolerance{})
	if err == nil || !strings.Contains(err.Error(), "out[9]") || !strings.Contains(err.Error(), "1 of 1000") {
		t.Errorf("a missing term: %v", err)
	}
	// Exact comparison stays exact.
	if err := compareArg("out", []int{1000}, got, want, Tolerance{Rel: -1, Abs: -1}); err == nil || !strings.Contains(err.Error(), "3 of 1000") {
		t.Errorf("exact: %v", err)
	}
}
