// Package kernels holds the paper's eight benchmarks (its section 5) as
// single-point hpl kernels, with the problem sizes of its Table 3, inputs
// made from a seed, and a plain Go reference to check any variant against;
// and, the same way, a suite of kernels users write beyond the eight
// (Suite): matrix-vector products, stencils, time-stepped and column-sweep
// updates, covariance, filters, a transpose and guarded elementwise and
// matrix kernels.
//
// A benchmark is run by making an Instance, whose Args go to hpl.Eval in the
// kernel's parameter order and whose Global is the single-point launch:
//
//	b, _ := kernels.Get("matmul")
//	inst, _ := b.Instance(b.Sizes["tiny"], 1)
//	err := hpl.Eval(b.Kernel).Global(inst.Global...).Run(inst.Args...)
//	...
//	err = inst.Check(0) // compare every output element with the reference
package kernels

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/hplopt/hplopt/hpl"
)

// Classes lists the size classes every benchmark has: "tiny" (seconds on a
// CPU OpenCL device, for tests) and the paper's small, medium and large.
var Classes = []string{"tiny", "S", "M", "L"}

// Size is one problem size. N holds the points per dimension of the global
// domain, x first (the single-point launch); K holds the lengths of the
// compute loops, outermost first (the paper's -n and -k).
type Size struct {
	N, K []int
}

func (s Size) String() string {
	return "n=" + joinInts(s.N, "x") + " k=" + joinInts(s.K, "x")
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, sep)
}

// Benchmark is one of the paper's eight kernels, or a kernel of the suite
// of kernels users write (Suite).
type Benchmark struct {
	Name   string      // the command-line name: "matmul"
	Paper  string      // the paper's name: "MATMUL"; "" for a suite kernel
	Doc    string      // one line saying what it computes
	Kernel *hpl.Kernel // the single-point kernel
	Dims   int         // dimensions of the global domain (1 to 3)
	Loops  int         // compute loops, nested (the number of -k values)
	Sizes  map[string]Size

	setup func(in *Instance, g *gen)
	// define is the Setup of a program's own kernel (Define), used
	// instead of setup.
	define func(s Size, seed int64) (*Data, error)
	// limits checks the benchmark's own constraints on a size (square
	// matrices, a loop over all the points) and returns the number of
	// elements of its largest array.
	limits func(b *Benchmark, s Size) (largest int, err error)
}

// All returns the eight benchmarks in the paper's order.
func All() []*Benchmark { return append([]*Benchmark(nil), all...) }

// Names returns the benchmarks' command-line names.
func Names() []string { return names(all) }

func names(bs []*Benchmark) []string {
	var n []string
	for _, b := range bs {
		n = append(n, b.Name)
	}
	return n
}

// Get returns the benchmark with the given command-line name; the error
// lists the names.
func Get(name string) (*Benchmark, error) {
	for _, b := range all {
		if b.Name == name {
			return b, nil
		}
	}
	return nil, fmt.Errorf("kernels: no benchmark %q (have %s)", name, strings.Join(Names(), ", "))
}

// Find returns the benchmark or suite kernel with the given command-line
// name; the error lists both.
func Find(name string) (*Benchmark, error) {
	for _, b := range append(All(), suite...) {
		if b.Name == name {
			return b, nil
		}
	}
	return nil, fmt.Errorf("kernels: no benchmark or suite kernel %q (benchmarks: %s; suite: %s)", name, strings.Join(Names(), ", "), strings.Join(SuiteNames(), ", "))
}

