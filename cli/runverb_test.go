package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
)

// hplopt runs the command line args and returns its status and outputs.
func hplopt(args ...string) (status int, stdout, stderr string) {
	var o, e bytes.Buffer
	status = Run(args, &o, &e, Builtins()...)
	return status, o.String(), e.String()
}

// builtins is the command of hplopt's kernels.
var builtins = &command{sources: Builtins()}

// needDevice skips a test on a machine without an OpenCL device.
func needDevice(t *testing.T) {
	t.Helper()
	if _, err := hpl.Eval(kernels.MatMul).DeviceInfo(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
}

func TestKernelsVerb(t *testing.T) {
	status, out, _ := hplopt("kernels")
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{"conv1d", "1DCONV", "syr2k", "SYR2K", "n=4096x4096 k=4096", "n=48x32 k=5x3", "n=128x128x128 k=8192"} {
		if !strings.Contains(out, want) {
			t.Errorf("hplopt kernels does not show %q:\n%s", want, out)
		}
	}
	if status, _, errOut := hplopt("kernels", "extra"); status != 2 || !strings.Contains(errOut, "usage:") {
		t.Errorf("hplopt kernels extra: status %d, stderr %q", status, errOut)
	}
}

func TestRunVerb(t *testing.T) {
	needDevice(t)
	for _, args := range [][]string{
		{"run", "matmul"},
		{"run", "syrk", "--size", "tiny", "--seed", "5", "--reps", "2"},
		{"run", "-n", "40", "conv1d", "-k", "7"}, // flags before and after the name
		{"run", "conv2d", "-n", "20,12", "-k", "3,2", "--sample", "17"},
	} {
		status, out, errOut := hplopt(args...)
		if status != 0 || !strings.Contains(out, "check ok") || !strings.Contains(out, "GFLOP/s") {
			t.Errorf("hplopt %s: status %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), status, out, errOut)
		}
	}
	_, out, _ := hplopt("run", "conv2d", "-n", "20,12", "-k", "3,2", "--sample", "17")
	if !strings.Contains(out, "n=20x12 k=3x2") || !strings.Contains(out, "(17 points)") {
		t.Errorf("conv2d 20x12: %s", out)
	}
}

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "no kernel given"},
		{[]string{"run", "gemm"}, `no kernel "gemm"`},
		{[]string{"run", "matmul", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "matmul", "-n", "1,2,3", "-k", "4"}, "-n takes 1 or 2 values, not 3"},
		{[]string{"run", "matmul", "-n", "64", "-k", "0"}, "flag -k: want integers from 1 to 2^31-1"},
		{[]string{"run", "matmul", "-n", "six", "-k", "4"}, `invalid value "six" for flag -n`},
		{[]string{"run", "matmul", "-n", "64"}, "needs -k"},
		{[]string{"run", "matmul", "--size", "XL"}, `no size class "XL"`},
		{[]string{"run", "matmul", "--reps", "0"}, `invalid value "0" for flag -reps`},
		{[]string{"run", "matmul", "--bogus"}, "flag provided but not defined"},
	} {
		status, _, errOut := hplopt(tc.args...)
		if status != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "usage: hplopt run") {
			t.Errorf("hplopt %s: status %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), status, errOut, tc.want)
		}
	}
	if status, out, _ := hplopt("run", "-h"); status != 0 || !strings.Contains(out, "-size") {
		t.Errorf("hplopt run -h: status %d, stdout %q", status, out)
	}
}

