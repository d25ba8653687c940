package runner

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/hplopt/hplopt/ast"
)

// Problem is the data a kernel runs on while it is tuned: its arguments in
// the order of the kernel's parameters, with the initial contents of the
// arrays, and the tolerance the outputs are checked with. It is
// independent of how the variants are generated (package hpl fills one
// from a benchmark instance) and is encoded with encoding/gob to reach the
// worker process.
type Problem struct {
	Args      []Arg
	Tolerance Tolerance
}

// Arg is one kernel argument: a scalar passed by value or an array in
// global memory.
type Arg struct {
	Name   string // for messages
	Scalar bool   // passed by value: Value holds it
	// Type is the scalar's type or the arrays's element type: ast.Int,
	// ast.Float or ast.Double. An array's contents are in the slice of its
	// type (I32, F32 or F64); the other two are nil.
	Type ast.Type
	// Dims are an array's extents, outermost first (row-major, as the
	// kernel indexes it: a[i][j] with Dims {rows, columns}); their product
	// is the length of its slice. Nil for a scalar.
	Dims []int
	F32  []float32
	F64  []float64
	I32  []int32
	// Value is a scalar's value, converted to Type when it is passed.
	Value float64
	// Output marks an array the kernel writes: it is reset to its initial
	// contents before each run (a kernel may read it first, as in
	// c = beta*c + ..., or accumulate into it) and checked after the run
	// against the reference outputs.
	Output bool
}

// Tolerance bounds the difference between an output element and its
// reference value: a float element got is right when
//
//	|got - want| <= max(Abs*scale, Rel*|want|)
//
// where scale, when a whole output array is compared, is the root mean
// square of the reference array (at least 1), and 1 for a single value (Close).
// NaN only matches NaN, an infinity only itself. Int elements must be
// equal. The zero value is Rel = Abs = 1e-3, that is
// |got-want| <= 1e-3*max(scale, |want|): loose enough for float32 sums whose
// terms a variant adds in another order (tiling, unrolling and private
// accumulators all reorder them), tight enough to catch a wrong index.
//
// The array scale matters for long sums of terms of both signs (2DCONV and
// 3DCONV sum 65536 and more products of values in [-1, 1]): an element that
// cancels to near 0 still carries the rounding error of its large partial
// sums, about eps*sqrt(terms)*rms, which a bound relative to the element
// alone rejects. A missing or doubled term is still far outside it.
type Tolerance struct {
	Rel float64 // relative bound; default 0: 1e-3; negative: none (0)
	Abs float64 // absolute bound; default 0: 1e-3; negative: none (0)
}

// DefaultTolerance is the bound of the zero Tolerance.
const DefaultTolerance = 1e-3

func (t Tolerance) bounds() (rel, abs float64) {
	rel, abs = t.Rel, t.Abs
	if rel == 0 {
		rel = DefaultTolerance
	}
	if abs == 0 {
		abs = DefaultTolerance
	}
	return max(rel, 0), max(abs, 0)
}

// scaled returns the tolerance with its absolute bound multiplied by
// max(1, scale), fixed so that defaults do not apply again.
func (t Tolerance) scaled(scale float64) Tolerance {
	rel, abs := t.bounds()
	if rel == 0 {
		rel = -1
	}
	if abs == 0 {
		abs = -1
	} else if scale > 1 && !math.IsInf(scale, 0) {
		abs *= scale
	}
	return Tolerance{Rel: rel, Abs: abs}
}

// rms is the root mean square of a float array's finite elements, 0 for
// other arrays.
func (a *Arg) rms() float64 {
	sum, n := a.sumSquares()
	if n == 0 {
		return 0
	}
	return math.Sqrt(sum / float64(n))
}

// sumSquares returns the sum of the squares of a float array's finite
// elements and their number (0, 0 for other arrays).
func (a *Arg) sumSquares() (float64, int) {
	var sum float64
	n := 0
	add := func(x float64) {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sum += x * x
			n++
		}
	}
	switch a.Type {
	case ast.Float:
		for _, x := range a.F32 {
			add(float64(x))
		}
	case ast.Double:
		for _, x := range a.F64 {
			add(x)
		}
	}
	return sum, n
}

