package transforms_test

import (
	"maps"
	"testing"

	"github.com/hplopt/hplopt/transforms"
)

// TestCarry checks that a setting carried to another shape keeps the
// blocks per work-item.
func TestCarry(t *testing.T) {
	m := map[string]int{"bszx": 4, "lszx": 16, "szx": 128, "bszy": 1, "lszy": 4, "szy": 100, "uf": 2}
	got := transforms.Carry(m, []int{1024, 400}, []int{2048, 50})
	want := map[string]int{"bszx": 4, "lszx": 16, "szx": 256, "bszy": 1, "lszy": 4, "szy": 16, "uf": 2}
	if !maps.Equal(got, want) {
		t.Errorf("Carry = %v, want %v", got, want)
	}
	if m["szx"] != 128 {
		t.Error("Carry changed its argument")
	}
}