func TestRunFailures(t *testing.T) {
	needDevice(t)
	if status, _, errOut := hplopt("run", "matmul", "-d", "no such device"); status != 1 || !strings.Contains(errOut, "no such device") {
		t.Errorf("unknown device: status %d, stderr %q", status, errOut)
	}

	// A variant that skips the first term of the sum is caught by the check.
	b, _ := kernels.Get("matmul")
	v := b.Kernel.AST()
	ast.Inspect(v.Body, func(n ast.Node) bool {
		if f, ok := n.(*ast.For); ok {
			f.Lo = ast.IntConst(1)
		}
		return true
	})
	cfg := &runConfig{Bench: b, Size: b.Sizes["tiny"], Seed: 1, Variant: v, Params: "lo=1", Local: []int{8, 4}}
	var out, errOut bytes.Buffer
	if status := runAndReport(cfg, &out, &errOut); status != 1 || !strings.Contains(out.String(), "WRONG") || !strings.Contains(errOut.String(), "differ from the CPU reference") {
		t.Errorf("wrong variant: status %d\nstdout: %s\nstderr: %s", status, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "variant lo=1 (global [32 32], local [8 4])") {
		t.Errorf("the result line does not describe the variant: %s", out.String())
	}
}

// TestRunBuildOptions: --build-options reach the compiler when run builds
// a benchmark's single-point kernel, a variant of it and a variant of an
// OpenCL C file (an option the compiler does not know fails the build,
// and the error says so), and --build-log prints the build's log after the
// result line.
func TestRunBuildOptions(t *testing.T) {
	needDevice(t)
	file, flags := clKernel(t, "nbody")
	for _, args := range [][]string{
		{"run", "matmul", "--size", "tiny"},
		{"run", "matmul", "--size", "tiny", "--params", "lszx=4,lszy=4"},
		append([]string{"run", file, "--params", "lszx=8"}, flags...),
	} {
		status, out, errOut := hplopt(append(args, "--build-log")...)
		if status != 0 || !strings.Contains(out, "check ok") || !strings.Contains(out, "\nbuild log") {
			t.Errorf("hplopt %s --build-log: status %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), status, out, errOut)
		}
		status, out, errOut = hplopt(append(args, "--build-options", "-cl-hplopt-no-such-option")...)
		if status != 1 || !strings.Contains(errOut+out, "-cl-hplopt-no-such-option") && !strings.Contains(errOut+out, "CL_INVALID_BUILD_OPTIONS") {
			t.Errorf("hplopt %s with an unknown build option: status %d, want 1 and the compiler's refusal\nstdout: %s\nstderr: %s", strings.Join(args, " "), status, out, errOut)
		}
	}
}

// TestRunSource: --source runs a file of OpenCL C in place of the
// generated code, with the variant's launch and the same check. gen's own
// output passes for a benchmark's variant and an OpenCL C file's; an edit
// that changes the results fails the check, one that renames the kernel
// fails with the compiler's or OpenCL's error, and a missing or empty file
// is a usage error.
func TestRunSource(t *testing.T) {
	needDevice(t)
	file, flags := clKernel(t, "nbody")
	dir := t.TempDir()
	for i, args := range [][]string{
		{"matmul", "--size", "tiny", "--params", "lszx=4,lszy=4,bszx=2"},
		append([]string{file, "--params", "lszx=8"}, flags...),
	} {
		status, src, errOut := hplopt(append([]string{"gen"}, args...)...)
		if status != 0 {
			t.Fatalf("hplopt gen %s: status %d: %s", strings.Join(args, " "), status, errOut)
		}
		path := filepath.Join(dir, fmt.Sprintf("v%d.cl", i))
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		run := append(append([]string{"run"}, args...), "--source", path)
		status, out, errOut := hplopt(run...)
		if status != 0 || !strings.Contains(out, "check ok") || !strings.Contains(out, "code "+path) {
			t.Errorf("hplopt %s: status %d\nstdout: %s\nstderr: %s", strings.Join(run, " "), status, out, errOut)
		}
		// Results changed: the check must catch them, and the time is
		// still reported.
		wrong := strings.Replace(src, " += ", " -= ", 1)
		if wrong == src {
			t.Fatalf("no accumulation to edit in\n%s", src)
		}
		if err := os.WriteFile(path, []byte(wrong), 0o644); err != nil {
			t.Fatal(err)
		}
		status, out, errOut = hplopt(run...)
		if status != 1 || !strings.Contains(out, "WRONG") || !strings.Contains(out, " ms") {
			t.Errorf("edited to give wrong results: status %d, want 1, a time and WRONG\nstdout: %s\nstderr: %s", status, out, errOut)
		}
		renamed := strings.Replace(src, "void ", "void renamed_", 1)
		if err := os.WriteFile(path, []byte(renamed), 0o644); err != nil {
			t.Fatal(err)
		}
		status, out, errOut = hplopt(run...)
		if status != 1 || strings.Contains(out, "check ok") {
			t.Errorf("kernel renamed: status %d, want 1\nstdout: %s\nstderr: %s", status, out, errOut)
		}
	}
	for _, f := range []string{filepath.Join(dir, "missing.cl"), filepath.Join(dir, "empty.cl")} {
		if strings.HasSuffix(f, "empty.cl") {
			if err := os.WriteFile(f, []byte(" \n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		status, _, errOut := hplopt("run", "matmul", "--size", "tiny", "--source", f)
		if status != 2 || !strings.Contains(errOut, "--source") {
			t.Errorf("--source %s: status %d, want 2 and an error naming --source\nstderr: %s", f, status, errOut)
		}
	}
}

// TestRunBinary: --binary writes the program's binary for the device
// (PTX on NVIDIA, PoCL's archive here) after the run, for a benchmark's
// single-point kernel, a variant of it and an OpenCL C file's variant; a
// file that cannot be written fails the run with an error naming --binary.
func TestRunBinary(t *testing.T) {
	needDevice(t)
	file, flags := clKernel(t, "nbody")
	dir := t.TempDir()
	for i, args := range [][]string{
		{"run", "matmul", "--size", "tiny"},
		{"run", "matmul", "--size", "tiny", "--params", "lszx=4,lszy=4"},
		append([]string{"run", file, "--params", "lszx=8"}, flags...),
	} {
		path := filepath.Join(dir, fmt.Sprintf("b%d.bin", i))
		status, out, errOut := hplopt(append(args, "--binary", path)...)
		if status != 0 || !strings.Contains(out, "check ok") {
			t.Errorf("hplopt %s --binary: status %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), status, out, errOut)
		}
		if b, err := os.ReadFile(path); err != nil || len(b) == 0 {
			t.Errorf("hplopt %s --binary %s: %d bytes written, %v", strings.Join(args, " "), path, len(b), err)
		}
		bad := filepath.Join(dir, "no-such-dir", "b.bin")
		status, _, errOut = hplopt(append(args, "--binary", bad)...)
		if status != 1 || !strings.Contains(errOut, "--binary") {
			t.Errorf("hplopt %s --binary %s: status %d, want 1 and an error naming --binary\nstderr: %s", strings.Join(args, " "), bad, status, errOut)
		}
	}
}
