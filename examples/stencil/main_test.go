package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/hpl"
)

// TestProgram builds the example and runs its command line as a user
// would: the kernel is listed, runs and checks against its reference, is
// analysed with its bounds guard and stencil read, its variants are made
// and checked, and a short search at the tiny size on the OpenCL device
// finds a verified variant.
func TestProgram(t *testing.T) {
	if _, err := hpl.Eval(heat).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	exe := filepath.Join(t.TempDir(), "stencil")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"kernels"}, []string{"heat", "stencil", "n=70x50"}},
		{[]string{"run", "heat"}, []string{"heat n=70x50", "check ok"}},
		{[]string{"analyze", "heat"}, []string{"in   RadiusPat", "halo [-1,+1][-1,+1]", "guard: if"}},
		{[]string{"gen", "heat", "--params", "lszx=16,lszy=4,lmem=1"}, []string{"__local float l_in[6][18]", "barrier(CLK_LOCAL_MEM_FENCE)"}},
		{[]string{"run", "heat", "--params", "lszx=16,lszy=4,lmem=1,bszx=2"}, []string{"check ok"}},
		{[]string{"tune", "heat", "-e", "5", "-q", "--seed", "3"}, []string{"kernel        heat", "evaluations   5", "best "}},
	} {
		if testing.Short() && tc.args[0] == "tune" {
			continue // searches for a few seconds
		}
		cmd := exec.Command(exe, tc.args...)
		cmd.Env = append(os.Environ(), "HPLOPT_DB="+filepath.Join(t.TempDir(), "records.db"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("stencil %s: %v\n%s", strings.Join(tc.args, " "), err, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("stencil %s does not print %q:\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
	}
	// A usage error names the program's kernels.
	out, err := exec.Command(exe, "run", "nosuch").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `no kernel "nosuch" (stencil: heat)`) {
		t.Errorf("stencil run nosuch: %v\n%s", err, out)
	}
}
