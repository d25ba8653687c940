package kernels

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hplopt/hplopt/ast"
	"github.com/hplopt/hplopt/hpl"
)

// Def defines a kernel of one's own as the built-in benchmarks are defined,
// so that the command line (package cli) can tune, generate, analyse, run
// and benchmark it: the single-point kernel, its problem sizes and how to
// make its arguments for a size.
type Def struct {
	// Name is the kernel's command-line name: letters, digits, '-' and
	// '_'. Required.
	Name string
	// Doc says in one line what the kernel computes. Default "".
	Doc string
	// Kernel is the single-point kernel. Required.
	Kernel *hpl.Kernel
	// Sizes names problem sizes, as the built-ins' size classes: N holds
	// the points per dimension of the global domain, x first (-n), K the
	// lengths of the compute loops, outermost first (-k: whatever the
	// program's Setup reads them as). Every size has as many N (1 to 3)
	// and as many K values as the others. At least one is required; the
	// verbs take "tiny" when no size is given, else the smallest.
	Sizes map[string]Size
	// Setup makes the kernel's arguments for a size, with inputs made from
	// seed. Required.
	Setup func(s Size, seed int64) (*Data, error)
}

// Data is a kernel's arguments for one size, as Def.Setup makes them.
type Data struct {
	// Args are the kernel's arguments in parameter order: *hpl.Array for
	// arrays, int32, float32 or float64 for scalars. Required.
	Args []any
	// Global is the single-point launch, one work-item per point. Default
	// nil: the size's N.
	Global []int
	// Reference, if not nil, returns the right contents of the arrays the
	// kernel writes, by parameter name, computed on the CPU. It is called
	// after the kernel has run (by hplopt run), so it must read the initial
	// values of an array the kernel overwrites from a copy Setup kept.
	// Default nil: run checks nothing; tune checks every variant against
	// the single-point kernel in any case.
	Reference func() map[string][]float32
	// FLOPs is the work of one launch, for GFLOP/s; Bytes the least memory
	// traffic. Default 0: not reported.
	FLOPs, Bytes float64
}

// Define makes the Benchmark of a program's own kernel. It checks the
// definition, not the data: Instance calls Setup and checks its Data.
func Define(d Def) (*Benchmark, error) {
	fail := func(format string, args ...any) (*Benchmark, error) {
		return nil, fmt.Errorf("kernels: defining %q: %s", d.Name, fmt.Sprintf(format, args...))
	}
	if d.Name == "" || strings.Trim(d.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return fail("the name must be letters, digits, '-' and '_'")
	}
	if d.Kernel == nil {
		return fail("no Kernel")
	}
	if d.Setup == nil {
		return fail("no Setup")
	}
	if len(d.Sizes) == 0 {
		return fail("no Sizes")
	}
	b := &Benchmark{Name: d.Name, Doc: d.Doc, Kernel: d.Kernel, Dims: -1, Sizes: map[string]Size{}, define: d.Setup, limits: limitsDomain}
	for _, class := range sortedClasses(d.Sizes) {
		s := d.Sizes[class]
		if b.Dims < 0 {
			b.Dims, b.Loops = len(s.N), len(s.K)
		}
		if len(s.N) != b.Dims || len(s.K) != b.Loops {
			return fail("size %s has %d N and %d K values, other sizes %d and %d", class, len(s.N), len(s.K), b.Dims, b.Loops)
		}
		if b.Dims < 1 || b.Dims > 3 {
			return fail("size %s has %d N values; want 1 to 3 (the domain's dimensions)", class, b.Dims)
		}
		b.Sizes[class] = Size{N: append([]int(nil), s.N...), K: append([]int(nil), s.K...)}
		if err := b.Validate(s); err != nil {
			return fail("size %s: %v", class, err)
		}
	}
	return b, nil
}

// MustDefine is Define for definitions known to be right; it panics on an
// error.
func MustDefine(d Def) *Benchmark {
	b, err := Define(d)
	if err != nil {
		panic(err)
	}
	return b
}

// Defined reports whether b is a program's own kernel (Define), not a
// built-in one.
func (b *Benchmark) Defined() bool { return b.define != nil }

