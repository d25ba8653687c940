package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/autotune"
	"github.com/hplopt/hplopt/clc"
	"github.com/hplopt/hplopt/codegen"
	"github.com/hplopt/hplopt/hpl"
	"github.com/hplopt/hplopt/kernels"
	"github.com/hplopt/hplopt/optimizer"
	"github.com/hplopt/hplopt/runner"
)

// OpenCLC is the Source of kernels written in OpenCL C: an operand that
// names a file ending in .cl is the single-point kernel in it, read by
// package clc (its arrays delinearized), sized by the verb's --global,
// --arg and --shape flags (tune, gen, run and analyze take them):
//
//	hplopt tune mm.cl --global 1024,1024 --arg n=1024 --arg p=512 -t 60
//
// Its inputs are random, made from --data-seed (run: --seed); every
// variant is checked against the kernel as written, the file's own source
// run on the same device, which is also the single-point kernel that
// speedups are over. It lists no kernels (bench runs none of them).
func OpenCLC() Source { return clSource{} }

// clSource is OpenCLC.
type clSource struct{}

func (clSource) Name() string                  { return "opencl-c" }
func (clSource) Kernels() []*kernels.Benchmark { return nil }

// Lookup recognises a .cl file, which needs the flags of the verbs that
// take one (sizeFlags.openCL): it is an error here.
func (clSource) Lookup(name string) (*kernels.Benchmark, error) {
	if !isCLFile(name) {
		return nil, nil
	}
	return nil, fmt.Errorf("%s: a kernel written in OpenCL C needs its sizes (--global, --arg), which tune, gen, run and analyze take", name)
}

// isCLFile reports whether an operand names a file of OpenCL C.
func isCLFile(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".cl") }

// readsCL reports whether one of c's sources reads .cl files.
func (c *command) readsCL() bool {
	return slices.ContainsFunc(c.sources, func(s Source) bool { _, ok := s.(clSource); return ok })
}

// clVars defines the flags of a kernel written in OpenCL C on fs, setting
// opts; seen, if not nil, is called with the name of each flag given.
func clVars(fs *flagSet, opts *clc.Options, seen func(name string)) {
	for _, f := range []struct {
		name, usage string
		set         func(string) error
	}{
		{"global", "FILE.cl: the global size `X[,Y[,Z]]`, x first, one work-item per point (array extents may depend on it)", opts.SetGlobal},
		{"arg", "FILE.cl: the value of a scalar argument, `NAME=VALUE` (repeat for each)", opts.SetArg},
		{"shape", "FILE.cl: the extents of an array, `NAME=AxB`, slowest first, instead of those inferred from its subscripts (repeat for each)", opts.SetShape},
	} {
		fs.Func(f.name, f.usage, func(s string) error {
			if seen != nil {
				seen(f.name)
			}
			return f.set(s)
		})
	}
}

// clFlags are a verb's flags for a kernel written in OpenCL C, and the
// file they resolved to.
type clFlags struct {
	opts  clc.Options
	given []string // the flags given, by name
	file  *clFile  // the FILE.cl operand, once resolved (sizeFlags.openCL)
}

func (f *clFlags) define(fs *flagSet) {
	clVars(fs, &f.opts, func(name string) {
		if !slices.Contains(f.given, name) {
			f.given = append(f.given, name)
		}
	})
}

// failure is an error that is not a usage error: the verb exits 1 (a
// .cl file that cannot be read, or a kernel outside the subset package clc
// reads). flagSet.usageError tells it apart.
type failure struct{ err error }

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// report writes a failure's error, each of a clc.ErrorList on a line of
// its own ("file:line:col: message").
func (f *failure) report(verb string, w io.Writer) {
	var list clc.ErrorList
	if errors.As(f.err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e)
		}
		return
	}
	fmt.Fprintf(w, "hplopt %s: %v\n", verb, f.err)
}

