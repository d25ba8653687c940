package cli

import (
	"strings"
	"testing"

	"github.com/hplopt/hplopt/kernels"
)

func TestAnalyzeVerb(t *testing.T) {
	status, out, errOut := hplopt("analyze", "matmul")
	if status != 0 || errOut != "" {
		t.Fatalf("hplopt analyze matmul: status %d, stderr %q", status, errOut)
	}
	// The paper's classification of its running example, with the
	// subscript roles.
	for _, want := range []string{
		"matmul (MATMUL)", "kernel mxm",
		"\nc  SinglePat  rw\n", "c[idy][idx]  id y | id x",
		"\na  RowPat     r\n", "a[idy][k]    id y | loop k",
		"\nb  ColPat     r\n", "b[k][idx]    loop k | id x",
		"[0] for (k = 0; k < limk; k += 1)  depth 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("hplopt analyze matmul does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "unsupported") {
		t.Errorf("matmul reported unsupported:\n%s", out)
	}
	for _, b := range append(kernels.All(), kernels.Suite()...) {
		if status, out, errOut := hplopt("analyze", b.Name); status != 0 || !strings.Contains(out, "loops:") || strings.Contains(out, "unsupported") {
			t.Errorf("hplopt analyze %s: status %d\nstdout: %s\nstderr: %s", b.Name, status, out, errOut)
		}
	}
	// A suite kernel is analysed with its instance's int arguments: k in
	// q[i][k] is the constant it is.
	_, out, _ = hplopt("analyze", "gs-r", "-n", "32", "-k", "16")
	for _, want := range []string{"int arguments k=8, m=32, n=16", "q[i][k]  loop i | const 8 (k=8)", "variant ints: k, n"} {
		if !strings.Contains(out, want) {
			t.Errorf("hplopt analyze gs-r does not show %q:\n%s", want, out)
		}
	}
	_, out, _ = hplopt("analyze", "conv2d")
	if !strings.Contains(out, "in[idy + i][idx + j]  id y + loop i | id x + loop j  RadiusPat") {
		t.Errorf("hplopt analyze conv2d:\n%s", out)
	}
}

func TestAnalyzeUsage(t *testing.T) {
	for _, args := range [][]string{{"analyze", "-h"}, {"analyze", "matmul", "-h"}} {
		status, out, _ := hplopt(args...)
		if status != 0 || !strings.Contains(out, "usage: hplopt analyze KERNEL") || !strings.Contains(out, "--size") {
			t.Errorf("hplopt %s: status %d, stdout %q", strings.Join(args, " "), status, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze"}, "no kernel given (paper: conv1d, conv2d, conv3d, dcs3d, matmul, nbody, syrk, syr2k; suite: mv, mvt,"},
		{[]string{"analyze", "gemm"}, `no kernel "gemm" (paper: conv1d, conv2d, conv3d, dcs3d, matmul, nbody, syrk, syr2k; suite: mv,`},
		{[]string{"analyze", "matmul", "extra"}, `unexpected argument "extra"`},
		{[]string{"analyze", "--bogus", "matmul"}, "flag provided but not defined"},
	} {
		status, out, errOut := hplopt(tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "usage: hplopt analyze") {
			t.Errorf("hplopt %s: status %d, stdout %q, stderr %q; want 2 and %q", strings.Join(tc.args, " "), status, out, errOut, tc.want)
		}
	}
	if _, out, _ := hplopt("-h"); !strings.Contains(out, "analyze") {
		t.Errorf("hplopt -h does not list analyze:\n%s", out)
	}
}
