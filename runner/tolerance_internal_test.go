package runner

import (
	"fmt"
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

// TestCompareChunks checks an output checked in parallel chunks: the first
// wrong element and the count of wrong ones are those of a serial scan.
func TestCompareChunks(t *testing.T) {
	n := 3*compareChunk + 17
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(i%7) - 3
	}
	g := append([]float32(nil), w...)
	wrong := []int{2*compareChunk + 5, n - 1, compareChunk + 1}
	for _, i := range wrong {
		g[i] += 100
	}
	got := &Arg{Name: "out", Type: ast.Float, Dims: []int{n}, F32: g}
	want := &Arg{Name: "out", Type: ast.Float, Dims: []int{n}, F32: w}
	err := compareArg("out", []int{n}, got, want, Tolerance{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("flat index %d", compareChunk+1)) || !strings.Contains(err.Error(), fmt.Sprintf("3 of %d", n)) {
		t.Errorf("compare: %v", err)
	}
	if err := compareArg("out", []int{n}, want, want, Tolerance{}); err != nil {
		t.Errorf("an output against itself: %v", err)
	}
}