// DefaultClass is the size class the verbs take when none is given: "tiny"
// if b has it, else the class of the fewest points.
func (b *Benchmark) DefaultClass() string {
	if _, ok := b.Sizes["tiny"]; ok || len(b.Sizes) == 0 {
		return "tiny"
	}
	return sortedClasses(b.Sizes)[0]
}

// sortedClasses orders size classes by their number of points, then name.
func sortedClasses(sizes map[string]Size) []string {
	var out []string
	for c := range sizes {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		pi, pj := prod(sizes[out[i]].N), prod(sizes[out[j]].N)
		if pi != pj {
			return pi < pj
		}
		return out[i] < out[j]
	})
	return out
}

// defined sets in up from b's Setup.
func (b *Benchmark) defined(in *Instance, seed int64) error {
	data, err := b.define(in.Size, seed)
	if err != nil {
		return fmt.Errorf("kernels: %s: setup at %s: %w", b.Name, in.Size, err)
	}
	if data == nil {
		return fmt.Errorf("kernels: %s: setup at %s returned no data", b.Name, in.Size)
	}
	params := b.Kernel.Params()
	if len(data.Args) != len(params) {
		return fmt.Errorf("kernels: %s: setup at %s made %d arguments; the kernel has %d parameters", b.Name, in.Size, len(data.Args), len(params))
	}
	if data.Global != nil {
		if len(data.Global) != len(in.Size.N) {
			return fmt.Errorf("kernels: %s: setup's Global %v has %d dimensions; the size has %d", b.Name, data.Global, len(data.Global), len(in.Size.N))
		}
		in.Global = append([]int(nil), data.Global...)
	}
	in.Args, in.FLOPs, in.Bytes = data.Args, data.FLOPs, data.Bytes
	read, written := ast.Accesses(b.Kernel.AST())
	for i, p := range params {
		a, isArray := data.Args[i].(*hpl.Array)
		if (p.Rank > 0) != isArray || isArray && a == nil {
			return fmt.Errorf("kernels: %s: setup's argument %d (%s) is a %T; the parameter is %s", b.Name, i, p.Name, data.Args[i], paramKind(p))
		}
		if !isArray || !written[p.Name] {
			continue
		}
		in.output(p.Name, a)
		if read[p.Name] && p.Type == ast.Float {
			in.keep = append(in.keep, a)
		}
	}
	if data.Reference != nil {
		in.reference = data.Reference
		in.Reference = data.Reference
	}
	return nil
}

func paramKind(p *ast.Param) string {
	if p.Rank == 0 {
		return "a scalar " + p.Type.String()
	}
	return fmt.Sprintf("an array of %s with %d dimensions", p.Type, p.Rank)
}

// checkDefined compares the outputs with the Reference of a program's own
// kernel, every element: |got - want| may be up to 1e-3 times the larger of
// |want| and the root mean square of the reference array (at least 1), the
// bound package runner checks variants with.
func (in *Instance) checkDefined() error {
	want := in.reference()
	ce := &CheckError{Kernel: in.Bench.Name, Tolerance: 1e-3}
	var all []Mismatch
	for i, a := range in.outs {
		name := in.Outputs[i]
		w, ok := want[name]
		if !ok {
			continue
		}
		if err := a.Sync(); err != nil {
			return fmt.Errorf("kernels: %s: reading %s: %w", in.Bench.Name, name, err)
		}
		got := a.ReadFloat32s()
		if len(w) != len(got) {
			return fmt.Errorf("kernels: %s: the reference of %s has %d elements; the array %d", in.Bench.Name, name, len(w), len(got))
		}
		var sum float64
		for _, x := range w {
			sum += float64(x) * float64(x)
		}
		scale := max(1, math.Sqrt(sum/float64(max(1, len(w)))))
		for e := range w {
			g, x := float64(got[e]), float64(w[e])
			ce.Checked++
			if d := math.Abs(g - x); d <= 1e-3*max(scale, math.Abs(x)) {
				continue
			}
			all = append(all, Mismatch{Array: name, Index: unflatten(e, a.Dims()), Got: g, Want: x, Err: math.Abs(g-x) / max(scale, math.Abs(x))})
		}
	}
	return ce.with(all)
}