// Close reports whether got is within the tolerance of want.
func (t Tolerance) Close(got, want float64) bool {
	if got == want {
		return true
	}
	if math.IsNaN(want) || math.IsNaN(got) || math.IsInf(want, 0) || math.IsInf(got, 0) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	rel, abs := t.bounds()
	return math.Abs(got-want) <= max(abs, rel*math.Abs(want))
}

func (t Tolerance) String() string {
	rel, abs := t.bounds()
	return fmt.Sprintf("max(%g, %g*|want|)", abs, rel)
}

// Len returns the number of elements of an array argument (1 for a
// scalar).
func (a *Arg) Len() int {
	if a.Scalar {
		return 1
	}
	n := 1
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// bytes returns the size of an array argument's contents in bytes.
func (a *Arg) bytes() int { return a.Len() * a.Type.Size() }

// dataLen returns the length of the slice holding an array's contents.
func (a *Arg) dataLen() int {
	switch a.Type {
	case ast.Float:
		return len(a.F32)
	case ast.Double:
		return len(a.F64)
	case ast.Int:
		return len(a.I32)
	}
	return 0
}

// Validate checks that every argument is well formed: a known type, a
// scalar with no contents, an array with positive Dims and a slice of its
// type of their product's length (and no other slice), and at least one
// output.
func (p *Problem) Validate() error { return p.check((*Arg).validate) }

// check checks every argument with valid and that there is an output.
func (p *Problem) check(valid func(*Arg) error) error {
	outputs := 0
	for i := range p.Args {
		if err := valid(&p.Args[i]); err != nil {
			return fmt.Errorf("runner: problem argument %d (%s): %v", i, p.Args[i].Name, err)
		}
		if p.Args[i].Output {
			outputs++
		}
	}
	if outputs == 0 {
		return fmt.Errorf("runner: problem has no output to check")
	}
	return nil
}

// validateShapes is Validate for a problem whose arrays have no contents
// (a worker's, whose contents go straight to the device).
func (p *Problem) validateShapes() error { return p.check((*Arg).validateShape) }

// validateShape checks an argument's type and shape, not its contents.
func (a *Arg) validateShape() error {
	switch a.Type {
	case ast.Int, ast.Float, ast.Double:
	default:
		return fmt.Errorf("type %v: want int32, float32 or float64", a.Type)
	}
	if a.Scalar {
		if a.Output {
			return fmt.Errorf("a scalar cannot be an output")
		}
		return nil
	}
	if len(a.Dims) == 0 {
		return fmt.Errorf("an array needs Dims")
	}
	for _, d := range a.Dims {
		if d <= 0 {
			return fmt.Errorf("Dims %v: extents must be positive", a.Dims)
		}
	}
	return nil
}

func (a *Arg) validate() error {
	if err := a.validateShape(); err != nil {
		return err
	}
	slices := 0
	for _, n := range []int{len(a.F32), len(a.F64), len(a.I32)} {
		if n > 0 {
			slices++
		}
	}
	if a.Scalar {
		if slices > 0 || len(a.Dims) > 0 {
			return fmt.Errorf("a scalar has no Dims or contents")
		}
		return nil
	}
	if n := a.dataLen(); n != a.Len() || slices != 1 {
		return fmt.Errorf("Dims %v need %d %v elements in the %s slice (and no other slice); it has %d", a.Dims, a.Len(), a.Type, sliceName(a.Type), n)
	}
	return nil
}

func sliceName(t ast.Type) string {
	switch t {
	case ast.Float:
		return "F32"
	case ast.Double:
		return "F64"
	}
	return "I32"
}

// checkWant checks expected outputs: want is parallel to the Args, and
// the entry of each output has its type and length.
func (p *Problem) checkWant(want []Arg) error {
	if len(want) != len(p.Args) {
		return fmt.Errorf("runner: %d expected outputs for %d arguments", len(want), len(p.Args))
	}
	for i := range p.Args {
		if a, w := &p.Args[i], &want[i]; a.Output && (w.Type != a.Type || w.dataLen() != a.Len()) {
			return fmt.Errorf("runner: expected output %s: want %d %v elements, have %d %v", a.Name, a.Len(), a.Type, w.dataLen(), w.Type)
		}
	}
	return nil
}

// outputs returns the indices of the output arguments.
func (p *Problem) outputs() []int {
	var out []int
	for i := range p.Args {
		if p.Args[i].Output {
			out = append(out, i)
		}
	}
	return out
}

// index formats the flat index i of an array with extents dims as
// "[i0][i1]...".
func index(dims []int, i int) string {
	idx := make([]string, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		idx[k] = fmt.Sprintf("[%d]", i%dims[k])
		i /= dims[k]
	}
	return strings.Join(idx, "")
}

// compareArg compares an output's contents got with want (arrays of the
// same type and length) and returns nil if every element is within tol,
// or an error naming the first wrong element and counting the wrong ones.
// The tolerance's absolute bound scales with want's RMS.
func compareArg(name string, dims []int, got, want *Arg, tol Tolerance) error {
	return compareScaled(name, dims, got, want, tol.scaled(want.rms()))
}

// compareChunk is how many elements one goroutine of compareScaled checks.
const compareChunk = 1 << 18

// compareScaled is compareArg with the tolerance already scaled.
func compareScaled(name string, dims []int, got, want *Arg, tol Tolerance) error {
	t := tallyScaled(got, want, tol)
	return t.err(name, dims, got.Type, tol, got.dataLen())
}

// tally counts the elements outside the tolerance and keeps the first.
type tally struct {
	bad, first int
	g, w       float64
}

// add adds u, a tally of the elements from offset on, to t, a tally of
// those before.
func (t *tally) add(u tally, offset int) {
	if u.bad > 0 && t.bad == 0 {
		t.first, t.g, t.w = u.first+offset, u.g, u.w
	}
	t.bad += u.bad
}

// err is nil for a tally without wrong elements, else the error naming
// the first wrong one of the n elements of output name.
func (t tally) err(name string, dims []int, typ ast.Type, tol Tolerance, n int) error {
	if t.bad == 0 {
		return nil
	}
	bound := "tolerance " + tol.String()
	if typ == ast.Int {
		bound = "exact"
	}
	return fmt.Errorf("output %s%s (flat index %d) = %g, want %g (%s); %d of %d elements wrong",
		name, index(dims, t.first), t.first, t.g, t.w, bound, t.bad, n)
}

// tallyScaled compares got with want (arrays of the same type and length)
// with the tolerance already scaled. Large outputs are checked in chunks
// in parallel.
func tallyScaled(got, want *Arg, tol Tolerance) tally {
	n := got.dataLen()
	span := func(lo, hi int) (t tally) {
		t.first = -1
		check := func(i int, gi, wi float64, ok bool) {
			if !ok {
				if t.bad == 0 {
					t.first, t.g, t.w = i, gi, wi
				}
				t.bad++
			}
		}
		switch got.Type {
		case ast.Float:
			for i := lo; i < hi; i++ {
				gi, wi := float64(got.F32[i]), float64(want.F32[i])
				check(i, gi, wi, gi == wi || tol.Close(gi, wi))
			}
		case ast.Double:
			for i := lo; i < hi; i++ {
				check(i, got.F64[i], want.F64[i], got.F64[i] == want.F64[i] || tol.Close(got.F64[i], want.F64[i]))
			}
		case ast.Int:
			for i := lo; i < hi; i++ {
				check(i, float64(got.I32[i]), float64(want.I32[i]), got.I32[i] == want.I32[i])
			}
		}
		return t
	}
	// A chunk per goroutine: 64 of them for the largest output (MATMUL L).
	parts := make([]tally, (n+compareChunk-1)/compareChunk)
	var wg sync.WaitGroup
	for c := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[c] = span(c*compareChunk, min(n, (c+1)*compareChunk))
		}()
	}
	wg.Wait()
	var all tally
	for _, t := range parts { // in index order: the first bad chunk holds the first bad element
		all.add(t, 0)
	}
	return all
}
