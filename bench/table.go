package bench

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/autotune"
)

// Ceiling is a device's throughput limits: FP32 peak in FLOP/s and memory
// bandwidth in bytes/s (bytes read plus written). A zero field is unknown.
type Ceiling struct {
	Name      string
	PeakFLOPs float64
	Bandwidth float64
	Source    string // where the figures come from
}

// Known reports whether the ceiling has both figures.
func (c Ceiling) Known() bool { return c.PeakFLOPs > 0 && c.Bandwidth > 0 }

// builtin holds the ceilings of the devices we measure on, matched by a part
// of the OpenCL device name.
var builtin = []Ceiling{
	{Name: "H100", PeakFLOPs: 66.9e12, Bandwidth: 3.0e12, Source: "132 SMs x 128 FP32 lanes x 2 x 1.98 GHz; device-to-device copy measured on the H100"},
}

// CeilingFor returns the built-in ceiling of a device, by name.
func CeilingFor(device string) (Ceiling, bool) {
	for _, c := range builtin {
		if strings.Contains(device, c.Name) {
			return c, true
		}
	}
	return Ceiling{}, false
}

// Fraction is the share of the device's ceiling that a time reaches: the
// larger of FLOPs/peak and bytes/bandwidth (the time the kernel would take
// at the ceiling), over the time. The bound says which limit that was.
func (c Ceiling) Fraction(flops, bytes, ms float64) (frac float64, bound string) {
	if !c.Known() || ms <= 0 {
		return 0, ""
	}
	tc, tm := flops/c.PeakFLOPs, bytes/c.Bandwidth
	if tc >= tm {
		return tc / (ms / 1e3), "compute"
	}
	return tm / (ms / 1e3), "memory"
}

// Paper holds the paper's Table 4 mean speedups.
var Paper = struct {
	Mean       float64
	ByStrategy map[string]float64
	ByKernel   map[string]float64
}{
	Mean:       16.01,
	ByStrategy: map[string]float64{"genetic": 15.84, "random": 16.18},
	ByKernel: map[string]float64{"1DCONV": 5.62, "2DCONV": 3.58, "3DCONV": 3.86, "DCS3D": 1.94,
		"MATMUL": 9.56, "NBODY": 1.55, "SYRK": 46.23, "SYR2K": 55.74},
}

// Reference is a vendor library's time for a square SGEMM of size n, as
// printed by bench/reference/cublas_sgemm.py.
type Reference struct {
	N      int
	Ms     float64
	TFLOPs float64
}

// ParseReferences reads lines "cublas-sgemm n=4096 median_ms=2.7 tflops=50.85";
// other lines are skipped.
func ParseReferences(r io.Reader) ([]Reference, error) {
	var out []Reference
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "cublas-sgemm" {
			continue
		}
		var ref Reference
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("bench: reference line %d: %q: %v", line, kv, err)
			}
			switch k {
			case "n":
				ref.N = int(x)
			case "median_ms":
				ref.Ms = x
			case "tflops":
				ref.TFLOPs = x
			}
		}
		if ref.N <= 0 || ref.TFLOPs <= 0 {
			return nil, fmt.Errorf("bench: reference line %d: no n or tflops in %q", line, sc.Text())
		}
		out = append(out, ref)
	}
	return out, sc.Err()
}

// ReadReferences reads a reference file (see ParseReferences).
func ReadReferences(file string) ([]Reference, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseReferences(f)
}

// Options are what a report says beyond the records.
type Options struct {
	Title      string
	Ceiling    Ceiling
	References []Reference // cuBLAS SGEMM, compared with MATMUL, SYRK and SYR2K
	Notes      []string    // paragraphs printed under the title
}

// Summary is the suite's mean speedups.
type Summary struct {
	Runs, WithResult int
	Mean, GeoMean    float64
	ByStrategy       map[string]float64
	ByKernel         map[string]float64 // by the paper's kernel name
	Slower           []*Record          // runs whose best is not faster than the single-point kernel, or that found nothing
}