// ParseSize makes a Size from a class name and/or explicit values, the
// paper's -n and -k. An explicit list replaces that part of the class's
// size; one value stands for all dimensions (or loops), as in the paper's
// "-n 1024". With no class, both lists are needed, except for nbody, whose
// loop runs over all N bodies. The result is validated: see Validate.
func (b *Benchmark) ParseSize(class string, n, k []int) (Size, error) {
	var s Size
	if class != "" {
		c, ok := b.Sizes[class]
		if !ok {
			return Size{}, fmt.Errorf("kernels: %s has no size class %q (have %s)", b.Name, class, strings.Join(b.classes(), ", "))
		}
		s = Size{N: append([]int(nil), c.N...), K: append([]int(nil), c.K...)}
	}
	var err error
	if n != nil {
		if s.N, err = spread(b.Name, "-n", "global dimension", n, b.Dims); err != nil {
			return Size{}, err
		}
	}
	if k != nil && b.Loops == 0 {
		return Size{}, fmt.Errorf("kernels: %s has no compute loop: -k takes no value", b.Name)
	}
	if k != nil {
		if s.K, err = spread(b.Name, "-k", "compute loop", k, b.Loops); err != nil {
			return Size{}, err
		}
	}
	if b.Name == "nbody" && k == nil && n != nil {
		s.K = []int{s.N[0]}
	}
	if s.N == nil {
		return Size{}, fmt.Errorf("kernels: %s needs a size: give --size (%s) or -n with %s", b.Name, strings.Join(b.classes(), ", "), count(b.Dims, "value"))
	}
	if s.K == nil && b.Loops > 0 {
		return Size{}, fmt.Errorf("kernels: %s needs -k with %s (the compute loop lengths, outermost first) or --size", b.Name, count(b.Loops, "value"))
	}
	return s, b.Validate(s)
}

// classes lists b's size classes: Classes for a built-in kernel, by size
// for a program's own.
func (b *Benchmark) classes() []string {
	if b.define == nil {
		return Classes
	}
	return sortedClasses(b.Sizes)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("1 or %d %ss", n, what)
}

// spread checks the number of values of a flag and repeats a single value.
func spread(bench, flag, what string, v []int, want int) ([]int, error) {
	switch len(v) {
	case want:
		return append([]int(nil), v...), nil
	case 1:
		out := make([]int, want)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	}
	return nil, fmt.Errorf("kernels: %s has %d %s(s): %s takes %s, not %d", bench, want, what, flag, count(want, "value"), len(v))
}

// maxElems bounds every array: kernels index with 32-bit ints.
const maxElems = math.MaxInt32

// Validate checks a size: the right number of values, all positive, the
// shape constraints of the benchmark (syrk and syr2k are square, nbody's
// loop covers all N bodies) and arrays small enough for int indexing.
func (b *Benchmark) Validate(s Size) error {
	if len(s.N) != b.Dims {
		return fmt.Errorf("kernels: %s has %d global dimension(s), the size gives %d", b.Name, b.Dims, len(s.N))
	}
	if len(s.K) != b.Loops {
		return fmt.Errorf("kernels: %s has %d compute loop(s), the size gives %d", b.Name, b.Loops, len(s.K))
	}
	for i, v := range s.N {
		if v <= 0 {
			return fmt.Errorf("kernels: %s: -n value %d is %d; sizes must be positive", b.Name, i+1, v)
		}
	}
	for i, v := range s.K {
		if v <= 0 {
			return fmt.Errorf("kernels: %s: -k value %d is %d; loop lengths must be positive", b.Name, i+1, v)
		}
	}
	big, err := b.largest(s)
	if err != nil {
		return err
	}
	if big > maxElems || big < 0 {
		return fmt.Errorf("kernels: %s at %s needs an array of more than 2^31-1 elements", b.Name, s)
	}
	return nil
}

// Largest returns the number of elements of the largest array of an
// instance of size s (every array of the benchmarks holds float32), so
// that callers can check it fits the device and the host before Instance
// allocates anything. s must be valid (Validate).
func (b *Benchmark) Largest(s Size) (int, error) {
	if err := b.Validate(s); err != nil {
		return 0, err
	}
	return b.largest(s)
}

// largest is the benchmark's limits hook and the domain's points, the
// larger (past 2^31-1: 2^31).
func (b *Benchmark) largest(s Size) (int, error) {
	big, err := b.limits(b, s)
	if err != nil {
		return 0, err
	}
	return max(big, prod(s.N)), nil
}

// square checks that the two global dimensions of s are equal, for a
// kernel that works on a square matrix.
func (b *Benchmark) square(s Size) error {
	if s.N[0] != s.N[1] {
		return fmt.Errorf("kernels: %s works on a square matrix: -n %dx%d must have equal values", b.Name, s.N[0], s.N[1])
	}
	return nil
}