// openCL resolves a verb's operands when they name a kernel written in
// OpenCL C: ok reports that they do. The size is the one the .cl flags
// give; the size flags of named kernels are usage errors, as the .cl flags
// are for a named kernel.
func (s *sizeFlags) openCL(c *command, operands []string) (b *kernels.Benchmark, size kernels.Size, ok bool, err error) {
	if len(operands) != 1 || !isCLFile(operands[0]) || !c.readsCL() {
		if len(s.cl.given) > 0 && len(operands) > 0 && !isCLFile(operands[0]) {
			return nil, size, true, fmt.Errorf("--%s is for a kernel written in OpenCL C (FILE.cl); %s takes --size, -n and -k", s.cl.given[0], operands[0])
		}
		return nil, size, false, nil
	}
	var named []string
	if s.class != "" {
		named = append(named, "--size")
	}
	if len(s.classes) > 0 {
		named = append(named, "--sizes")
	}
	if s.n != nil || len(s.ns) > 0 {
		named = append(named, "-n")
	}
	if s.k != nil || len(s.ks) > 0 {
		named = append(named, "-k")
	}
	if len(named) > 0 {
		return nil, size, true, fmt.Errorf("%s: %s: a kernel written in OpenCL C is sized by --global and --arg", operands[0], strings.Join(named, ", "))
	}
	f, err := loadCL(operands[0], s.cl.opts)
	if err != nil {
		return nil, size, true, err
	}
	s.cl.file = f
	return f.bench, f.bench.Sizes[clClass], true, nil
}

// clClass is the one size class of a kernel written in OpenCL C: the size
// its flags give.
const clClass = "given"

// clFile is a kernel written in OpenCL C, loaded for the sizes a verb's
// flags give.
type clFile struct {
	path    string
	kernel  *clc.Kernel
	bench   *kernels.Benchmark // the delinearized kernel, with one size (clClass)
	global  []int
	shapes  map[string][]int   // every array's extents, slowest first
	scalars map[string]float64 // every scalar argument's value
	sizes   string             // the sizes, as "global 24x20, m=20 n=24 p=12"
}

// loadCL reads path and loads its kernel with opts (package clc). A file
// that cannot be read and a kernel outside the subset are failures; flags
// that do not fit the kernel are usage errors naming what is missing.
func loadCL(path string, opts clc.Options) (*clFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &failure{err}
	}
	k, err := clc.Load(path, src, opts)
	var list clc.ErrorList
	switch {
	case errors.As(err, &list):
		return nil, &failure{err}
	case err != nil:
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f := &clFile{path: path, kernel: k, global: opts.Global, scalars: map[string]float64{}}
	dims := 0
	ast.Inspect(k.Parsed.Body, func(n ast.Node) bool {
		if s, ok := n.(*ast.Special); ok {
			dims = max(dims, s.Dim+1)
		}
		return true
	})
	switch {
	case len(f.global) == 0:
		return nil, fmt.Errorf("%s: no --global: give the global size, %s", path, globalWanted(k.Name, dims))
	case dims > 0 && len(f.global) != dims:
		return nil, fmt.Errorf("%s: --global %s has %s; give %s", path, (*intList)(&f.global).String(), plural(len(f.global), "dimension"), globalWanted(k.Name, dims))
	}
	var missing []string
	for _, p := range k.Parsed.Params {
		if p.Rank > 0 {
			continue
		}
		v, ok := opts.Args[p.Name]
		if !ok {
			missing = append(missing, p.Name)
		}
		f.scalars[p.Name] = v
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no value for %s: give %s%s", path, strings.Join(missing, ", "), argFlags(k, missing), neededBy(k, missing))
	}
	if f.shapes, err = k.Shapes(); err != nil {
		return nil, fmt.Errorf("%s: %v (--shape NAME=AxB gives an array's extents)", path, err)
	}
	hk, err := hpl.FromAST(k.AST)
	if err != nil {
		return nil, &failure{err}
	}
	var vals []string
	for _, p := range k.Parsed.Params {
		if p.Rank == 0 {
			vals = append(vals, fmt.Sprintf("%s=%g", p.Name, f.scalars[p.Name]))
		}
	}
	f.sizes = "global " + strings.ReplaceAll((*intList)(&f.global).String(), ",", "x")
	if len(vals) > 0 {
		f.sizes += ", " + strings.Join(vals, " ")
	}
	f.bench, err = kernels.Define(kernels.Def{Name: k.Name, Doc: fmt.Sprintf("kernel %s of %s, %s", k.Name, path, f.sizes), Kernel: hk, Sizes: map[string]kernels.Size{clClass: {N: f.global}}, Setup: f.setup})
	if err != nil {
		return nil, &failure{err}
	}
	return f, nil
}

