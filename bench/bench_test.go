package bench

import (
	"bytes"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hplopt/hplopt/autotune"
)

// rec makes a record with a report: baseline and best in ms (best 0: no
// variant ran correctly).
func rec(kernel, paper, class, strategy string, n int, baseline, best float64) *Record {
	r := &Record{Kernel: kernel, Paper: paper, Class: class, Strategy: strategy, BudgetS: 10,
		Size: "n=" + itoa(n) + "x" + itoa(n) + " k=" + itoa(n), FLOPs: 2 * math.Pow(float64(n), 3), Bytes: 12 * float64(n*n),
		Device: "NVIDIA H100 80GB HBM3", Date: "2026-11-23T04:00:00Z", Command: "hplopt bench -d GPU"}
	rep := &autotune.JSONReport{Kernel: kernel, Device: r.Device, Strategy: strategy, Seed: 1, SpaceSize: big.NewInt(1000),
		Evaluations: 3, BaselineMs: baseline, BestParams: map[string]int{}, EvalsPerMinute: 18, ElapsedS: 10, Stopped: "budget", Failures: autotune.Failures{Wrong: 1},
		Time: autotune.JSONTime{BuildWaitS: 1, LoadWaitS: 0.5, RunS: 6, KernelS: 3, CheckS: 0.5, OtherS: 2}}
	rep.History = append(rep.History, autotune.JSONEval{Params: map[string]int{"uf": 1}, Outcome: autotune.Wrong, ElapsedMs: 1000})
	if kernel == "matmul" {
		rep.SetupS = 2
		rep.Builds = &autotune.JSONBuilds{Builders: 15, BusyS: 75, Utilization: 0.5}
	}
	if best > 0 {
		rep.BestMs, rep.Speedup = best, baseline/best
		rep.BestParams = map[string]int{"lszx": 16, "uf": 4}
		rep.History = append(rep.History,
			autotune.JSONEval{Params: map[string]int{"uf": 2}, Outcome: autotune.OK, Ms: 2 * best, ElapsedMs: 2000},
			autotune.JSONEval{Params: rep.BestParams, Outcome: autotune.OK, Ms: best, ElapsedMs: 5000})
	} else {
		r.Error = "no variant ran correctly"
	}
	r.Report = rep
	return r
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

func suite() []*Record {
	return []*Record{
		rec("syrk", "SYRK", "S", "genetic", 1024, 5, 0.125),
		rec("matmul", "MATMUL", "L", "genetic", 4096, 100, 5),
		rec("matmul", "MATMUL", "L", "random", 4096, 100, 10),
		rec("matmul", "MATMUL", "S", "random", 1024, 1, 2),
		rec("conv1d", "1DCONV", "S", "random", 64, 1, 0),
	}
}

func TestSaveLoadRoundTripAndOrder(t *testing.T) {
	dir, dir2 := t.TempDir(), t.TempDir()
	for _, r := range suite() {
		if err := Save(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	// The same run saved again in a later directory replaces the first.
	again := rec("matmul", "MATMUL", "L", "random", 4096, 100, 8)
	if err := Save(dir2, again); err != nil {
		t.Fatal(err)
	}
	recs, err := Load(dir, dir2)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key())
	}
	want := "conv1d-S-random matmul-S-random matmul-L-random matmul-L-genetic syrk-S-genetic"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("order: got %s, want %s", got, want)
	}
	if got := recs[2].BestMs(); got != 8 {
		t.Errorf("matmul-L-random from the later directory: best %g, want 8", got)
	}
	if recs[3].Report.History[2].Outcome != autotune.OK || recs[3].Report.SpaceSize.Int64() != 1000 {
		t.Errorf("history or space size did not round-trip: %+v", recs[3].Report)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "matmul-L-genetic.json")); err != nil {
		t.Error(err)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no run records") {
		t.Errorf("empty directory: %v", err)
	}
	dir := t.TempDir()
	Save(dir, suite()[0])
	os.WriteFile(filepath.Join(dir, "runs", "bad.json"), []byte("{"), 0o644)
	recs, err := Load(dir)
	if len(recs) != 1 || err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("a broken file: %d records, %v", len(recs), err)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize(suite())
	// Speedups with a result: 40, 20, 10, 0.5.
	if s.Runs != 5 || s.WithResult != 4 {
		t.Fatalf("runs %d, with result %d", s.Runs, s.WithResult)
	}
	if want := (40 + 20 + 10 + 0.5) / 4; math.Abs(s.Mean-want) > 1e-9 {
		t.Errorf("mean %g, want %g", s.Mean, want)
	}
	if want := math.Pow(40*20*10*0.5, 0.25); math.Abs(s.GeoMean-want) > 1e-9 {
		t.Errorf("geomean %g, want %g", s.GeoMean, want)
	}
	if s.ByStrategy["genetic"] != 30 || s.ByKernel["MATMUL"] != (20+10+0.5)/3 {
		t.Errorf("by strategy %v, by kernel %v", s.ByStrategy, s.ByKernel)
	}
	if len(s.Slower) != 2 || s.Slower[0].Kernel != "matmul" || s.Slower[1].Kernel != "conv1d" {
		t.Errorf("slower: %v", s.Slower)
	}
}