// Instance is a benchmark set up for one size and seed.
type Instance struct {
	Bench *Benchmark
	Size  Size
	// Args are the kernel's arguments in parameter order: *hpl.Array for
	// arrays, int32 or float32 for scalars. Inputs hold pseudo-random data
	// made from the seed; outputs start at zero, except an output that is
	// also read (syrk's c), which starts random.
	Args []any
	// Global is the single-point launch, one work-item per point: Size.N,
	// rounded up to whole work-groups for a suite kernel with a bounds
	// guard (saxpy, matmul-guard), whose extra work-items do nothing.
	Global []int
	// Outputs names the arrays the kernel writes, in parameter order.
	Outputs []string
	// Reference computes every output array on the CPU from the initial
	// inputs (float64 arithmetic, parallel over the points). For a
	// program's own kernel (Define) it is its Data.Reference, or nil.
	Reference func() map[string][]float32
	// FLOPs is the useful work: 2 per multiply-add, 1 per rsqrt, not
	// counting what the single-point kernel recomputes needlessly (syrk's
	// alpha*a, DCS3D's grid coordinates). Bytes is the least traffic: each
	// array read or written once (syrk's c both).
	FLOPs, Bytes float64
	// RSqrts counts the reciprocal square roots of one launch (DCS3D: one
	// per grid point and atom; NBODY: one per interaction). They run on the
	// special-function units, at a fraction of the FP32 rate, so they bound
	// such kernels before the FP32 peak does. 0 for the other kernels.
	RSqrts float64

	outs   []*hpl.Array
	resets []filled                     // outputs the kernel also reads, with their initial data
	point  func(p []int, emit emitFunc) // the reference at one point
	// reference is the Reference of a program's own kernel (Data), which
	// Check compares with; nil when it has none, or for a built-in one.
	reference func() map[string][]float32
	// keep lists the arrays of a program's own kernel whose initial
	// contents KeepInitial copies.
	keep []*hpl.Array
}

// KeepInitial keeps what Reset needs: for a program's own kernel
// (Define), a copy of the initial contents of the float32 outputs the
// kernel also reads (an instance that is only tuned does without it); the
// built-in kernels make theirs again from the seed.
func (in *Instance) KeepInitial() {
	for _, a := range in.keep {
		in.resets = append(in.resets, filled{arr: a, data: append([]float32(nil), a.ReadFloat32s()...)})
	}
	in.keep = nil
}

// Reset gives the outputs that the kernel also reads (syrk's c) their
// initial contents again, so that the kernel can run again on the same
// input; the next run uploads them. The other outputs need no reset: the
// kernel overwrites every element. A program's own kernel needs
// KeepInitial first.
func (in *Instance) Reset() {
	for _, r := range in.resets {
		r.fill(r.arr.Float32s())
	}
}

// emitFunc receives one reference element: output index (into Outputs),
// element offset, exact value and error magnitude (the sum of |term|).
type emitFunc func(out, off int, want, mag float64)

func (in *Instance) output(name string, a *hpl.Array) {
	in.Outputs = append(in.Outputs, name)
	in.outs = append(in.outs, a)
}

// Array returns the instance's argument array called name (nil if none).
func (in *Instance) Array(name string) *hpl.Array {
	for i, p := range in.Bench.Kernel.Params() {
		if p.Name == name {
			a, _ := in.Args[i].(*hpl.Array)
			return a
		}
	}
	return nil
}

// Instance sets the benchmark up for size s with inputs made from seed.
func (b *Benchmark) Instance(s Size, seed int64) (*Instance, error) {
	if err := b.Validate(s); err != nil {
		return nil, err
	}
	s = Size{N: append([]int(nil), s.N...), K: append([]int(nil), s.K...)}
	in := &Instance{Bench: b, Size: s, Global: append([]int(nil), s.N...)}
	if b.define != nil {
		if err := b.defined(in, seed); err != nil {
			return nil, err
		}
		return in, nil
	}
	src := rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)
	b.setup(in, &gen{src: src, r: rand.New(src)})
	in.Reference = func() map[string][]float32 {
		out := in.blank()
		in.each(in.allPoints(), func(_ int, out0, off int, want, _ float64) {
			out[in.Outputs[out0]][off] = float32(want)
		})
		return out
	}
	return in, nil
}

func (in *Instance) blank() map[string][]float32 {
	out := map[string][]float32{}
	for i, name := range in.Outputs {
		out[name] = make([]float32, in.outs[i].Len())
	}
	return out
}

// Points is the number of points of the global domain.
func (in *Instance) Points() int { return prod(in.Size.N) }