// globalWanted says how many sizes --global takes for a kernel using dims
// dimensions (0: none used).
func globalWanted(kernel string, dims int) string {
	switch dims {
	case 0:
		return fmt.Sprintf("X[,Y[,Z]] (kernel %s calls no work-item function)", kernel)
	}
	return fmt.Sprintf("%s (kernel %s uses %s)", []string{"X", "X,Y", "X,Y,Z"}[dims-1], kernel, plural(dims, "dimension"))
}

// plural writes n things: "1 dimension", "2 dimensions".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// argFlags writes the --arg flags for the scalars names.
func argFlags(k *clc.Kernel, names []string) string {
	var out []string
	for _, n := range names {
		v := "VALUE"
		if p := k.Parsed.Param(n); p != nil && p.Type == ast.Int {
			v = "N"
		}
		out = append(out, "--arg "+n+"="+v)
	}
	return strings.Join(out, " ")
}

// neededBy says which arrays' extents depend on the scalars names.
func neededBy(k *clc.Kernel, names []string) string {
	var arrays []string
	for _, a := range k.Args {
		uses := false
		for _, e := range a.Extents {
			if e == nil {
				continue
			}
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && slices.Contains(names, id.Name) {
					uses = true
				}
				return !uses
			})
		}
		if uses {
			arrays = append(arrays, a.Name)
		}
	}
	if len(arrays) == 0 {
		return ""
	}
	it := "it"
	if len(names) > 1 {
		it = "them"
	}
	return fmt.Sprintf(" (the extents of %s depend on %s)", strings.Join(arrays, ", "), it)
}

// setup makes the kernel's arguments: random arrays of the extents the
// flags give (clc.Inputs, from seed) and the scalars' values. The arrays
// have the delinearized kernel's shapes; their memory is the flat arrays
// of the kernel as written.
func (f *clFile) setup(_ kernels.Size, seed int64) (*kernels.Data, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	flat, err := clc.Inputs(f.kernel.Parsed, f.shapes, f.scalars, rng)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(flat))
	for i, p := range f.kernel.Parsed.Params {
		dims := f.shapes[p.Name]
		switch a := flat[i].(type) {
		case []float32:
			args[i] = hpl.FromFloat32s(a, dims...)
		case []float64:
			args[i] = hpl.FromFloat64s(a, dims...)
		case []int32:
			args[i] = hpl.FromInt32s(a, dims...)
		default:
			args[i] = a
		}
	}
	return &kernels.Data{Args: args, Global: f.global}, nil
}

// problem is what the optimizer works on for inst on device: the
// delinearized kernel's problem, with the kernel as written as its
// single-point kernel and reference.
func (f *clFile) problem(inst *kernels.Instance, device string) (*optimizer.Problem, error) {
	prob, err := hpl.Eval(inst.Bench.Kernel).Device(device).Global(inst.Global...).OptimizerProblem(inst.Args...)
	if err != nil {
		return nil, err
	}
	prob.Written = &optimizer.Written{Kernel: f.kernel.Parsed, Source: string(f.kernel.Source)}
	return prob, nil
}