// Summarize computes the arithmetic mean speedup over every run with a
// result (as the paper's Table 4 averages), per strategy and per kernel.
func Summarize(recs []*Record) Summary {
	s := Summary{ByStrategy: map[string]float64{}, ByKernel: map[string]float64{}}
	bySt, byK := map[string][]float64{}, map[string][]float64{}
	var all []float64
	for _, r := range recs {
		s.Runs++
		sp := r.Speedup()
		if sp <= 1 {
			s.Slower = append(s.Slower, r)
		}
		if sp <= 0 {
			continue
		}
		all = append(all, sp)
		bySt[r.Strategy] = append(bySt[r.Strategy], sp)
		byK[r.Paper] = append(byK[r.Paper], sp)
	}
	s.WithResult = len(all)
	s.Mean, s.GeoMean = mean(all), geomean(all)
	for k, v := range bySt {
		s.ByStrategy[k] = mean(v)
	}
	for k, v := range byK {
		s.ByKernel[k] = mean(v)
	}
	return s
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range v {
		t += math.Log(x)
	}
	return math.Exp(t / float64(len(v)))
}

func fmtMs(ms float64) string {
	if ms <= 0 {
		return "–"
	}
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.1f", ms)
	case ms >= 1:
		return fmt.Sprintf("%.3f", ms)
	}
	return fmt.Sprintf("%.4f", ms)
}

func fmtX(x float64) string {
	if x <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

// Params formats a parameter map as name=value pairs in name order.
func Params(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, ",")
}

func gflops(flops, ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	return flops / (ms / 1e3) / 1e9
}

func classLabel(r *Record) string {
	if r.Class == "" {
		return r.Size
	}
	return r.Class + " (" + r.Size + ")"
}

// WriteMarkdown writes the report: the results table, the mean speedups
// beside the paper's, the runs that missed "faster than the single-point
// kernel", and the comparison with the SGEMM references.
func WriteMarkdown(w io.Writer, recs []*Record, opt Options) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	title := opt.Title
	if title == "" {
		title = "hplopt benchmark results"
	}
	p("# %s\n\n", title)
	for _, n := range opt.Notes {
		p("%s\n\n", n)
	}
	devices, dates, commands := distinct(recs)
	p("- device: %s\n", strings.Join(devices, "; "))
	if len(dates) > 0 {
		p("- runs ended between %s and %s\n", dates[0], dates[len(dates)-1])
	}
	if opt.Ceiling.Known() {
		p("- ceiling: %.1f TFLOP/s FP32, %.2f TB/s (%s)\n", opt.Ceiling.PeakFLOPs/1e12, opt.Ceiling.Bandwidth/1e12, opt.Ceiling.Source)
	} else {
		p("- ceiling: unknown for this device (give --peak-tflops and --bandwidth-tbs), so no fraction of ceiling is shown\n")
	}
	if len(commands) > 0 {
		p("- commands:\n\n```\n%s\n```\n", strings.Join(commands, "\n"))
	}
	p("\n## Results\n\n")
	p("Times are kernel times from OpenCL profiling events, the median of the timed launches; every variant's output was checked against the single-point kernel's before its time counted. *Of ceiling* is the time the kernel would take at the device's FP32 peak or memory bandwidth, whichever is longer, over the tuned time. *Time %% b/r/k* splits the run's tuning time: waiting for builds, running variants (resetting outputs, launching, reading back), and of that the kernels themselves on the device.\n\n")
	p("| kernel | size | strategy | budget s | single-point ms | tuned ms | speedup | GFLOP/s | of ceiling | evaluations | evals/min | time %% b/r/k | failures i/c/l/w/t | best parameters |\n")
	p("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range recs {
		best := r.BestMs()
		frac, bound := opt.Ceiling.Fraction(r.FLOPs, r.Bytes, best)
		fs := "–"
		if frac > 0 {
			fs = fmt.Sprintf("%.3f (%s)", frac, bound)
		}
		evals, epm, fails, params, split := "–", "–", "–", why(r), "–"
		if rep := r.Report; rep != nil {
			evals = strconv.Itoa(rep.Evaluations)
			if t := rep.Time; rep.ElapsedS > 0 && t != (autotune.JSONTime{}) {
				pc := func(s float64) int { return int(math.Round(100 * s / rep.ElapsedS)) }
				split = fmt.Sprintf("%d/%d/%d", pc(t.BuildWaitS), pc(t.RunS), pc(t.KernelS))
			}
			epm = fmt.Sprintf("%.0f", rep.EvalsPerMinute)
			f := rep.Failures
			fails = fmt.Sprintf("%d/%d/%d/%d/%d", f.Illegal, f.Compile, f.Launch, f.Wrong, f.Timeout)
			if best > 0 {
				params = "`" + Params(rep.BestParams) + "`"
			} else if params == "" {
				params = NoResult(rep.Evaluations)
			}
		}
		gf := "–"
		if best > 0 {
			gf = fmt.Sprintf("%.1f", gflops(r.FLOPs, best))
		}
		p("| %s | %s | %s | %g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Paper, classLabel(r), r.Strategy, r.BudgetS,
			fmtMs(r.BaselineMs()), fmtMs(best), fmtX(r.Speedup()), gf, fs, evals, epm, split, fails, params)
	}
	s := Summarize(recs)
	p("\n## Mean speedup over the single-point kernels\n\n")
	p("Arithmetic means over the runs with a result (%d of %d), as the paper's Table 4 averages; the paper's figures are over its own devices.\n\n", s.WithResult, s.Runs)
	p("| | hplopt | paper |\n|---|---:|---:|\n")
	p("| all runs | %s | %.2f |\n", fmtX(s.Mean), Paper.Mean)
	for _, st := range []string{"random", "genetic", "exhaustive"} {
		if v, ok := s.ByStrategy[st]; ok {
			pv := "–"
			if x, ok := Paper.ByStrategy[st]; ok {
				pv = fmt.Sprintf("%.2f", x)
			}
			p("| %s search | %s | %s |\n", st, fmtX(v), pv)
		}
	}
	var ks []string
	for k := range s.ByKernel {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return paperRank(ks[i]) < paperRank(ks[j]) })
	for _, k := range ks {
		pv := "–"
		if x, ok := Paper.ByKernel[k]; ok {
			pv = fmt.Sprintf("%.2f", x)
		}
		p("| %s | %s | %s |\n", k, fmtX(s.ByKernel[k]), pv)
	}
	p("| geometric mean, all runs | %s | – |\n", fmtX(s.GeoMean))
	p("\n## Runs not faster than the single-point kernel\n\n")
	if len(s.Slower) == 0 {
		p("None: every run's tuned variant beat its single-point kernel.\n")
	}
	for _, r := range s.Slower {
		what := fmt.Sprintf("speedup %s", fmtX(r.Speedup()))
		if r.Speedup() <= 0 {
			what = "no result"
			if e := why(r); e != "" {
				what += ": " + e
			}
		}
		p("- %s %s, %s search: %s\n", r.Paper, classLabel(r), r.Strategy, what)
	}
	writeTime(p, recs)
	if len(opt.References) > 0 {
		writeReferences(p, recs, opt.References)
	}
	return bw.Flush()
}

