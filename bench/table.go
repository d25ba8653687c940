package bench

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hplopt/hplopt/autotune"
)

// Ceiling is a device's throughput limits: FP32 peak in FLOP/s, memory
// bandwidth in bytes/s (bytes read plus written) and the rate of
// reciprocal square roots per second (the special-function units). A zero
// field is unknown.
type Ceiling struct {
	Name      string
	PeakFLOPs float64
	Bandwidth float64
	RSqrtRate float64
	Source    string // where the figures come from
}

// rsqrtH100 is the H100's reciprocal-square-root rate, measured with a
// microbenchmark on the project's H100 (4.16-4.18 T/s: 16 per clock per
// SM, one-eighth of the FP32 rate).
const rsqrtH100 = 4.17e12

// Known reports whether the ceiling has both figures.
func (c Ceiling) Known() bool { return c.PeakFLOPs > 0 && c.Bandwidth > 0 }

// builtin holds the ceilings of the devices we measure on, matched by a part
// of the OpenCL device name.
var builtin = []Ceiling{
	{Name: "H100", PeakFLOPs: 66.9e12, Bandwidth: 3.0e12, RSqrtRate: rsqrtH100, Source: "132 SMs x 128 FP32 lanes x 2 x 1.98 GHz; device-to-device copy and rsqrt rate measured on the H100"},
	// The H200 (SXM) is the H100's chip with HBM3e: the same SMs at the same
	// clock, so the same FP32 and rsqrt rates; its copy measured with
	// bench/reference/copy_bandwidth.py on 2026-12-03 (4096 MiB, three
	// runs: 4.23, 4.28 and 4.28 TB/s).
	{Name: "H200", PeakFLOPs: 66.9e12, Bandwidth: 4.28e12, RSqrtRate: rsqrtH100, Source: "132 SMs x 128 FP32 lanes x 2 x 1.98 GHz; device-to-device copy measured on the H200, rsqrt rate the H100's (the same SM)"},
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
// largest of FLOPs/peak, bytes/bandwidth and, when the ceiling knows the
// special-function rate, rsqrts/RSqrtRate (the time the kernel would take
// at the ceiling), over the time. The bound says which limit that was:
// "compute", "memory" or "rsqrt".
func (c Ceiling) Fraction(flops, bytes, ms float64) (frac float64, bound string) {
	return c.Fractions(flops, bytes, 0, ms)
}

// Fractions is Fraction with the kernel's reciprocal square roots counted.
func (c Ceiling) Fractions(flops, bytes, rsqrts, ms float64) (frac float64, bound string) {
	if !c.Known() || ms <= 0 {
		return 0, ""
	}
	t, bound := flops/c.PeakFLOPs, "compute"
	if tm := bytes / c.Bandwidth; tm > t {
		t, bound = tm, "memory"
	}
	if c.RSqrtRate > 0 {
		if ts := rsqrts / c.RSqrtRate; ts > t {
			t, bound = ts, "rsqrt"
		}
	}
	return t / (ms / 1e3), bound
}

// FP32Fraction is the share of the FP32 peak alone that a time reaches.
func (c Ceiling) FP32Fraction(flops, ms float64) float64 {
	if c.PeakFLOPs <= 0 || ms <= 0 {
		return 0
	}
	return flops / c.PeakFLOPs / (ms / 1e3)
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
// printed by bench/reference/cublas_sgemm.py (Library "cuBLAS") or by
// bench/reference/openblas_sgemm (Library "OpenBLAS").
type Reference struct {
	Library string
	N       int
	Ms      float64
	TFLOPs  float64
}

// referenceLibraries maps the first word of a reference line to the
// library it measured and the unit of its rate.
var referenceLibraries = map[string]struct {
	name string
	rate string // the key of the rate, in TFLOP/s or GFLOP/s
}{
	"cublas-sgemm":   {"cuBLAS", "tflops"},
	"openblas-sgemm": {"OpenBLAS", "gflops"},
}

// ParseReferences reads lines "cublas-sgemm n=4096 median_ms=2.7 tflops=50.85"
// and "openblas-sgemm n=1024 median_ms=7.6 gflops=282.1"; other lines are
// skipped.
func ParseReferences(r io.Reader) ([]Reference, error) {
	var out []Reference
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		lib, ok := referenceLibraries[f[0]]
		if !ok {
			continue
		}
		ref := Reference{Library: lib.name}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("bench: reference line %d: %q: %v", line, kv, err)
			}
			switch {
			case k == "n":
				ref.N = int(x)
			case k == "median_ms":
				ref.Ms = x
			case k == lib.rate && k == "tflops":
				ref.TFLOPs = x
			case k == lib.rate && k == "gflops":
				ref.TFLOPs = x / 1e3
			}
		}
		if ref.N <= 0 || ref.TFLOPs <= 0 {
			return nil, fmt.Errorf("bench: reference line %d: no n or %s in %q", line, lib.rate, sc.Text())
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
		byK[r.Name()] = append(byK[r.Name()], sp)
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
	p("Times are kernel times from OpenCL profiling events, the median of the timed launches; every variant's output was checked against the single-point kernel's before its time counted. *Of ceiling* is the time the kernel would take at the device's FP32 peak or memory bandwidth, whichever is longer, over the tuned time. *Time %% b/r/k* splits the run's search time: waiting for builds, running variants (resetting outputs, launching, reading back), and of that the kernels themselves on the device (the fraction of the search the device spent running kernels). *Builders* is the number of builder processes and the fraction of the search they were busy (builder-seconds over builders times the search's time).\n\n")
	p("| kernel | size | strategy | budget s | single-point ms | tuned ms | speedup | GFLOP/s | of ceiling | evaluations | evals/min | time %% b/r/k | builders | failures i/c/l/w/t | best parameters |\n")
	p("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range recs {
		best := r.BestMs()
		fs := ceilingCell(opt.Ceiling, r, best)
		evals, epm, fails, params, split, pool := "–", "–", "–", why(r), "–", "–"
		if rep := r.Report; rep != nil {
			evals = strconv.Itoa(rep.Evaluations)
			if b := rep.Builds; b != nil {
				pool = fmt.Sprintf("%d, %.0f%%", b.Builders, 100*b.Utilization)
			}
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
		p("| %s | %s | %s | %g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name(), classLabel(r), r.Strategy, r.BudgetS,
			fmtMs(r.BaselineMs()), fmtMs(best), fmtX(r.Speedup()), gf, fs, evals, epm, split, pool, fails, params)
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
		p("- %s %s, %s search: %s\n", r.Name(), classLabel(r), r.Strategy, what)
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
		n         int
		el, setup float64
		t         autotune.JSONTime
		busy, cap float64 // builder-seconds busy, and builders x search time
	}
	by := map[string]*sum{}
	var all sum
	var ks []string
	for _, r := range recs {
		rep := r.Report
		if rep == nil || rep.ElapsedS <= 0 || rep.Time == (autotune.JSONTime{}) {
			continue
		}
		s := by[r.Name()]
		if s == nil {
			s = &sum{}
			by[r.Name()] = s
			ks = append(ks, r.Name())
		}
		for _, s := range []*sum{s, &all} {
			s.n++
			s.el += rep.ElapsedS
			s.t.GenWaitS += rep.Time.GenWaitS
			s.t.BuildWaitS += rep.Time.BuildWaitS
			s.t.LoadWaitS += rep.Time.LoadWaitS
			s.t.RunS += rep.Time.RunS
			s.t.KernelS += rep.Time.KernelS
			s.t.CheckS += rep.Time.CheckS
			s.t.OtherS += rep.Time.OtherS
			s.setup += rep.SetupS
			if b := rep.Builds; b != nil {
				s.busy += b.BusyS
				s.cap += float64(b.Builders) * rep.ElapsedS
			}
		}
	}
	if all.n == 0 {
		return
	}
	sort.Slice(ks, func(i, j int) bool { return paperRank(ks[i]) < paperRank(ks[j]) })
	p("\n## Where the tuning time went\n\n")
	p("Summed over the runs (%d) of each kernel: the setup before the search (starting the worker and the builders, timing the single-point kernel), and the search's time split into waiting for a variant to be generated (the passes and the OpenCL printer in the tuning process, when not done ahead), waiting for its build (what was left of it when it had been started ahead), waiting for the measuring worker to make its program from the builder's binary (loading; on NVIDIA the PTX turned into machine code), running variants (resetting the outputs, the launches, reading the outputs back), of that the kernels on the device (profiling events of every launch, warm-up included: the fraction of the search the device spent running kernels), checking the outputs (an evaluation cut by the end of the budget included), and the rest (the search itself, the tuning process's bookkeeping); and how busy the builder processes were (builder-seconds over builders times the search's time).\n\n", all.n)
	p("| kernel | runs | setup s | search s | generating | waiting for builds | loading | running variants | kernels | checking | other | builders busy |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, s *sum) {
		pc := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x/s.el) }
		busy := "–"
		if s.cap > 0 {
			busy = fmt.Sprintf("%.0f%%", 100*s.busy/s.cap)
		}
		p("| %s | %d | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, s.n, s.setup, s.el, pc(s.t.GenWaitS), pc(s.t.BuildWaitS), pc(s.t.LoadWaitS), pc(s.t.RunS), pc(s.t.KernelS), pc(s.t.CheckS), pc(s.t.OtherS), busy)
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

// ceilingCell is the "of ceiling" cell of a record: the fraction of the
// binding limit, and for a kernel that computes reciprocal square roots
// (DCS3D, NBODY) the fraction of the other of the two bounds beside it: of
// the FP32 peak when the rsqrt rate binds, of the rsqrt rate otherwise.
func ceilingCell(c Ceiling, r *Record, best float64) string {
	frac, bound := c.Fractions(r.FLOPs, r.Bytes, r.RSqrts, best)
	if frac <= 0 {
		return "–"
	}
	cell := fmt.Sprintf("%.3f (%s)", frac, bound)
	switch {
	case bound == "rsqrt":
		cell += fmt.Sprintf("; FP32 %.3f", c.FP32Fraction(r.FLOPs, best))
	case r.RSqrts > 0 && c.RSqrtRate > 0:
		cell += fmt.Sprintf("; rsqrt %.3f", r.RSqrts/c.RSqrtRate/(best/1e3))
	}
	return cell
}

// writeReferences compares the GEMM-like kernels' best rates with the
// reference SGEMMs of the same n: all three do 2n²k FLOPs or a multiple, so
// the rates compare the same kind of work. One section per library.
func writeReferences(p func(string, ...any), recs []*Record, refs []Reference) {
	var libs []string
	for _, r := range refs {
		if !slices.Contains(libs, r.Library) {
			libs = append(libs, r.Library)
		}
	}
	for _, lib := range libs {
		p("\n## Against %s SGEMM\n\n", lib)
		p("%s SGEMM at the same n, timed in the same session (bench/reference):", lib)
		for _, r := range refs {
			if r.Library == lib {
				p(" n=%d %s;", r.N, fmtRate(r.TFLOPs))
			}
		}
		p("\n\n| kernel | size | strategy | tuned | %s | ratio |\n|---|---|---|---:|---:|---:|\n", lib)
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
				if ref.Library != lib || ref.N != n || r.BestMs() <= 0 {
					continue
				}
				tf := gflops(r.FLOPs, r.BestMs()) / 1e3
				p("| %s | %s | %s | %s | %s | %.3f |\n", r.Name(), classLabel(r), r.Strategy, fmtRate(tf), fmtRate(ref.TFLOPs), tf/ref.TFLOPs)
			}
		}
	}
}

// fmtRate prints a rate given in TFLOP/s in the unit that suits it.
func fmtRate(tflops float64) string {
	if tflops < 1 {
		return fmt.Sprintf("%.1f GFLOP/s", tflops*1e3)
	}
	return fmt.Sprintf("%.2f TFLOP/s", tflops)
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
		"space_size", "stopped", "best_params", "error", "build_wait_s", "run_s", "kernel_s", "check_s", "other_s", "fp32_fraction",
		"setup_s", "kernel_fraction", "builders", "builder_utilization", "load_wait_s"})
	f := func(x float64) string {
		if x == 0 {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	for _, r := range recs {
		best := r.BestMs()
		frac, bound := c.Fractions(r.FLOPs, r.Bytes, r.RSqrts, best)
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
		row = append(row, f(c.FP32Fraction(r.FLOPs, best)))
		if rep := r.Report; rep != nil {
			row = append(row, f(rep.SetupS), f(rep.Time.KernelFraction))
			if b := rep.Builds; b != nil {
				row = append(row, strconv.Itoa(b.Builders), f(b.Utilization))
			} else {
				row = append(row, "", "")
			}
			row = append(row, f(rep.Time.LoadWaitS))
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
