package cli

import (
	"strings"
	"testing"
)

// TestSuiteVerbs runs the verbs on suite kernels by name: variants that the
// passes make of what users write (a pinned tile in a guarded kernel, an
// int argument in a subscript, a triangular loop as an outer loop, a
// stencil's halo) are printed, one run against its reference (transforms'
// property test runs many more), and a search pins a guarded kernel's tile.
func TestSuiteVerbs(t *testing.T) {
	needDevice(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"gen", "matmul-guard", "--params", "tw0=8,lmem=1"}, []string{"for (int k_t = 0; k_t < 17; k_t += 8)", "barrier(CLK_LOCAL_MEM_FENCE)", "nx && "}},
		{[]string{"gen", "gs-r", "--params", "tw0=8,lmem=1"}, []string{"q[(i_t + lidx) * 24 + (6 + lidx % 1)]"}},
		{[]string{"gen", "covariance-tri", "--params", "tw0=8,lmem=1"}, []string{"for (j2 = c_x; j2 < 24; j2++)", "if (j2 >= b_x)"}},
		{[]string{"run", "jacobi2d", "--params", "lszx=8,lszy=4,lmem=1,bszx=2"}, []string{"check ok"}},
		{[]string{"kernels"}, []string{"matmul-guard    suite"}},
	} {
		st, out, errs := hplopt(tc.args...)
		if st != 0 {
			t.Errorf("hplopt %s: status %d\n%s%s", strings.Join(tc.args, " "), st, out, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("hplopt %s does not print %q:\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
	}
	// Pinning tw0 on a guarded kernel is a search over the rest.
	if testing.Short() {
		return
	}
	st, out, errs := hplopt("tune", "matmul-guard", "--params", "tw0=8", "-e", "2", "-q", "--no-db")
	if st != 0 || !strings.Contains(out, "tw0=8") {
		t.Errorf("tune matmul-guard --params tw0=8: status %d\n%s%s", st, out, errs)
	}
}