func (in *Instance) allPoints() []int {
	p := make([]int, in.Points())
	for i := range p {
		p[i] = i
	}
	return p
}

// each computes the reference at the given linear points (x fastest) in
// parallel, calling f for every element from the goroutine of the point's
// worker. Workers write disjoint elements; f must be safe for that.
func (in *Instance) each(points []int, f func(worker, out, off int, want, mag float64)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(points)/16))
	var wg sync.WaitGroup
	chunk := (len(points) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min(len(points), (w+1)*chunk)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func(w int, pts []int) {
			defer wg.Done()
			p := make([]int, len(in.Size.N))
			for _, lin := range pts {
				for d, n := range in.Size.N {
					p[d] = lin % n
					lin /= n
				}
				in.point(p, func(out, off int, want, mag float64) { f(w, out, off, want, mag) })
			}
		}(w, points[lo:hi])
	}
	wg.Wait()
}

// Tolerance is the accepted error of an output element, relative to the
// sum of the absolute values of the terms that make it (not to the result,
// which cancellation can make small): float32 sums of n terms in any order,
// with rsqrt's few ulps per term, stay well inside 1e-5 + 4e-7*sqrt(n). A
// missing or doubled term of average size, mag/n, exceeds it up to about
// 10^4 terms: at the tiny sizes, and for MATMUL, SYRK, SYR2K and DCS3D at
// every size.
func Tolerance(terms int) float64 { return 1e-5 + 4e-7*math.Sqrt(float64(terms)) }

// Terms is the number of terms summed into one output element.
func (in *Instance) Terms() int { return prod(in.Size.K) }

// ErrNoReference is Check's answer for a program's own kernel defined
// without a Reference.
var ErrNoReference = errors.New("kernels: the kernel has no reference to check against")

// Mismatch is an output element outside the tolerance.
type Mismatch struct {
	Array     string
	Index     []int // subscripts, slowest first
	Got, Want float64
	Err       float64 // |Got-Want| / magnitude
}

// CheckError reports the elements that differ from the reference.
type CheckError struct {
	Kernel    string
	Checked   int        // elements compared
	Bad       int        // elements outside the tolerance
	Tolerance float64    // relative to the terms' magnitude
	Worst     []Mismatch // up to five, largest error first
}

func (e *CheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernels: %s: %d of %d elements differ from the CPU reference (tolerance %.2g of the terms' magnitude)", e.Kernel, e.Bad, e.Checked, e.Tolerance)
	for _, m := range e.Worst {
		fmt.Fprintf(&b, "\n\t%s%s = %g, want %g (error %.2g)", m.Array, subscripts(m.Index), m.Got, m.Want, m.Err)
	}
	return b.String()
}

func subscripts(idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		fmt.Fprintf(&b, "[%d]", i)
	}
	return b.String()
}

// Check compares the output arrays (as the device left them: reading them
// brings them to the host) with the reference, at every point of the domain
// when sample <= 0 or sample >= Points(), otherwise at sample points drawn
// deterministically (always including the first and the last). It returns a
// *CheckError when an element is outside Tolerance.
//
// A program's own kernel (Define) is compared with its Data.Reference at
// every element; without one, Check compares nothing and returns
// ErrNoReference.
func (in *Instance) Check(sample int) error {
	if in.Bench.define != nil {
		if in.reference == nil {
			return ErrNoReference
		}
		return in.checkDefined()
	}
	got := make([][]float32, len(in.outs))
	for i, a := range in.outs {
		if err := a.Sync(); err != nil {
			return fmt.Errorf("kernels: %s: reading %s: %w", in.Bench.Name, in.Outputs[i], err)
		}
		got[i] = a.ReadFloat32s()
	}
	points := in.allPoints()
	if sample > 0 && sample < len(points) {
		points = samplePoints(len(points), sample)
	}
	tol := Tolerance(in.Terms())
	workers := runtime.GOMAXPROCS(0)
	bad := make([][]Mismatch, workers)
	checked := make([]int, workers)
	in.each(points, func(w, out, off int, want, mag float64) {
		checked[w]++
		g := float64(got[out][off])
		e := math.Abs(g-want) / math.Max(mag, math.SmallestNonzeroFloat32)
		if e <= tol { // NaN fails here
			return
		}
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		bad[w] = append(bad[w], Mismatch{Array: in.Outputs[out], Index: unflatten(off, in.outs[out].Dims()), Got: g, Want: want, Err: e})
	})
	ce := &CheckError{Kernel: in.Bench.Name, Tolerance: tol}
	var all []Mismatch
	for w := range bad {
		ce.Checked += checked[w]
		all = append(all, bad[w]...)
	}
	return ce.with(all)
}