func TestRSqrtBound(t *testing.T) {
	c, _ := CeilingFor("H100")
	// 65536^2 interactions with one rsqrt each take 1.03 ms at 4.17 T/s.
	// With 19 flops each (NBODY) the FP32 peak binds (1.22 ms at 66.9
	// TFLOP/s); with 11 (DCS3D) the rsqrt units do (0.71 ms at the peak).
	n := 65536.0 * 65536
	if _, bound := c.Fractions(19*n, 1e6, n, 4); bound != "compute" {
		t.Errorf("NBODY-like: bound %s, want compute", bound)
	}
	if cell := ceilingCell(c, &Record{FLOPs: 19 * n, Bytes: 1e6, RSqrts: n}, 4); !strings.Contains(cell, "(compute); rsqrt 0.257") {
		t.Errorf("NBODY-like cell %q, want the rsqrt fraction beside the FP32 one", cell)
	}
	f, bound := c.Fractions(11*n, 1e6, n, 4)
	if bound != "rsqrt" || math.Abs(f-n/rsqrtH100/4e-3) > 1e-9 {
		t.Errorf("DCS3D-like: %g (%s), want %g (rsqrt)", f, bound, n/rsqrtH100/4e-3)
	}
	r := &Record{FLOPs: 11 * n, Bytes: 1e6, RSqrts: n}
	if cell := ceilingCell(c, r, 4); !strings.Contains(cell, "(rsqrt); FP32 0.") {
		t.Errorf("cell %q, want the rsqrt fraction and the FP32 one beside it", cell)
	}
}

func TestCeilingFraction(t *testing.T) {
	c, ok := CeilingFor("NVIDIA H100 80GB HBM3")
	if !ok {
		t.Fatal("no built-in H100 ceiling")
	}
	// 2*4096^3 FLOPs at 66.9 TFLOP/s take 2.054 ms: at 4.108 ms, half.
	f, bound := c.Fraction(2*math.Pow(4096, 3), 12*4096*4096, 2*2*math.Pow(4096, 3)/66.9e12*1e3)
	if math.Abs(f-0.5) > 1e-9 || bound != "compute" {
		t.Errorf("fraction %g (%s), want 0.5 (compute)", f, bound)
	}
	// A copy of 3 GB at 3 TB/s takes 1 ms.
	if f, bound := c.Fraction(1, 3e9, 2); math.Abs(f-0.5) > 1e-9 || bound != "memory" {
		t.Errorf("fraction %g (%s), want 0.5 (memory)", f, bound)
	}
	// The H200 (as its OpenCL name reads) is matched by its own entry,
	// with the H100's FP32 peak and its own memory bandwidth.
	if h, ok := CeilingFor("NVIDIA H200"); !ok || h.PeakFLOPs != c.PeakFLOPs || h.Bandwidth <= c.Bandwidth || h.Name != "H200" {
		t.Errorf("the H200's ceiling %+v (found %v), want the H100's FP32 peak and more bandwidth", h, ok)
	}
	if _, ok := CeilingFor("cpu-haswell"); ok {
		t.Error("a CPU has no built-in ceiling")
	}
	if f, _ := (Ceiling{}).Fraction(1, 1, 1); f != 0 {
		t.Error("an unknown ceiling gives a fraction")
	}
}

func TestParseReferences(t *testing.T) {
	refs, err := ParseReferences(strings.NewReader("loading torch\ncublas-sgemm n=1024 median_ms=0.0705 tflops=30.46\ncublas-sgemm n=4096 median_ms=2.6679 tflops=51.52\nopenblas-sgemm n=1024 threads=2 median_ms=7.5 gflops=286.3\n"))
	if err != nil || len(refs) != 3 || refs[1].N != 4096 || refs[1].TFLOPs != 51.52 || refs[0].Ms != 0.0705 || refs[0].Library != "cuBLAS" {
		t.Fatalf("%+v, %v", refs, err)
	}
	if o := refs[2]; o.Library != "OpenBLAS" || o.N != 1024 || math.Abs(o.TFLOPs-0.2863) > 1e-12 {
		t.Errorf("OpenBLAS line read as %+v", o)
	}
	if _, err := ParseReferences(strings.NewReader("cublas-sgemm n=1024 median_ms=x tflops=1 more\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad number: %v", err)
	}
}