// NoResult says why a run that ran found no variant: n evaluations, all
// failed, or none at all.
func NoResult(n int) string {
	if n == 0 {
		return "the budget ended before any variant ran"
	}
	return "no variant ran correctly"
}

// why returns r.Error, reworded for a run that made no evaluation (records
// written before NoResult said "no variant ran correctly" then too).
func why(r *Record) string {
	if r.Report != nil && r.Report.Evaluations == 0 && r.Error == NoResult(1) {
		return NoResult(0)
	}
	return r.Error
}

// writeTime sums where the tuning time of the runs went, per kernel.
func writeTime(p func(string, ...any), recs []*Record) {
	type sum struct {
		n  int
		el float64
		t  autotune.JSONTime
	}
	by := map[string]*sum{}
	var all sum
	var ks []string
	for _, r := range recs {
		rep := r.Report
		if rep == nil || rep.ElapsedS <= 0 || rep.Time == (autotune.JSONTime{}) {
			continue
		}
		s := by[r.Paper]
		if s == nil {
			s = &sum{}
			by[r.Paper] = s
			ks = append(ks, r.Paper)
		}
		for _, s := range []*sum{s, &all} {
			s.n++
			s.el += rep.ElapsedS
			s.t.BuildWaitS += rep.Time.BuildWaitS
			s.t.RunS += rep.Time.RunS
			s.t.KernelS += rep.Time.KernelS
			s.t.CheckS += rep.Time.CheckS
			s.t.OtherS += rep.Time.OtherS
		}
	}
	if all.n == 0 {
		return
	}
	sort.Slice(ks, func(i, j int) bool { return paperRank(ks[i]) < paperRank(ks[j]) })
	p("\n## Where the tuning time went\n\n")
	p("Summed over the runs (%d) of each kernel: waiting for a variant's build (what was left of it when it had been started ahead), running variants (resetting the outputs, the launches, reading the outputs back), of that the kernels on the device (profiling events of every launch, warm-up included), checking the outputs, and the rest (generating variants, the search itself, an evaluation cut by the end of the budget).\n\n", all.n)
	p("| kernel | runs | tuning s | waiting for builds | running variants | kernels | checking | other |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, s *sum) {
		pc := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x/s.el) }
		p("| %s | %d | %.1f | %s | %s | %s | %s | %s |\n", name, s.n, s.el, pc(s.t.BuildWaitS), pc(s.t.RunS), pc(s.t.KernelS), pc(s.t.CheckS), pc(s.t.OtherS))
	}
	for _, k := range ks {
		row(k, by[k])
	}
	row("all", &all)
}

