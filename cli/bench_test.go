package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/bench"
)

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--sizes", "XL"}, {"bench", "--kernels", "nosuch"}, {"bench", "-s", "simplex"},
		{"bench", "-t", "S=abc"}, {"bench", "-t", "S=5", "--sizes", "S,M"}, {"bench", "--runs", "0"},
		{"bench", "--peak-tflops", "60"}, {"bench", "extra"}, {"bench", "--kernels", ","},
		{"bench", "--order", "sideways"}, {"bench", "--builds", "-2"},
	} {
		if st, _, errs := hplopt(args...); st != 2 || !strings.Contains(errs, "usage: hplopt bench") {
			t.Errorf("%v: status %d, want 2 (stderr %q)", args, st, errs)
		}
	}
	if st, _, errs := hplopt("bench", "--report", t.TempDir()); st != 1 || !strings.Contains(errs, "no run records") {
		t.Errorf("--report of an empty directory: status %d, stderr %q", st, errs)
	}
	if st, _, errs := hplopt("bench", "--report", t.TempDir(), "--reference", "/no/such/file"); st != 1 || !strings.Contains(errs, "--reference") {
		t.Errorf("a missing reference file: status %d, stderr %q", st, errs)
	}
}

func TestParseBudget(t *testing.T) {
	b, err := parseBudget("S=10,M=20,L=30")
	if err != nil || b["S"] != 10 || b["L"] != 30 {
		t.Fatalf("%v %v", b, err)
	}
	cfg := &benchConfig{Budget: map[string]float64{"": 7, "L": 30}}
	if cfg.budget("S") != 7 || cfg.budget("L") != 30 {
		t.Errorf("default budget: S %g, L %g", cfg.budget("S"), cfg.budget("L"))
	}
	for _, bad := range []string{"0", "-3", "S=", "x", "XL=5", "NaN", "S=Inf", "1e10", "1e-10"} {
		if _, err := parseBudget(bad); err == nil {
			t.Errorf("-t %s: no error", bad)
		}
	}
}

// TestBenchVerb runs a two-run suite on the default device, then resumes it
// (nothing left to run) and remakes the report from the saved runs.
func TestBenchVerb(t *testing.T) {
	needDevice(t)
	if testing.Short() {
		t.Skip("tunes for a few seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "records.db")
	st, out, errs := hplopt("bench", "--kernels", "matmul", "--sizes", "tiny", "-s", "random,genetic", "-t", "tiny=60", "-e", "4", "--out", dir,
		"--peak-tflops", "1", "--bandwidth-tbs", "0.1", "--db", db)
	if st != 0 {
		t.Fatalf("bench: status %d\n%s%s", st, out, errs)
	}
	for _, want := range []string{"matmul-tiny-random", "matmul-tiny-genetic", "2 runs, 2 with a result", "results.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	recs, err := bench.Load(dir)
	if err != nil || len(recs) != 2 {
		t.Fatalf("saved runs: %d, %v", len(recs), err)
	}
	evals := 0
	for _, r := range recs {
		if r.Error != "" || r.Report == nil || r.Speedup() <= 0 || r.FLOPs <= 0 || r.Device == "" || len(r.Report.History) == 0 {
			t.Errorf("%s: %+v", r.Key(), r)
		} else {
			evals += r.Report.Measured
		}
	}
	// Every evaluation is in the records too.
	if n := recorded(t, db); n != evals {
		t.Errorf("%d evaluations recorded, the runs measured %d", n, evals)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	for _, want := range []string{"| MATMUL | tiny (n=32x32 k=16) | random | 60 |", "(memory)", "--peak-tflops and --bandwidth-tbs", "hplopt bench --kernels matmul"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{"results.csv", "speedup.png", "progress-matmul.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}

	st, out, errs = hplopt("bench", "--kernels", "matmul", "--sizes", "tiny", "-s", "random,genetic", "-t", "2", "--out", dir, "--resume", "--db", db)
	if st != 0 || strings.Count(out, "saved already") != 2 {
		t.Errorf("--resume: status %d\n%s%s", st, out, errs)
	}

	ref := filepath.Join(t.TempDir(), "cublas.txt")
	os.WriteFile(ref, []byte("cublas-sgemm n=32 median_ms=0.01 tflops=0.01\n"), 0o644)
	out2 := t.TempDir()
	st, out, errs = hplopt("bench", "--report", dir, "--out", out2, "--reference", ref, "--title", "Remade")
	if st != 0 || !strings.Contains(out, "2 runs") {
		t.Fatalf("--report: status %d\n%s%s", st, out, errs)
	}
	md, _ = os.ReadFile(filepath.Join(out2, "results.md"))
	if !strings.HasPrefix(string(md), "# Remade") || !strings.Contains(string(md), "## Against cuBLAS SGEMM") {
		t.Errorf("remade report:\n%s", md)
	}
}

// TestBenchKernels reads --kernels: names, a source's name for all of its
// kernels, all of them, and by default the first source's.
func TestBenchKernels(t *testing.T) {
	for _, tc := range []struct {
		flag  []string
		count int
		first string
	}{
		{nil, 8, "conv1d"},
		{[]string{"--kernels", "paper"}, 8, "conv1d"},
		{[]string{"--kernels", "suite"}, 17, "mv"},
		{[]string{"--kernels", "all"}, 25, "conv1d"},
		{[]string{"--kernels", "stencil2d,paper,stencil2d"}, 9, "stencil2d"},
	} {
		cfg, _, err := parseBench(builtins, append(tc.flag, "--sizes", "S"))
		if err != nil || len(cfg.Kernels) != tc.count || cfg.Kernels[0].Name != tc.first {
			n := 0
			if cfg != nil {
				n = len(cfg.Kernels)
			}
			t.Errorf("%v: %d kernels, %v; want %d from %s", tc.flag, n, err, tc.count, tc.first)
		}
	}
	if _, _, err := parseBench(builtins, []string{"--kernels", "gemm"}); err == nil || !strings.Contains(err.Error(), `no kernel "gemm"`) {
		t.Errorf("--kernels gemm: %v", err)
	}
}
