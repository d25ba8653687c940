package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/optimizer"
)

// clKernel writes the kernel.cl of testdata/clc/name.txtar to a .cl file
// and returns its path and the flags its comment gives (global: and
// args: lines), as hplopt takes them.
func clKernel(t *testing.T, name string) (string, []string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "clc", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name+".cl")
	for _, f := range ar.Files {
		if f.Name == "kernel.cl" {
			if err := os.WriteFile(file, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var flags []string
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if g, ok := strings.CutPrefix(line, "global: "); ok {
			flags = append(flags, "--global", g)
		}
		if args, ok := strings.CutPrefix(line, "args: "); ok {
			for _, a := range strings.Fields(args) {
				flags = append(flags, "--arg", a)
			}
		}
	}
	return file, flags
}

// hploptOK runs hplopt args, which must succeed and print every one of
// want.
func hploptOK(t *testing.T, args []string, want ...string) string {
	t.Helper()
	st, out, errs := hplopt(args...)
	if st != 0 {
		t.Fatalf("hplopt %s: status %d\n%s%s", strings.Join(args, " "), st, out, errs)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("hplopt %s does not print %q:\n%s", strings.Join(args, " "), w, out)
		}
	}
	return out
}

// TestCLVerbs runs analyze, gen and run on kernels written in OpenCL C:
// the single-point kernel as delinearized and a variant are each checked
// against the kernel as written, run on the same device.
func TestCLVerbs(t *testing.T) {
	needDevice(t)
	for _, tc := range []struct {
		name     string
		analyze  []string // in analyze's output
		params   string
		generate string // in gen's output
	}{
		{"matmul", []string{"a  RowPat", "b  ColPat", "guard: if (idy < m && idx < n)"}, "lszx=8,lszy=4,tw0=4,lmem=1", "__local float l_a[4][4];"},
		{"stencil2d", []string{"in   RadiusPat"}, "lszx=8,lszy=4,lmem=1", "__local float"},
		{"conv1d", []string{"in    RadiusPat", "filt  InnerPat"}, "lszx=16,tw0=4,uf=2", "__kernel"},
		{"nbody", []string{"pos  InnerPat", "acc  SinglePat"}, "lszx=8,tw0=8,lmem=1", "__local float"},
		{"shifted", []string{"a    Unsupported"}, "lszx=4,uf=2", "a[b_x * n + k + 1]"}, // linear, left as written
	} {
		file, flags := clKernel(t, tc.name)
		hploptOK(t, append([]string{"analyze", file}, flags...), tc.analyze...)
		hploptOK(t, append([]string{"gen", file, "--params", tc.params}, flags...), tc.generate)
		hploptOK(t, append([]string{"run", file, "--seed", "7"}, flags...), "single-point kernel (delinearized)", "check ok")
		hploptOK(t, append([]string{"run", file, "--params", tc.params}, flags...), "variant "+tc.params, "check ok")
	}
}

// TestCLTune tunes a kernel written in OpenCL C: the best variant runs
// right against the kernel as written, the kernel as written is the
// single-point kernel (--emit writes it when nothing beats it), and tuning
// the file again takes the recorded best, under the same problem.
func TestCLTune(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	file, flags := clKernel(t, "matmul")
	dir := t.TempDir()
	db, js := filepath.Join(dir, "r.db"), filepath.Join(dir, "r.json")
	tune := append([]string{file, "-e", "4", "-t", "60", "--db", db, "--json", js, "-q", "--cache", "off"}, flags...)
	out := hploptOK(t, tune, "records       measured 4,", "single-point", "wrong 0,")
	params := regexp.MustCompile(`(?m)^params +(\S+)$`).FindStringSubmatch(out)
	if params == nil {
		t.Fatalf("no best variant:\n%s", out)
	}
	hploptOK(t, append([]string{"run", file, "--params", params[1]}, flags...), "check ok")
	problem := func() string {
		data, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct{ Problem string }
		if err := json.Unmarshal(data, &rep); err != nil || rep.Problem == "" {
			t.Fatalf("report: %v\n%s", err, data)
		}
		return rep.Problem
	}
	first := problem()
	hploptOK(t, tune, "from records  the recorded best of this problem", "params        "+params[1])
	if again := problem(); again != first {
		t.Errorf("tuned again under problem %s, first %s", again, first)
	}

	// The kernel as written is what --emit writes when no variant ran
	// (szx=7 divides no global size: the settings the search draws, the
	// budget of 2 and 2 rejected ones that do not count, are illegal).
	file, flags = clKernel(t, "stencil2d")
	emit := filepath.Join(dir, "best.cl")
	st, out, errs := hplopt(append([]string{"tune", file, "--params", "szx=7", "-e", "2", "--emit", emit, "-q", "--cache", "off", "--no-db"}, flags...)...)
	src, err := os.ReadFile(emit)
	written, _ := os.ReadFile(file)
	if st != 1 || err != nil || string(src) != string(written) {
		t.Errorf("status %d, --emit %v:\n%s\nwant the kernel as written:\n%s\n%s%s", st, err, src, written, out, errs)
	}
}