func paperRank(paper string) int {
	for i, n := range []string{"1DCONV", "2DCONV", "3DCONV", "DCS3D", "MATMUL", "NBODY", "SYRK", "SYR2K"} {
		if n == paper {
			return i
		}
	}
	return 99
}

// writeReferences compares the GEMM-like kernels' best rates with the
// reference SGEMM of the same n: all three do 2n²k FLOPs or a multiple, so
// the rates compare the same kind of work.
func writeReferences(p func(string, ...any), recs []*Record, refs []Reference) {
	p("\n## Against cuBLAS SGEMM\n\n")
	p("cuBLAS SGEMM (TF32 off) at the same n, timed in the same session by `cublas_sgemm.py`:")
	for _, r := range refs {
		p(" n=%d %.2f TFLOP/s;", r.N, r.TFLOPs)
	}
	p("\n\n| kernel | size | strategy | tuned TFLOP/s | cuBLAS TFLOP/s | ratio |\n|---|---|---|---:|---:|---:|\n")
	for _, r := range recs {
		switch r.Kernel {
		case "matmul", "syrk", "syr2k":
		default:
			continue
		}
		var n, k int
		if _, err := fmt.Sscanf(r.Size, "n=%dx%d k=%d", &n, new(int), &k); err != nil || n != k {
			continue
		}
		for _, ref := range refs {
			if ref.N != n || r.BestMs() <= 0 {
				continue
			}
			tf := gflops(r.FLOPs, r.BestMs()) / 1e3
			p("| %s | %s | %s | %.2f | %.2f | %.3f |\n", r.Paper, classLabel(r), r.Strategy, tf, ref.TFLOPs, tf/ref.TFLOPs)
		}
	}
}

func distinct(recs []*Record) (devices, dates, commands []string) {
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Device != "" && !seen["d"+r.Device] {
			seen["d"+r.Device] = true
			devices = append(devices, r.Device)
		}
		if r.Date != "" {
			dates = append(dates, r.Date)
		}
		if r.Command != "" && !seen["c"+r.Command] {
			seen["c"+r.Command] = true
			commands = append(commands, r.Command)
		}
	}
	sort.Strings(dates)
	return
}

// WriteCSV writes one row per record.
func WriteCSV(w io.Writer, recs []*Record, c Ceiling) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"kernel", "paper", "class", "size", "strategy", "budget_s", "device", "single_point_ms", "tuned_ms", "speedup",
		"gflops", "ceiling_fraction", "bound", "evaluations", "evals_per_minute", "illegal", "compile", "launch", "wrong", "timeout",
		"space_size", "stopped", "best_params", "error", "build_wait_s", "run_s", "kernel_s", "check_s", "other_s"})
	f := func(x float64) string {
		if x == 0 {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, r := range recs {
		best := r.BestMs()
		frac, bound := c.Fraction(r.FLOPs, r.Bytes, best)
		row := []string{r.Kernel, r.Paper, r.Class, r.Size, r.Strategy, f(r.BudgetS), r.Device, f(r.BaselineMs()), f(best), f(r.Speedup()),
			f(gflops(r.FLOPs, best)), f(frac), bound}
		if rep := r.Report; rep != nil {
			fl := rep.Failures
			space, params := "", ""
			if rep.SpaceSize != nil {
				space = rep.SpaceSize.String()
			}
			if best > 0 {
				params = Params(rep.BestParams)
			}
			row = append(row, strconv.Itoa(rep.Evaluations), f(rep.EvalsPerMinute), strconv.Itoa(fl.Illegal), strconv.Itoa(fl.Compile),
				strconv.Itoa(fl.Launch), strconv.Itoa(fl.Wrong), strconv.Itoa(fl.Timeout), space, rep.Stopped, params)
		} else {
			row = append(row, "", "", "", "", "", "", "", "", "", "")
		}
		row = append(row, why(r))
		if rep := r.Report; rep != nil && rep.Time != (autotune.JSONTime{}) {
			t := rep.Time
			row = append(row, f(t.BuildWaitS), f(t.RunS), f(t.KernelS), f(t.CheckS), f(t.OtherS))
		} else {
			row = append(row, "", "", "", "", "")
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
