package main

import (
	"strings"
	"testing"
)

// TestPinErrors: pinned values that no setting can take are usage errors
// (exit 2) naming the pin and its range, found before anything is
// measured, in every verb that takes --params (issue 18 #3 and #8): a zero
// local or block size was an "internal error" (a division by zero) in
// tune, and a local size above the device's, a block larger than the
// domain or an unroll factor longer than the loop searched until the
// budget ended, blaming it or "no variant ran correctly".
func TestPinErrors(t *testing.T) {
	needDevice(t)
	for _, tc := range []struct {
		params, want string
	}{
		{"lszx=0", "pinned lszx=0: lszx takes 1 to"},
		{"bszx=0", "pinned bszx=0: bszx takes 1 to 32 (the 32 points along x)"},
		{"lszx=100000", "pinned lszx=100000 exceeds the device's"},
		{"bszx=64", "pinned bszx=64 exceeds the 32 points along x (bszx takes 1 to 32)"},
		{"uf=1000", "pinned uf=1000 exceeds the 16 iterations of the innermost compute loop (uf takes 0 to 16)"},
	} {
		for _, verb := range []string{"tune", "gen", "run"} {
			args := []string{verb, "matmul", "--params", tc.params}
			if verb == "tune" {
				args = append(args, "-t", "5", "-q")
			}
			st, out, errs := hplopt(args...)
			if st != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "usage: hplopt "+verb) {
				t.Errorf("hplopt %s: status %d, stderr %q; want 2 and %q\nstdout: %s", strings.Join(args, " "), st, errs, tc.want, out)
			}
		}
	}
}