// with returns ce with the mismatches all, the worst five first, or nil
// when there are none.
func (ce *CheckError) with(all []Mismatch) error {
	if len(all) == 0 {
		return nil
	}
	ce.Bad = len(all)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Err > all[j].Err })
	ce.Worst = all[:min(5, len(all))]
	return ce
}

// samplePoints draws n distinct points of [0, total) deterministically,
// including 0 and total-1, sorted.
func samplePoints(total, n int) []int {
	r := rand.New(rand.NewPCG(uint64(total), uint64(n)))
	seen := map[int]bool{0: true, total - 1: true}
	for len(seen) < n {
		seen[r.IntN(total)] = true
	}
	out := make([]int, 0, n)
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// SampleFor returns a sample size for Check that keeps the CPU reference to
// about maxFLOPs of work: 0 (every point) when the whole reference fits.
func (in *Instance) SampleFor(maxFLOPs float64) int {
	if in.FLOPs <= maxFLOPs {
		return 0
	}
	perPoint := in.FLOPs / float64(in.Points())
	return max(64, int(maxFLOPs/perPoint))
}

func unflatten(off int, dims []int) []int {
	idx := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		idx[i] = off % dims[i]
		off /= dims[i]
	}
	return idx
}

// ---- helpers ----

// gen makes the pseudo-random inputs of an instance.
type gen struct {
	src *rand.PCG
	r   *rand.Rand
}

// filled is a new input array and its initial data, which the reference
// reads. For an array the kernel only reads, data is the array's own host
// memory. An output the kernel also reads (syrk's c) holds no copy of its
// initial data, so that a large instance is not held twice: its data is
// nil and initial makes it again from the generator's state before the
// array was filled (resettable).
type filled struct {
	arr    *hpl.Array
	data   []float32
	lo, hi float64
	state  rand.PCG   // the generator before the array was filled
	again  *[]float32 // the data made again, once (resettable's initial)
	once   *sync.Once
}

// uniform returns a float32 array of the given extents (slowest first)
// with values uniform in [lo, hi). Its data is the array's memory: a setup
// passes an array the kernel writes through resettable.
func (g *gen) uniform(lo, hi float64, ext ...int) filled {
	a := hpl.NewArray(hpl.Float32, ext...)
	f := filled{arr: a, lo: lo, hi: hi, state: *g.src}
	v := a.Float32s()
	for i := range v {
		v[i] = float32(lo + (hi-lo)*g.r.Float64())
	}
	f.data = v
	return f
}

// fill writes f's initial data into v: made again from the generator's
// state, or, for a program's own array (Define), copied from the data kept.
func (f *filled) fill(v []float32) {
	if f.once == nil {
		copy(v, f.data)
		return
	}
	st := f.state
	r := rand.New(&st)
	for i := range v {
		v[i] = float32(f.lo + (f.hi-f.lo)*r.Float64())
	}
}

// initial returns f's initial data: made again, once, for a resettable
// array, whose memory the kernel overwrites.
func (f filled) initial() []float32 {
	if f.once == nil {
		return f.data
	}
	f.once.Do(func() {
		v := make([]float32, f.arr.Len())
		f.fill(v)
		*f.again = v
	})
	return *f.again
}

// resettable marks f as an output the kernel also reads (syrk's c): Reset
// gives it its initial data again, and the reference reads that data with
// initial, both made again from the generator rather than kept.
func (in *Instance) resettable(f filled) filled {
	f.data, f.again, f.once = nil, new([]float32), new(sync.Once)
	in.resets = append(in.resets, f)
	return f
}

func prod(v []int) int {
	p := 1
	for _, x := range v {
		p *= x
		if p > maxElems || p < 0 {
			return maxElems + 1
		}
	}
	return p
}

// slowFirst turns x-first sizes into array extents, slowest first.
func slowFirst(n []int) []int {
	out := make([]int, len(n))
	for i := range n {
		out[i] = n[len(n)-1-i]
	}
	return out
}