func TestMarkdownAndCSV(t *testing.T) {
	recs := suite()
	Sort(recs)
	recs[0].Report.Time = autotune.JSONTime{} // a record from before the split was kept
	var md bytes.Buffer
	c, _ := CeilingFor("H100")
	err := WriteMarkdown(&md, recs, Options{Title: "T", Ceiling: c, References: []Reference{{Library: "cuBLAS", N: 4096, Ms: 2.7, TFLOPs: 50}}})
	if err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"# T\n",
		"| MATMUL | L (n=4096x4096 k=4096) | genetic | 10 | 100.0 | 5.000 | 20.00 | 27487.8 | 0.411 (compute) | 3 | 18 | 10/60/30 | 15, 50% | 0/0/0/1/0 | `lszx=16,uf=4` |",
		"| 1DCONV | S (n=64x64 k=64) | random | 10 | 1.000 | – | – | – | – | 3 | 18 | – | – | 0/0/0/1/0 | no variant ran correctly |",
		"| MATMUL | 3 | 6.0 | 30.0 | 0% | 10% | 5% | 60% | 30% | 5% | 20% | 50% |",
		"| all | 4 | 6.0 | 40.0 | 0% | 10% | 5% | 60% | 30% | 5% | 20% | 50% |",
		"| all runs | 17.62 | 16.01 |",
		"| genetic search | 30.00 | 15.84 |",
		"| MATMUL | 10.17 | 9.56 |",
		"- MATMUL S (n=1024x1024 k=1024), random search: speedup 0.50",
		"- 1DCONV S (n=64x64 k=64), random search: no result: no variant ran correctly",
		"## Against cuBLAS SGEMM",
		"| MATMUL | L (n=4096x4096 k=4096) | genetic | 27.49 TFLOP/s | 50.00 TFLOP/s | 0.550 |",
		"hplopt bench -d GPU",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	var csv bytes.Buffer
	if err := WriteCSV(&csv, recs, c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "kernel,paper,class,size,strategy") {
		t.Fatalf("csv:\n%s", csv.String())
	}
	if !strings.Contains(lines[3], "matmul,MATMUL,L,n=4096x4096 k=4096,random,10,NVIDIA H100 80GB HBM3,100,10,10,") {
		t.Errorf("csv row: %s", lines[3])
	}
	// load_wait_s is the last column, after the columns it was added to.
	if !strings.HasSuffix(lines[0], ",builders,builder_utilization,load_wait_s") || !strings.HasSuffix(lines[3], ",0.5") {
		t.Errorf("csv load_wait_s: %s\n%s", lines[0], lines[3])
	}
}

func TestBestSoFar(t *testing.T) {
	xy := bestSoFar(rec("matmul", "MATMUL", "L", "genetic", 4096, 100, 5))
	// Wrong at 1 s is skipped; 10 ms at 2 s (10x), 5 ms at 5 s (20x), held to the end (10 s).
	want := [][2]float64{{2, 10}, {5, 10}, {5, 20}, {10, 20}}
	if len(xy) != len(want) {
		t.Fatalf("got %v", xy)
	}
	for i, w := range want {
		if xy[i].X != w[0] || xy[i].Y != w[1] {
			t.Errorf("point %d: %v, want %v", i, xy[i], w)
		}
	}
}

func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteReport(dir, suite(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Base(f)] = true
		data, err := os.ReadFile(f)
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if strings.HasSuffix(f, ".png") && !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", f)
		}
	}
	for _, n := range []string{"results.md", "results.csv", "speedup.png", "progress-matmul.png", "progress-syrk.png", "progress-conv1d.png"} {
		if !names[n] {
			t.Errorf("no %s among %v", n, files)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
	if !strings.Contains(string(md), "ceiling: unknown") {
		t.Error("without a ceiling the report should say so")
	}
}

// TestNoEvaluation: a run whose budget ended before any variant ran says
// so, also when its record (written before NoResult) says that no variant
// ran correctly.
func TestNoEvaluation(t *testing.T) {
	r := rec("conv3d", "3DCONV", "S", "genetic", 32, 2, 0)
	r.Report.Evaluations, r.Report.History = 0, nil
	var md bytes.Buffer
	if err := WriteMarkdown(&md, []*Record{r}, Options{Title: "T"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "genetic search: no result: the budget ended before any variant ran") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if NoResult(0) == NoResult(3) {
		t.Error("NoResult does not tell no evaluation from failed ones")
	}
}

// TestUserKernelNames: a kernel that is not one of the paper's eight (no
// paper name) is named by its own name in the tables and is its own group.
func TestUserKernelNames(t *testing.T) {
	recs := []*Record{rec("mvt", "", "M", "genetic", 64, 3, 0.3), rec("saxpy", "", "M", "genetic", 64, 1, 0.5)}
	var md bytes.Buffer
	c, _ := CeilingFor("H100")
	if err := WriteMarkdown(&md, recs, Options{Title: "T", Ceiling: c}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{"| mvt | M (n=64x64 k=64) | genetic |", "| saxpy | M (n=64x64 k=64) | genetic |", "| mvt | 10.00 |", "| saxpy | 2.00 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "|  | M") {
		t.Errorf("a row without a kernel name:\n%s", out)
	}
}