// tune searches as tuneBenchmark does, the kernel as written the reference
// and the baseline. set names its records (or none), as the CLI's always
// do.
func (f *clFile) tune(ctx context.Context, inst *kernels.Instance, device string, set hpl.OptimizerSettings) (*hpl.Tuning, error) {
	prob, err := f.problem(inst, device)
	if err != nil {
		return nil, err
	}
	return optimizer.Tune(ctx, prob, set)
}

// run is `hplopt run FILE.cl`: it runs the single-point kernel as the
// optimizer sees it (delinearized) or the --params variant cfg.Variant,
// with runner.Measurer, and checks its outputs against the kernel as
// written, run first on the same data and device. It returns the exit
// status: 1 when either fails or the outputs differ.
func (f *clFile) run(cfg *runConfig, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hplopt run: %v\n", err)
		return 1
	}
	inst, err := cfg.Bench.Instance(cfg.Size, cfg.Seed)
	if err != nil {
		return fail(err)
	}
	prob, err := f.problem(inst, cfg.Device)
	if err != nil {
		return fail(err)
	}
	k, global, local := prob.Passes.Kernel, inst.Global, []int(nil)
	if cfg.Variant != nil {
		k, global, local = cfg.Variant, cfg.Global, cfg.Local
	}
	k = withOptions(k, cfg.BuildOptions)
	src := cfg.Code
	if src == "" {
		if src, err = codegen.Source(k); err != nil {
			return fail(err)
		}
	}
	m, err := runner.NewMeasurer(prob.Device.Spec(), prob.Data, runner.MeasureSettings{Runs: cfg.Reps})
	if err != nil {
		return fail(err)
	}
	defer m.Close()
	base, err := m.SetReference(runner.Variant{Source: prob.Written.Source, KernelName: k.Name, Global: inst.Global})
	if err != nil {
		return fail(fmt.Errorf("the kernel as written: %v", err))
	}
	res := m.Measure(context.Background(), runner.Variant{Source: src, KernelName: k.Name, Global: global, Local: local, Options: k.Options})
	what := "single-point kernel (delinearized)"
	if cfg.Variant != nil {
		what = fmt.Sprintf("variant %s (global %v, local %v)", cfg.Params, global, local)
	}
	if cfg.Source != "" {
		what += ", code " + cfg.Source
	}
	fmt.Fprintf(stdout, "%s %s, seed %d, %s on %s: ", f.path, f.sizes, cfg.Seed, what, m.Device())
	if res.Outcome == autotune.Wrong && len(res.Times) > 0 {
		// Timed, then checked: the time of a hand edit is still worth
		// seeing, as run of a benchmark kernel shows it.
		fmt.Fprintf(stdout, "%.3f ms, the kernel as written %.3f ms (medians of %d), check WRONG\n", runner.Median(res.Times), base, len(res.Times))
		return fail(fmt.Errorf("%s: %v", res.Outcome, res.Err))
	}
	if res.Outcome != autotune.OK {
		fmt.Fprintf(stdout, "%s\n", res.Outcome)
		return fail(fmt.Errorf("%s: %v", res.Outcome, res.Err))
	}
	fmt.Fprintf(stdout, "%.3f ms, the kernel as written %.3f ms (medians of %d), check ok: the outputs of the kernel as written\n", res.Ms, base, max(1, cfg.Reps))
	if cfg.BuildLog || cfg.Binary != "" {
		s, err := runner.Open(prob.Device.Spec())
		if err != nil {
			return fail(err)
		}
		p, err := s.Build(src, k.Options)
		if err != nil {
			return fail(err)
		}
		defer p.Release()
		if cfg.BuildLog {
			printBuildLog(stdout, p.Log())
		}
		if cfg.Binary != "" {
			bin, err := p.Binary()
			if err == nil {
				err = writeBinary(cfg.Binary, bin)
			}
			if err != nil {
				return fail(err)
			}
		}
	}
	return 0
}