// TestCLReference checks the variants of a kernel written in OpenCL C
// against its source: given a source that computes something else, every
// variant is wrong, the delinearized single-point kernel among them.
func TestCLReference(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("starts a worker")
	}
	file, flags := clKernel(t, "conv1d")
	var s sizeFlags
	fs := newFlagSet("test", "", "")
	s.define(fs)
	if _, err := fs.parse(flags); err != nil {
		t.Fatal(err)
	}
	b, size, err := s.benchmark(builtins, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := b.Instance(size, 1)
	if err != nil {
		t.Fatal(err)
	}
	prob, err := s.cl.file.problem(inst, "")
	if err != nil {
		t.Fatal(err)
	}
	prob.Written.Source = strings.Replace(prob.Written.Source, "out[i] = acc;", "out[i] = acc + 0.5f;", 1)
	if !strings.Contains(prob.Written.Source, "acc + 0.5f") {
		t.Fatalf("the source was not changed:\n%s", prob.Written.Source)
	}
	tn, err := optimizer.Tune(context.Background(), prob, hpl.OptimizerSettings{Evals: 3, NoRecords: true, Cache: optimizer.NoCache})
	if err != nil {
		t.Fatal(err)
	}
	// A seed the kernel cannot have is Illegal (not run, and not counted
	// against -e); every variant that ran is Wrong: 3 of them.
	if f, n := tn.Report.Failures, tn.Report.Evaluations; f.Wrong != 3 || f.Wrong+f.Illegal != n || tn.Best != nil {
		t.Errorf("failures %+v of %d evaluations, best %v: want 3 wrong, the others illegal, and no variant", f, n, tn.BestParams)
	}
}

// TestCLErrors: a kernel outside the subset and a file that cannot be read
// are failures (status 1) naming the file, line, column and construct;
// flags that do not fit the kernel are usage errors (status 2) naming what
// is missing.
func TestCLErrors(t *testing.T) {
	file, flags := clKernel(t, "matmul")
	bad := writeKernel(t, "__kernel void k(__global float *a, int n) {\n    int i = get_global_id(0);\n    while (i < n) i++;\n    a[i] = 1.0f;\n}\n")
	dirCL := filepath.Join(t.TempDir(), "dir.cl")
	if err := os.Mkdir(dirCL, 0o755); err != nil {
		t.Fatal(err)
	}
	values := []string{"--arg", "m=20", "--arg", "n=24", "--arg", "p=12"}
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"tune", bad, "--global", "8", "--arg", "n=8"}, 1, "k.cl:3:5: while loops are not supported"},
		{[]string{bad, "--global", "8", "--arg", "n=8"}, 1, "k.cl:3:5: while loops are not supported"}, // tune, the default verb
		{[]string{"run", filepath.Join(t.TempDir(), "none.cl"), "--global", "8"}, 1, "no such file"},
		{[]string{"gen", dirCL, "--global", "8"}, 1, "is a directory"},
		{[]string{"tune", file, "--global", "24,20", "--arg", "m=20"}, 2, "no value for n, p: give --arg n=N --arg p=N (the extents of c, a, b depend on them)"},
		{append([]string{"run", file, "--global", "24"}, values...), 2, "--global 24 has 1 dimension; give X,Y (kernel matmul uses 2 dimensions)"},
		{append([]string{"analyze", file}, values...), 2, "no --global: give the global size, X,Y"},
		{append([]string{"gen", file, "--global", "24,20", "--arg", "q=1"}, values...), 2, "kernel matmul has no scalar argument q"},
		{append([]string{"run", file, "--shape", "a=20x13"}, flags...), 2, "shape 20x13 of a"},
		{append([]string{"tune", file, "-n", "24"}, flags...), 2, "-n: a kernel written in OpenCL C is sized by --global and --arg"},
		{[]string{"run", "matmul", "--global", "24,20"}, 2, "--global is for a kernel written in OpenCL C (FILE.cl)"},
		{[]string{"bench", "--kernels", file}, 2, "needs its sizes (--global, --arg)"},
	} {
		st, _, errs := hplopt(tc.args...)
		if st != tc.status || !strings.Contains(errs, tc.want) {
			t.Errorf("hplopt %s: status %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), st, errs, tc.status, tc.want)
		}
	}
}

// TestGenSplit prints a 1DCONV variant whose loop runs in 8 parts (split):
// the parts along y, their staged tiles and partial sums in local memory.
func TestGenSplit(t *testing.T) {
	needDevice(t)
	hploptOK(t, []string{"gen", "conv1d", "--size", "L", "--params", "bszx=4,lszx=64,lmem=1,lcopy=1,tw0=256,prefetch=1,split=8"},
		"// launch: global [16384 8], local [64 8]; local memory 31712 bytes",
		"int part = lidy;", "__local float l_p_out[7][4][64];", "for (int j_t = part * 8192; j_t < part * 8192 + 8192; j_t += 256) {")
}

// TestFTZ: ftz=1 builds a variant with -cl-denorms-are-zero, named on the
// source's first line (gen) and passed to the compiler by run and tune,
// whose checked results stand; a kernel without special functions or
// float division has no ftz in its GPU space (ftz is 0 on CPUs).
func TestFTZ(t *testing.T) {
	needDevice(t)
	hploptOK(t, []string{"gen", "nbody", "--size", "tiny", "--params", "lszx=64,ftz=1"}, "// Build options: -cl-denorms-are-zero\n// Generated by hplopt")
	hploptOK(t, []string{"run", "nbody", "--size", "tiny", "--params", "lszx=64,ftz=1"}, "check ok")
	hploptOK(t, []string{"tune", "nbody", "--size", "tiny", "--params", "ftz=1", "-t", "5", "--no-db"}, "ftz=1")
}
